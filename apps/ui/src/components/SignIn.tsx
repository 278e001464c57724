import { useState, type FormEvent } from 'react';
import { api, ApiProblem } from '../api/client';

/** Checks the key against the API before keeping it (in session storage only). */
export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) return setError('Paste an API key: the admin key is printed when Rewind first starts.');
    setBusy(true);
    setError(null);
    try {
      await api('GET', '/v1/sessions?limit=1', undefined, trimmed);
      onSignedIn(trimmed);
    } catch (e) {
      setError(
        e instanceof ApiProblem && e.status === 401
          ? 'This API key was refused: it is mistyped, revoked or expired. Check it, or ask an admin for a new one.'
          : e instanceof ApiProblem
            ? e.message
            : String(e),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">⟲ Rewind</h1>
        <p>Sign in with an API key to browse your agents' sessions, travel through their history and undo their steps.</p>
        {notice && !error && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          aria-describedby="api-key-help"
          aria-invalid={error ? true : undefined}
        />
        <small id="api-key-help">Kept in this tab's session storage only; closing the tab signs you out.</small>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
