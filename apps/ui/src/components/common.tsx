import type { ReactNode } from 'react';
import type { ApiProblem } from '../api/client';
import type { CursorPages } from '../hooks';
import type { LiveStatus } from '../live';
import { outcomeWord } from './outcome-key';

export function ErrorMessage({ error }: { error: ApiProblem | null }) {
  if (!error) return null;
  return (
    <div className="error" role="alert">
      <p>{error.message}</p>
      {error.details.length > 0 && (
        <ul>
          {error.details.map((d, i) => (
            <li key={i}>{d.field ? `${d.field}: ${d.message}` : d.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

const LIVE_TEXT: Record<LiveStatus, string> = {
  connecting: 'connecting…',
  live: '● live',
  reconnecting: 'reconnecting…',
};

/** Whether the page follows the server's changes as they happen. */
export function LiveBadge({ status }: { status: LiveStatus }) {
  return (
    <span className={`badge live-${status}`} role="status" aria-label={`Updates: ${status}`}>
      {LIVE_TEXT[status]}
    </span>
  );
}

/** While the live stream cannot reach the server: what is shown may be old; it comes back by itself. */
export function ServerBanner({ status, onRetry }: { status: LiveStatus; onRetry: () => void }) {
  if (status !== 'reconnecting') return null;
  return (
    <div className="error banner" role="alert">
      <p>
        The Rewind server is not answering: what you see may be out of date. Trying again by itself…{' '}
        <button type="button" onClick={onRetry}>
          Retry now
        </button>
      </p>
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{outcomeWord(status)}</span>;
}

export function Section({ title, children, id }: { title: string; children: ReactNode; id?: string }) {
  return (
    <section className="panel" aria-labelledby={id ? `${id}-title` : undefined}>
      <h2 id={id ? `${id}-title` : undefined}>{title}</h2>
      {children}
    </section>
  );
}

export function timeAgo(iso: string | null | undefined): string {
  if (!iso) return '—';
  const seconds = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return `${Math.max(seconds, 0)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

export function Json({ value }: { value: unknown }) {
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
}

export function Pager({ pages, nextCursor }: { pages: CursorPages; nextCursor: string | null | undefined }) {
  return (
    <div className="pager">
      <button type="button" disabled={!pages.previous} onClick={() => pages.previous?.()}>
        ← Previous
      </button>
      <span>Page {pages.page}</span>
      <button type="button" disabled={!nextCursor} onClick={() => pages.next(nextCursor)}>
        Next →
      </button>
    </div>
  );
}
