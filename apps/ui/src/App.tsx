import { useEffect, useRef, useState } from 'react';
import { apiKeyStore, onUnauthorized } from './api/client';
import { AuditPage } from './components/AuditPage';
import { SessionPage } from './components/SessionPage';
import { SessionsList } from './components/SessionsList';
import { SignIn } from './components/SignIn';
import { focusHeading, useHashRoute } from './hooks';

/** Routes live in the hash (#/sessions/:id), so the server only ever serves index.html. */
export function App() {
  const [key, setKey] = useState<string | null>(apiKeyStore.get());
  const [notice, setNotice] = useState<string | null>(null);
  const route = useHashRoute();

  // A new page (not a new view inside one) moves focus to its heading, once the heading is there.
  const page = route.page === 'sessions' ? 'sessions' : `${route.page}/${route.sessionId ?? ''}`;
  const firstPage = useRef(page);
  useEffect(() => {
    if (!key || page === firstPage.current) return;
    firstPage.current = '';
    let tries = 0;
    const timer = setInterval(() => {
      if (focusHeading() || ++tries > 50) clearInterval(timer);
    }, 60);
    return () => clearInterval(timer);
  }, [page, key]);

  useEffect(
    () =>
      onUnauthorized(() => {
        apiKeyStore.clear();
        setKey(null);
        setNotice('The server refused the API key (expired, revoked or mistyped): sign in again.');
      }),
    [],
  );

  if (!key) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(k) => {
          apiKeyStore.set(k);
          setNotice(null);
          setKey(k);
        }}
      />
    );
  }

  const signOut = () => {
    apiKeyStore.clear();
    setKey(null);
  };

  return (
    <div className="app">
      <header className="topbar">
        <a className="brand" href="#/">
          ⟲ Rewind
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={route.page === 'sessions' ? 'page' : undefined}>
            Sessions
          </a>
          <a href="#/audit" aria-current={route.page === 'audit' ? 'page' : undefined}>
            Audit
          </a>
        </nav>
        <button type="button" className="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        {route.page === 'session' && <SessionPage key={route.sessionId} sessionId={route.sessionId} />}
        {route.page === 'audit' && <AuditPage sessionId={route.sessionId} />}
        {route.page === 'sessions' && <SessionsList />}
      </main>
    </div>
  );
}
