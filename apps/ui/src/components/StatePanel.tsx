import { useMemo, useState } from 'react';
import { get, query, sessionPath } from '../api/client';
import { changedItem } from '../api/change-paths';
import type { Diff, SessionStateView, WindowedStateView } from '../api/types';
import { useDebounced, useLoad } from '../hooks';
import { ChangeItems } from './ChangeList';
import { ErrorMessage, Json, StatusBadge } from './common';
import { outcomeKey } from './outcome-key';
import { ThoughtList } from './ThoughtView';

function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The turns asked for at first; "show more" doubles it, "show all" drops the window. */
export const FIRST_WINDOW = 50;

/**
 * The state at one step: what changed since its parent (highlighted and said in words), and everything else.
 * It is read as a window (`turns=last:N`): a long session's answer stays small at each slider stop,
 * and the panel says how many earlier turns and tool calls it leaves out.
 */
export function StatePanel({
  sessionId,
  version: wanted,
  parentVersion: wantedParent,
  revision = 0,
  current,
  outcomes,
}: {
  sessionId: string;
  version: number;
  parentVersion: number | null;
  /** Bumped on each live change: the step's state is read again (its tool calls' outcome may have moved on). */
  revision?: number;
  /** The session now: what became of each tool call's effect since this step (compensated, failed…). */
  current?: SessionStateView | null;
  /** Compensation status now, by outcomeKey(toolCallId, startedVersion): calls on other branches too. */
  outcomes?: ReadonlyMap<string, string>;
}) {
  const [raw, setRaw] = useState(false);
  // The window chosen for this session (null: everything); it stays as the slider moves.
  const [chosen, setChosen] = useState<{ sessionId: string; lastTurns: number | null }>({ sessionId, lastTurns: FIRST_WINDOW });
  const lastTurns = chosen.sessionId === sessionId ? chosen.lastTurns : FIRST_WINDOW;
  // Both settle together, so a diff is never asked between a step and another step's parent.
  const [version, parentVersion] = useDebounced(`${wanted}:${wantedParent ?? 0}`, 120)
    .split(':')
    .map(Number) as [number, number];
  const state = useLoad(
    () => get<WindowedStateView>(`${sessionPath(sessionId)}/state${query({ at: version, turns: lastTurns === null ? null : `last:${lastTurns}` })}`),
    [sessionId, version, lastTurns, revision],
  );
  // The diff is computed by the server on the whole states: its paths index the whole conversation.
  const diff = useLoad(
    () => (parentVersion ? get<Diff>(`${sessionPath(sessionId)}/diff${query({ from: parentVersion, to: version })}`) : Promise.resolve(null)),
    [sessionId, version, parentVersion, revision],
  );
  // A past step's effects are said as they stand now, not as they stood at the step.
  const outcomeNow = useMemo(() => {
    const now = new Map<string, string>(outcomes ?? []);
    for (const c of current?.toolCalls ?? []) if (c.compensation) now.set(outcomeKey(c.toolCallId, c.startedVersion), c.compensation);
    return now;
  }, [current, outcomes]);
  // An answer for an earlier selection is never shown as this step's: it stays, dimmed, until the new one comes.
  const fresh = state.data?.head === wanted;
  // Under an error, never another step's state: it would read as this step's.
  const s = state.error && !fresh ? null : state.data;
  const changes = diff.data?.to === wanted ? diff.data.changes : null;
  const items = diff.data?.to === wanted ? diff.data.items : null;
  const changed = useMemo(() => new Set((changes ?? []).map((c) => changedItem(c.path))), [changes]);
  const mark = (item: string) => (changed.has(item) ? 'changed' : undefined);
  const turns = s?.conversation.turns ?? [];
  const toolCalls = s?.toolCalls ?? [];
  // The window's first turn's index in the whole conversation (0 when nothing is left out).
  const totalTurns = s?.window?.totalTurns ?? turns.length;
  const firstShown = totalTurns - turns.length;
  const hiddenCalls = (s?.window?.totalToolCalls ?? toolCalls.length) - toolCalls.length;
  // A change to a turn or tool call left out of the window is said in words but has nothing to highlight here.
  const changedOutside = useMemo(() => {
    if (!s?.window) return [];
    const shownCalls = new Set(toolCalls.map((c) => c.toolCallId));
    const outside = new Map<string, string>();
    for (const change of changes ?? []) {
      const turn = /^turns\[(\d+)\]/.exec(change.path);
      const call = /^toolCalls\.([^.[]+)/.exec(change.path);
      // A tool call gone from this step (a rollback) is absent from the whole state too: nothing is hidden.
      const gone = call && change.op === 'removed' && change.path === call[0];
      if (turn && Number(turn[1]) < firstShown) outside.set(changedItem(change.path), `turn ${Number(turn[1]) + 1}`);
      else if (call && !gone && !shownCalls.has(call[1]!)) outside.set(changedItem(change.path), `tool call ${call[1]}`);
    }
    return [...outside.values()];
  }, [s, changes, toolCalls, firstShown]);
  const choose = (n: number | null) => setChosen({ sessionId, lastTurns: n });
  const more = lastTurns === null ? null : Math.min(lastTurns * 2, totalTurns);

  return (
    <section className={fresh || state.error ? 'panel state' : 'panel state stale'} aria-labelledby="state-title" aria-busy={!fresh && !state.error}>
      <div className="panel-head">
        <h2 id="state-title">{fresh ? `State at step ${wanted}` : state.error ? `Step ${wanted} could not be read` : `Loading step ${wanted}…`}</h2>
        <button type="button" className="link" aria-pressed={raw} onClick={() => setRaw((r) => !r)}>
          {raw ? 'Show as a page' : 'Raw JSON'}
        </button>
      </div>
      <ErrorMessage error={state.error ?? diff.error} />
      {(state.error ?? diff.error) && (
        <button
          type="button"
          onClick={() => {
            state.reload();
            diff.reload();
          }}
        >
          Try again
        </button>
      )}
      {s && raw && <Json value={s} />}
      {s && !raw && (
        <>
          <div className="changes" aria-label="What changed in this step">
            <h3>What changed</h3>
            {wantedParent ? (
              items && <ChangeItems items={items} empty="Nothing the agent knows changed in this step." />
            ) : (
              <p className="muted">The session started here.</p>
            )}
          </div>
          {changedOutside.length > 0 && (
            <p className="muted window-note" role="note">
              Changed here but older than the turns shown below: {changedOutside.join(', ')}.{' '}
              <button type="button" className="link" disabled={state.loading} onClick={() => choose(null)}>
                Show everything
              </button>
            </p>
          )}
          <h3>Conversation</h3>
          {turns.length === 0 && <p className="muted">No message yet.</p>}
          {firstShown > 0 && (
            <p className="muted window-note" aria-label="Turns shown">
              Showing the last {turns.length.toLocaleString('en')} of {totalTurns.toLocaleString('en')} turns.{' '}
              {more !== null && more < totalTurns && (
                <>
                  <button type="button" className="link" disabled={state.loading} onClick={() => choose(more)}>
                    Show the last {more.toLocaleString('en')}
                  </button>{' '}
                  ·{' '}
                </>
              )}
              <button type="button" className="link" disabled={state.loading} onClick={() => choose(null)}>
                Show all {totalTurns.toLocaleString('en')}
              </button>
            </p>
          )}
          <ol className="conversation" start={firstShown + 1}>
            {turns.map((turn, offset) => (
              <li key={turn.turnId} className={mark(`turns:${firstShown + offset}`)}>
                {turn.messages.map((m) => (
                  <p key={m.messageId} className={`message ${m.role}`}>
                    <strong>{m.role}</strong> {m.content}
                    {turn.status === 'interrupted' && m.partial && <em className="muted"> (interrupted)</em>}
                  </p>
                ))}
              </li>
            ))}
          </ol>
          <ThoughtList thoughts={s.thoughts ?? []} step={wanted} />
          <ApprovalRecords proposals={s.proposals ?? []} step={wanted} />
          {lastTurns !== FIRST_WINDOW && totalTurns > FIRST_WINDOW && (
            <button type="button" className="link" disabled={state.loading} onClick={() => choose(FIRST_WINDOW)}>
              Show only the last {FIRST_WINDOW} turns
            </button>
          )}
          <div className="columns">
            <div>
              <h3>Memory</h3>
              <KeyValues values={s.memory} section="memory" mark={mark} empty="Nothing remembered." />
            </div>
            <div>
              <h3>Context variables</h3>
              <KeyValues values={s.contextVars} section="contextVars" mark={mark} empty="No variable set." />
            </div>
          </div>
          <h3>Task stack</h3>
          {s.tasks.length === 0 ? (
            <p className="muted">No task.</p>
          ) : (
            <ol className="tasks">
              {s.tasks.map((t, i) => (
                <li key={t.taskId} className={mark(`tasks:${i}`)}>
                  {t.title}
                  {i === s.tasks.length - 1 && <span className="muted"> (top)</span>}
                </li>
              ))}
            </ol>
          )}
          <h3>Tool calls</h3>
          {hiddenCalls > 0 && (
            <p className="muted window-note">
              Only the tool calls started during the turns shown are listed: {hiddenCalls.toLocaleString('en')} earlier {hiddenCalls === 1 ? 'is' : 'are'} left
              out.
            </p>
          )}
          {s.toolCalls.length === 0 ? (
            <p className="muted">{hiddenCalls > 0 ? 'No tool call started during the turns shown.' : 'No tool call.'}</p>
          ) : (
            // Focusable and named: a table wider than a phone scrolls, and a keyboard must reach it (axe scrollable-region-focusable).
            <div className="table-wrap" role="region" aria-label="Tool calls at this step" tabIndex={0}>
              <table className="tool-calls">
                <thead>
                  <tr>
                    <th scope="col">Call</th>
                    <th scope="col">Effect</th>
                    <th scope="col">Status</th>
                    <th scope="col">Compensation</th>
                  </tr>
                </thead>
                <tbody>
                  {s.toolCalls.map((c) => (
                    <tr key={c.toolCallId} className={mark(`toolCalls:${c.toolCallId}`)}>
                      <td>
                        <strong>{c.tool}</strong> <span className="muted">{c.toolCallId}</span>
                      </td>
                      <td>
                        <span className={`badge effect-${c.effect.kind}`}>{c.effect.kind}</span>
                      </td>
                      <td>{c.status}</td>
                      <td>
                        {(outcomeNow.get(outcomeKey(c.toolCallId, c.startedVersion)) ?? c.compensation) ? (
                          <StatusBadge status={(outcomeNow.get(outcomeKey(c.toolCallId, c.startedVersion)) ?? c.compensation)!} />
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <p className="muted">
            {current ? (
              <>
                Session now <StatusBadge status={current.status} /> · head at step {current.head}
              </>
            ) : (
              <>Step {s.head}</>
            )}{' '}
            · this step is {s.version === s.head ? 'event' : 'at event'} {s.head} of {current?.version ?? s.version} recorded
          </p>
        </>
      )}
    </section>
  );
}

function KeyValues({
  values,
  section,
  mark,
  empty,
}: {
  values: Record<string, unknown>;
  section: string;
  mark: (item: string) => string | undefined;
  empty: string;
}) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <p className="muted">{empty}</p>;
  return (
    <dl className="kv">
      {entries.map(([key, value]) => (
        <div key={key} className={mark(`${section}:${key}`)} data-key={key}>
          <dt>{key}</dt>
          <dd>{display(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

type ProposalView = SessionStateView['proposals'][number];

/**
 * The approvals on the path to this step, whatever branch it is on: who proposed each call and
 * who approved or rejected it, when. The queue at the top is the head's (to decide); these are the
 * records, still there when the head has moved to a branch without them.
 */
function ApprovalRecords({ proposals, step }: { proposals: readonly ProposalView[]; step: number }) {
  if (proposals.length === 0) return null;
  return (
    <section className="approval-records" aria-labelledby="approval-records-title">
      <h3 id="approval-records-title">Approvals on this path</h3>
      <ul>
        {proposals.map((p) => (
          <li key={p.toolCallId} data-call={p.toolCallId} className={p.proposedVersion === step || p.decidedVersion === step ? 'changed' : undefined}>
            <strong>{p.tool}</strong> <span className="muted">{p.toolCallId}</span> <span className={`badge effect-${p.effect.kind}`}>{p.effect.kind}</span> ·
            proposed by {p.proposedBy} at step {p.proposedVersion} ·{' '}
            {p.status === 'pending' ? (
              <>waiting for a person</>
            ) : (
              <>
                {p.status} by {p.decidedBy} at step {p.decidedVersion}
                {p.decidedAt ? ` (${new Date(p.decidedAt).toLocaleString('en')})` : ''}
                {p.note ? `: ${p.note}` : ''}
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
