import { useState } from 'react';
import { get, query } from '../api/client';
import type { AuditEntry, Page, ToolCallEntry } from '../api/types';
import { useCursorPages, useLoad } from '../hooks';
import { ErrorMessage, Pager, StatusBadge } from './common';

const PAGE_SIZE = 50;

/** The audit log (who, when, which command) filtered by type and actor, and the tool-call ledger. */
export function AuditPage({ sessionId }: { sessionId: string | null }) {
  const [session, setSession] = useState(sessionId ?? '');
  const [type, setType] = useState('');
  const [actor, setActor] = useState('');
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const filters = { sessionId: session.trim(), type: type.trim(), actor: actor.trim() };
  const log = useLoad(
    () => get<Page<AuditEntry>>(`/v1/audit${query({ ...filters, cursor, limit: PAGE_SIZE })}`),
    [filters.sessionId, filters.type, filters.actor, cursor],
  );
  const ledger = useLoad(() => get<Page<ToolCallEntry>>(`/v1/tool-calls${query({ sessionId: filters.sessionId, limit: PAGE_SIZE })}`), [filters.sessionId]);
  const restart = pages.restart;

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
          <table aria-busy={log.loading}>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Session / step</th>
                <th scope="col">Command</th>
              </tr>
            </thead>
            <tbody>
              {log.data?.items.map((e) => (
                <tr key={e.eventId} data-type={e.type}>
                  <td>{e.position}</td>
                  <td>{new Date(e.occurredAt).toLocaleString()}</td>
                  <td>{e.actor}</td>
                  <td>{e.type}</td>
                  <td>
                    {e.sessionId ? <a href={`#/sessions/${encodeURIComponent(e.sessionId)}`}>{e.sessionId}</a> : e.streamId} · {e.streamVersion}
                  </td>
                  <td>
                    <code>{e.commandId ?? '—'}</code>
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
      </section>
    </div>
  );
}

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
