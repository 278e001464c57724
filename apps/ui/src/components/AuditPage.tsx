import { useState } from 'react';
import { get, query, sessionPath } from '../api/client';
import type { AuditEntry, EventsPage, Page, ToolCallEntry } from '../api/types';
import { useCursorPages, useLoad } from '../hooks';
import { ErrorMessage, Json, Pager, StatusBadge } from './common';

const PAGE_SIZE = 50;

/** The audit log, newest first (who, when, which command, and the event itself), filtered by family, type and actor; and the tool-call ledger. */
export function AuditPage({ sessionId }: { sessionId: string | null }) {
  const [session, setSession] = useState(sessionId ?? '');
  const [type, setType] = useState('');
  const [family, setFamily] = useState('');
  const [actor, setActor] = useState('');
  const [oldestFirst, setOldestFirst] = useState(false);
  const pages = useCursorPages();
  const cursor = pages.cursor;
  // A type typed in wins over the family chosen; the family asks for its types at once.
  const types = type.trim() || (EVENT_FAMILIES.find((f) => f.id === family)?.types.join(',') ?? '');
  const filters = { sessionId: session.trim(), type: types, actor: actor.trim(), order: oldestFirst ? 'asc' : 'desc' };
  const log = useLoad(
    () => get<Page<AuditEntry>>(`/v1/audit${query({ ...filters, cursor, limit: PAGE_SIZE })}`),
    [filters.sessionId, filters.type, filters.actor, filters.order, cursor],
  );
  const ledgerPages = useCursorPages();
  const ledger = useLoad(
    () => get<Page<ToolCallEntry>>(`/v1/tool-calls${query({ sessionId: filters.sessionId, cursor: ledgerPages.cursor, limit: PAGE_SIZE })}`),
    [filters.sessionId, ledgerPages.cursor],
  );
  const restart = () => {
    pages.restart();
    ledgerPages.restart();
  };

  return (
    <div className="audit">
      <section className="panel" aria-labelledby="audit-title">
        <h1 id="audit-title">Audit log</h1>
        <div className="filters" role="search">
          <label>
            Session
            <input
              value={session}
              placeholder="any"
              onChange={(e) => {
                setSession(e.target.value);
                restart();
              }}
            />
          </label>
          <label>
            Event type
            <input
              value={type}
              list="event-types"
              placeholder="any, e.g. RollbackRequested"
              onChange={(e) => {
                setType(e.target.value);
                restart();
              }}
            />
          </label>
          <label>
            Family
            <select
              value={family}
              onChange={(e) => {
                setFamily(e.target.value);
                restart();
              }}
            >
              <option value="">all events</option>
              {EVENT_FAMILIES.map((f) => (
                <option key={f.id} value={f.id}>
                  {f.label}
                </option>
              ))}
            </select>
          </label>
          <label className="inline">
            <input
              type="checkbox"
              checked={oldestFirst}
              onChange={(e) => {
                setOldestFirst(e.target.checked);
                restart();
              }}
            />{' '}
            Oldest first
          </label>
          <datalist id="event-types">
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
          <label>
            Actor
            <input
              value={actor}
              placeholder="any, e.g. key:…"
              onChange={(e) => {
                setActor(e.target.value);
                restart();
              }}
            />
          </label>
        </div>
        <ErrorMessage error={log.error} />
        <div className="table-wrap">
          <table className="audit-table" aria-busy={log.loading}>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Session / step</th>
                <th scope="col">Command</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {log.data?.items.map((e) => (
                <tr key={e.eventId} data-type={e.type}>
                  <td>
                    <time dateTime={e.occurredAt}>{new Date(e.occurredAt).toLocaleString()}</time>
                  </td>
                  <td>{e.actor}</td>
                  <td>{e.type}</td>
                  <td>
                    {e.sessionId ? <a href={`#/sessions/${encodeURIComponent(e.sessionId)}`}>{e.sessionId}</a> : e.streamId} · {e.streamVersion}
                  </td>
                  <td>
                    <code>{e.commandId ?? '—'}</code>
                  </td>
                  <td>
                    <EventDetails entry={e} />
                  </td>
                </tr>
              ))}
              {log.data?.items.length === 0 && (
                <tr>
                  <td colSpan={6} className="muted">
                    No event matches these filters.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        <Pager pages={pages} nextCursor={log.data?.nextCursor} />
      </section>
      <section className="panel" aria-labelledby="ledger-title">
        <h2 id="ledger-title">Tool-call ledger</h2>
        <ErrorMessage error={ledger.error} />
        <div className="table-wrap">
          <table className="ledger">
            <thead>
              <tr>
                <th scope="col">Call</th>
                <th scope="col">Session / step</th>
                <th scope="col">Effect</th>
                <th scope="col">Outcome</th>
                <th scope="col">Compensation</th>
              </tr>
            </thead>
            <tbody>
              {ledger.data?.items.map((c) => (
                <tr key={`${c.sessionId}/${c.toolCallId}`} data-call={c.toolCallId}>
                  <td>
                    <strong>{c.tool}</strong> <span className="muted">{c.toolCallId}</span>
                  </td>
                  <td>
                    {c.sessionId} · {c.startedVersion}
                  </td>
                  <td>
                    <span className={`badge effect-${c.effect}`}>{c.effect}</span>
                    {c.confirmed && <span className="muted"> confirmed</span>}
                  </td>
                  <td>{c.status}</td>
                  <td>
                    {c.compensation ? (
                      <>
                        <StatusBadge status={c.compensation.status} /> {c.compensation.attempts} attempt(s)
                        {c.compensation.detail && <div className="muted">{c.compensation.detail}</div>}
                      </>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager pages={ledgerPages} nextCursor={ledger.data?.nextCursor} />
      </section>
    </div>
  );
}

/** One event as recorded (data and metadata), read from its session when asked for. */
function EventDetails({ entry }: { entry: AuditEntry }) {
  const [open, setOpen] = useState(false);
  const event = useLoad(
    () =>
      open && entry.sessionId
        ? get<EventsPage>(`${sessionPath(entry.sessionId)}/events${query({ from: entry.streamVersion, limit: 1 })}`).then((page) => page.events[0] ?? null)
        : Promise.resolve(null),
    [open, entry.sessionId, entry.streamVersion],
  );
  if (!entry.sessionId) return <span className="muted">—</span>;
  return (
    <div className="audit-details">
      <button type="button" className="link" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? 'Hide' : 'Show'}{' '}
        <span className="visually-hidden">
          event {entry.streamVersion} of {entry.sessionId}
        </span>
      </button>
      {open && (
        <>
          <ErrorMessage error={event.error} />
          {event.loading && !event.data && <p className="muted">Reading the event…</p>}
          {event.data && <Json value={{ type: event.data.type, data: event.data.data, metadata: event.data.metadata }} />}
          {!event.loading && !event.error && !event.data && <p className="muted">This event is no longer in the session (erased).</p>}
        </>
      )}
    </div>
  );
}

/** Families of events for the audit filter: each asks the server for its types at once. */
const EVENT_FAMILIES: readonly { id: string; label: string; types: readonly string[] }[] = [
  { id: 'conversation', label: 'conversation', types: ['UserMessageReceived', 'AgentMessageProduced', 'TurnInterrupted'] },
  {
    id: 'tools',
    label: 'tool calls',
    types: ['ToolCallStarted', 'ToolCallSucceeded', 'ToolCallFailed', 'ToolCallProposed', 'ToolCallApproved', 'ToolCallRejected'],
  },
  { id: 'state', label: 'memory, context and tasks', types: ['MemoryWritten', 'MemoryErased', 'ContextVariableSet', 'TaskPushed', 'TaskPopped'] },
  {
    id: 'time-travel',
    label: 'rollbacks and compensations',
    types: [
      'RollbackRequested',
      'CompensationApplied',
      'CompensationAttemptFailed',
      'CompensationFailed',
      'CompensationSkipped',
      'CompensationRetryRequested',
      'CompensationResolved',
      'RollbackCompleted',
    ],
  },
  { id: 'session', label: 'session, checkpoints and erasure', types: ['SessionStarted', 'CheckpointCreated', 'DataShredded'] },
];

const EVENT_TYPES = [
  'SessionStarted',
  'UserMessageReceived',
  'AgentMessageProduced',
  'ToolCallStarted',
  'ToolCallSucceeded',
  'ToolCallFailed',
  'MemoryWritten',
  'MemoryErased',
  'ContextVariableSet',
  'TaskPushed',
  'TaskPopped',
  'TurnInterrupted',
  'CheckpointCreated',
  'DataShredded',
  'RollbackRequested',
  'CompensationApplied',
  'CompensationFailed',
  'CompensationSkipped',
  'RollbackCompleted',
];
