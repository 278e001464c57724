import { useEffect, useRef, useState } from 'react';
import { useReturnFocus } from '../hooks';
import { ApiProblem, post, sessionPath } from '../api/client';
import type { DryRun, HeadMoveResult, PlannedEffect, SessionStateView } from '../api/types';
import { ErrorMessage } from './common';

export interface HeadMove {
  /** The route: rollback covers jumps and rollbacks to a step or checkpoint; fork is a rollback that starts a branch with steps. */
  action: 'undo' | 'redo' | 'rollback' | 'fork';
  body: { toVersion?: number; toCheckpoint?: string; atVersion?: number; steps?: unknown[]; branchName?: string };
  title: string;
}

/** Fills `{{input.x}}` / `{{output.x}}` from the call, to show where a compensation will go. */
export function fillTemplate(template: string, call: { input: unknown; output: unknown } | undefined): string {
  if (!call) return template;
  return template.replace(/\{\{\s*(input|output)\.([\w.]+)\s*\}\}/g, (whole, source: 'input' | 'output', path: string) => {
    let value: unknown = call[source];
    for (const part of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
    return value === undefined ? whole : String(value);
  });
}

/**
 * Asks the API for the plan (dryRun) first and shows it: each effect to undo, newest first,
 * with its channel and target; irreversible ones need a tick; a refused move says why.
 */
export function HeadMoveDialog({
  sessionId,
  move,
  current,
  onClose,
  onDone,
}: {
  sessionId: string;
  move: HeadMove;
  current: SessionStateView | null;
  onClose: () => void;
  onDone: (result: HeadMoveResult) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useReturnFocus();
  const [plan, setPlan] = useState<DryRun['plan'] | null>(null);
  const [error, setError] = useState<ApiProblem | null>(null);
  const [acknowledged, setAcknowledged] = useState(false);
  const [busy, setBusy] = useState(false);
  const url = `${sessionPath(sessionId)}/${move.action}`;

  useEffect(() => {
    dialog.current?.showModal();
    post<DryRun>(url, { ...move.body, dryRun: true }).then(
      (answer) => setPlan(answer.plan),
      (e: unknown) => setError(e instanceof ApiProblem ? e : new ApiProblem(0, 'client_error', String(e))),
    );
  }, [url, move]);

  const blocked = (plan?.compensatedOnTheWay.length ?? 0) > 0;
  const needsAck = (plan?.irreversible.length ?? 0) > 0;
  const canConfirm = plan !== null && !blocked && (!needsAck || acknowledged) && !busy;
  const callOf = (effect: PlannedEffect) => current?.toolCalls.find((c) => c.toolCallId === effect.toolCallId);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      onDone(await post<HeadMoveResult>(url, { ...move.body, ...(needsAck ? { acknowledgeIrreversible: true } : {}) }));
    } catch (e) {
      setError(e instanceof ApiProblem ? e : new ApiProblem(0, 'client_error', String(e)));
      setBusy(false);
    }
  };

  return (
    <dialog ref={dialog} className="move-dialog" aria-labelledby="move-title" onClose={onClose}>
      <h2 id="move-title">{move.title}</h2>
      {!plan && !error && <p aria-live="polite">Working out what this would undo…</p>}
      <ErrorMessage error={error} />
      {plan && (
        <>
          <p>
            The head moves from step {plan.fromVersion} to step {plan.toVersion} ({plan.kind}). History is kept: the steps after it stay readable on their
            branch.
          </p>
          {blocked && (
            <div className="error" role="alert">
              <p>This move is refused: effects on the way to step {plan.toVersion} were already compensated, and re-running them is not supported.</p>
              <ul>
                {plan.compensatedOnTheWay.map((e) => (
                  <li key={e.toolCallId}>
                    {e.tool} ({e.toolCallId}, step {e.startedVersion})
                  </li>
                ))}
              </ul>
            </div>
          )}
          <h3>Compensation plan</h3>
          {plan.effects.length === 0 ? (
            <p className="muted">No external effect lies on the abandoned path: nothing to compensate.</p>
          ) : (
            <ol className="plan" aria-label="Effects to undo, newest first">
              {plan.effects.map((effect) => {
                const spec = effect.effect.compensation;
                return (
                  <li key={effect.toolCallId} className={`plan-item action-${effect.action}`} data-call={effect.toolCallId}>
                    <strong>{effect.action === 'compensate' ? 'Undo' : 'Cannot undo'}</strong> {effect.tool}{' '}
                    <span className="muted">
                      ({effect.toolCallId}, step {effect.startedVersion})
                    </span>{' '}
                    <span className={`badge effect-${effect.effect.kind}`}>{effect.effect.kind}</span>
                    {spec && (
                      <div className="target">
                        via <strong>{spec.channel}</strong> → <code>{fillTemplate(spec.target, callOf(effect))}</code>
                      </div>
                    )}
                    {effect.reason && <div className="muted">{effect.reason}</div>}
                  </li>
                );
              })}
            </ol>
          )}
          {needsAck && (
            <label className="ack">
              <input type="checkbox" checked={acknowledged} onChange={(e) => setAcknowledged(e.target.checked)} />I understand that{' '}
              {plan.irreversible.map((e) => e.tool).join(', ')} cannot be undone: {plan.irreversible.length === 1 ? 'it stays' : 'they stay'} done in the world
              and will be recorded as kept (irreversible).
            </label>
          )}
        </>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button type="button" className="primary" disabled={!canConfirm} onClick={confirm}>
          {busy ? 'Starting…' : plan && plan.toCompensate.length > 0 ? `Confirm and undo ${plan.toCompensate.length} effect(s)` : 'Confirm'}
        </button>
      </div>
    </dialog>
  );
}
