import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiProblem, get, post } from '../api/client';
import type { RollbackView } from '../api/types';
import { useLoad } from '../hooks';
import { ErrorMessage, StatusBadge } from './common';
import { attemptsSaid } from './outcome-key';

const POLL_MS = 700;
const rollbackPath = (id: string) => `/v1/rollbacks/${encodeURIComponent(id)}`;

/** A rollback's compensations, live: polled while it runs; on needs_attention, the operator's retry and resolve. */
export function SagaPanel({ rollbackId, revision = 0, onChanged }: { rollbackId: string; revision?: number; onChanged: () => void }) {
  const [tick, setTick] = useState(0);
  const rollback = useLoad(() => get<RollbackView>(rollbackPath(rollbackId)), [rollbackId, tick, revision]);
  const status = rollback.data?.status;

  useEffect(() => {
    if (status !== 'in_progress') return;
    const timer = setTimeout(() => setTick((t) => t + 1), POLL_MS);
    return () => clearTimeout(timer);
  }, [status, rollback.data]);

  // The session's state changes with the rollback's status (completed, needs attention, resolved): tell the page.
  const seen = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (status && seen.current && seen.current !== status) onChanged();
    if (status) seen.current = status;
  }, [status, onChanged]);

  const r = rollback.data;
  return (
    <section className="panel saga" aria-labelledby="saga-title" aria-live="polite">
      <h2 id="saga-title">Rollback {r && <StatusBadge status={r.status} />}</h2>
      <ErrorMessage error={rollback.error} />
      {r && (
        <>
          <p className="muted">
            {r.kind} from step {r.fromVersion} to step {r.toVersion}, asked by {r.requestedBy}
            {r.acknowledgeIrreversible ? ', irreversible effects acknowledged' : ''}. <code>{r.rollbackId}</code>
          </p>
          {r.effects.length === 0 && <p className="muted">No effect to compensate.</p>}
          <ol className="saga-effects">
            {r.effects.map((e) => (
              <li key={e.toolCallId} data-call={e.toolCallId} className={`effect-status-${e.status}`}>
                <div>
                  <StatusBadge status={e.status === 'pending' && r.status === 'in_progress' && e.attempts > 0 ? 'attempting' : e.status} />{' '}
                  <strong>{e.tool}</strong> <span className="muted">({e.toolCallId})</span> · {e.effect}
                  {e.channel && <> · {e.channel}</>}
                  {attemptsSaid(e, r.status) && <> · {attemptsSaid(e, r.status)}</>}
                </div>
                {e.detail !== null && e.detail !== undefined && <div className="muted detail">{describeDetail(e.detail)}</div>}
                {e.status === 'failed' && <OperatorActions rollbackId={r.rollbackId} callId={e.toolCallId} onDone={() => setTick((t) => t + 1)} />}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function OperatorActions({ rollbackId, callId, onDone }: { rollbackId: string; callId: string; onDone: () => void }) {
  const [note, setNote] = useState('');
  const [error, setError] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      onDone();
    } catch (e) {
      setError(e instanceof ApiProblem ? e : new ApiProblem(0, 'client_error', String(e)));
    } finally {
      setBusy(false);
    }
  };
  const resolve = (e: FormEvent) => {
    e.preventDefault();
    void run(() => post(`${rollbackPath(rollbackId)}/effects/${encodeURIComponent(callId)}/resolve`, { note }));
  };
  return (
    <div className="operator">
      <button type="button" disabled={busy} onClick={() => run(() => post(`${rollbackPath(rollbackId)}/effects/${encodeURIComponent(callId)}/retry`))}>
        Retry compensation
      </button>
      <form onSubmit={resolve}>
        <label>
          Undone by hand? Note
          <input value={note} required placeholder="e.g. cancelled by phone, ref 4411" onChange={(e) => setNote(e.target.value)} />
        </label>
        <button type="submit" disabled={busy || !note.trim()}>
          Mark resolved
        </button>
      </form>
      <ErrorMessage error={error} />
    </div>
  );
}

/** The compensator's answer, the last error, a skip's reason or the operator's note, as text. */
function describeDetail(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  const error = (detail as { error?: unknown } | null)?.error;
  return typeof error === 'string' ? error : JSON.stringify(detail);
}
