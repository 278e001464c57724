import { useEffect, useRef, useState } from 'react';
import { ApiProblem, post, sessionPath } from '../api/client';
import type { SessionStateView } from '../api/types';
import { ErrorMessage } from './common';

type Proposal = SessionStateView['proposals'][number];

/**
 * Tool calls the agent proposed instead of starting: they wait for a person. Approve lets the
 * agent start the call as proposed; Reject (with a reason the agent reads) means it must not run.
 * Who decided and when are recorded on the session (the key's name, the time of the event).
 */
export function ApprovalsQueue({ sessionId, proposals, onDecided }: { sessionId: string; proposals: readonly Proposal[]; onDecided: () => void }) {
  const waiting = proposals.filter((p) => p.status === 'pending');
  const decided = proposals.filter((p) => p.status !== 'pending');
  if (proposals.length === 0) return null;
  return (
    <section className="panel approvals" aria-labelledby="approvals-title">
      <h2 id="approvals-title">Waiting for you {waiting.length > 0 && <span className="badge status-needs_attention">{waiting.length}</span>}</h2>
      {waiting.length === 0 ? (
        <p className="muted">No tool call is waiting for approval.</p>
      ) : (
        <ul className="proposal-list" aria-label="Tool calls waiting for approval">
          {waiting.map((p) => (
            <PendingProposal key={p.toolCallId} sessionId={sessionId} proposal={p} onDecided={onDecided} />
          ))}
        </ul>
      )}
      {decided.length > 0 && (
        <details>
          <summary>Decided ({decided.length})</summary>
          <ul className="proposal-list decided">
            {decided.map((p) => (
              <li key={p.toolCallId} data-call={p.toolCallId}>
                <strong>{p.tool}</strong> <span className="muted">{p.toolCallId}</span> — {p.status} by {p.decidedBy}
                {p.decidedAt ? ` at ${new Date(p.decidedAt).toLocaleString('en')}` : ''}
                {p.note ? `: ${p.note}` : ''}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function PendingProposal({ sessionId, proposal, onDecided }: { sessionId: string; proposal: Proposal; onDecided: () => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiProblem | null>(null);
  const decide = async (action: 'approve' | 'reject') => {
    setBusy(true);
    setError(null);
    try {
      await post(`${sessionPath(sessionId)}/proposals/${encodeURIComponent(proposal.toolCallId)}/${action}`, action === 'reject' ? { reason } : {});
      onDecided();
    } catch (e) {
      setError(e instanceof ApiProblem ? e : new ApiProblem(0, 'client_error', String(e)));
      setBusy(false);
    }
  };
  const label = `${proposal.tool} (${proposal.toolCallId})`;
  // An irreversible call cannot be undone by a rollback: approving it asks once more, naming what it will do.
  const [confirming, setConfirming] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);
  const irreversible = proposal.effect.kind === 'irreversible';
  return (
    <li className="proposal" data-call={proposal.toolCallId}>
      <p>
        <strong>{proposal.tool}</strong> <span className="muted">{proposal.toolCallId}</span>{' '}
        <span className={`badge effect-${proposal.effect.kind}`}>{proposal.effect.kind}</span>{' '}
        <span className="muted">
          proposed by {proposal.proposedBy} at step {proposal.proposedVersion}
        </span>
      </p>
      <pre className="json small">{JSON.stringify(proposal.input, null, 2)}</pre>
      <ErrorMessage error={error} />
      {confirming && (
        <div className="confirm-irreversible" role="group" aria-label={`Confirm approval of ${label}`}>
          <p>
            Approving lets the agent run <strong>{proposal.tool}</strong> with {describeInput(proposal.input)}. This effect is <strong>irreversible</strong>: no
            rollback will undo it.
          </p>
          <button ref={confirmButton} type="button" className="danger" disabled={busy} onClick={() => void decide('approve')}>
            Yes, run {proposal.tool} with {describeInput(proposal.input)}
          </button>{' '}
          <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      <div className="proposal-actions">
        <button
          type="button"
          className="primary"
          disabled={busy || confirming}
          aria-label={`Approve ${label}`}
          onClick={() => (irreversible ? setConfirming(true) : void decide('approve'))}
        >
          Approve{irreversible ? '…' : ''}
        </button>
        <label>
          Reason to reject
          <input value={reason} onChange={(e) => setReason(e.target.value)} aria-label={`Reason to reject ${label}`} />
        </label>
        <button
          type="button"
          disabled={busy || reason.trim().length === 0}
          title={reason.trim().length === 0 ? 'Say why, for the agent and the audit trail.' : undefined}
          aria-label={`Reject ${label}`}
          onClick={() => void decide('reject')}
        >
          Reject
        </button>
      </div>
    </li>
  );
}

/** A call's input as a reader says it: `amount 750, currency EUR` rather than JSON. */
function describeInput(input: unknown): string {
  if (input === null || input === undefined) return 'no input';
  if (typeof input !== 'object' || Array.isArray(input)) return JSON.stringify(input);
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length === 0) return 'no input';
  return entries.map(([key, value]) => `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`).join(', ');
}
