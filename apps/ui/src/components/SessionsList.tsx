import { useEffect, useState } from 'react';
import { get, query } from '../api/client';
import type { Page, SessionSummary } from '../api/types';
import { useCursorPages, useLoad } from '../hooks';
import { useLive } from '../live';
import { ErrorMessage, LiveBadge, Pager, ServerBanner, StatusBadge, timeAgo } from './common';

const STATUSES = ['active', 'rolling_back', 'needs_attention'] as const;
const PAGE_SIZE = 20;

/** The tenant's sessions from the sessions projection: search, status filter, cursor paging. */
export function SessionsList() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('');
  const [sort, setSort] = useState<'updatedAt' | 'createdAt' | 'sessionId'>('updatedAt');
  const pages = useCursorPages();
  const cursor = pages.cursor;

  // Every commit of the tenant reloads the page shown (the list is a projection: it follows within moments).
  const [changes, setChanges] = useState(0);
  const live = useLive('/v1/stream', () => setChanges((n) => n + 1));
  const page = useLoad(
    () => get<Page<SessionSummary>>(`/v1/sessions${query({ q: search.trim(), status, sort, cursor, limit: PAGE_SIZE })}`),
    [search, status, sort, cursor, changes],
  );
  const restart = pages.restart;
  // Back after a restart or an outage: a list that failed to load is read again without a click.
  const unreachable = page.error?.status === 0;
  useEffect(() => {
    if (live === 'live' && page.error) setChanges((n) => n + 1);
  }, [live]);

  return (
    <section className="panel sessions" aria-labelledby="sessions-title">
      <ServerBanner status={unreachable ? 'reconnecting' : live} onRetry={() => setChanges((n) => n + 1)} />
      <h1 id="sessions-title">
        Sessions <LiveBadge status={live} />
      </h1>
      <div className="filters" role="search">
        <label>
          Search titles
          <input
            type="search"
            value={search}
            placeholder="e.g. Lisbon"
            onChange={(e) => {
              setSearch(e.target.value);
              restart();
            }}
          />
        </label>
        <label>
          Status
          <select
            aria-label="Status"
            value={status}
            onChange={(e) => {
              setStatus(e.target.value);
              restart();
            }}
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Order
          <select
            aria-label="Order"
            value={sort}
            onChange={(e) => {
              setSort(e.target.value as typeof sort);
              restart();
            }}
          >
            <option value="updatedAt">last activity</option>
            <option value="createdAt">newest</option>
            <option value="sessionId">id</option>
          </select>
        </label>
      </div>
      {!unreachable && <ErrorMessage error={page.error} />}
      {/* Focusable and named: on a phone the table scrolls sideways, and a keyboard must reach it. */}
      <div className="table-wrap" role="region" aria-label="Sessions" tabIndex={0}>
        <table aria-busy={page.loading}>
          <caption className="muted">
            Messages and tool calls are counted on the current branch (the head&apos;s), as the session page shows them; other branches apart.
          </caption>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Status</th>
              <th scope="col">Head / events</th>
              <th scope="col">Branches</th>
              <th scope="col">Messages</th>
              <th scope="col">Tool calls</th>
              <th scope="col">Last activity</th>
            </tr>
          </thead>
          <tbody>
            {page.data?.items.map((s) => (
              <tr key={s.sessionId} data-session={s.sessionId}>
                <td>
                  <a href={`#/sessions/${encodeURIComponent(s.sessionId)}`}>{s.title ?? s.sessionId}</a>
                  {s.title && <div className="muted">{s.sessionId}</div>}
                </td>
                <td>
                  <StatusBadge status={s.status} />
                  {s.failedEffects > 0 && <div className="muted">{s.failedEffects} failed effect(s)</div>}
                </td>
                <td>
                  v{s.head} / {s.version}
                </td>
                <td>{s.branchCount}</td>
                <td>
                  <OnBranch current={s.currentBranchMessageCount} all={s.messageCount} />
                </td>
                <td>
                  <OnBranch current={s.currentBranchToolCallCount} all={s.toolCallCount} />
                </td>
                <td title={s.updatedAt}>{timeAgo(s.updatedAt)}</td>
              </tr>
            ))}
            {page.data && page.data.items.length === 0 && (
              <tr>
                <td colSpan={7} className="muted">
                  No session matches. Agents create sessions with POST /v1/sessions.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager pages={pages} nextCursor={page.data?.nextCursor} />
    </section>
  );
}

/** A count on the current branch, and what the other branches add when they add anything. */
function OnBranch({ current, all }: { current: number; all: number }) {
  return (
    <>
      {current}
      {all > current && <div className="muted">+{all - current} on other branches</div>}
    </>
  );
}
