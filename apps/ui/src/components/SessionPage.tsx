import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { get, query, sessionPath } from '../api/client';
import type { HeadMoveResult, Page, SessionStateView, Timeline, TimelineNode, ToolCallEntry } from '../api/types';
import { numberParam, setViewParams, useLoad, useViewParams } from '../hooks';
import { useLive } from '../live';
import { buildTimelineModel, describeStep, duration, windowVersions } from '../timeline-model';
import { ErrorMessage, LiveBadge, ServerBanner, StatusBadge } from './common';
import { BranchCompare } from './BranchCompare';
import { DiffPanel } from './DiffPanel';
import { outcomeKey } from './outcome-key';
import { ApprovalsQueue } from './ApprovalsQueue';
import { ForkComposer } from './ForkComposer';
import { HeadMoveDialog, type HeadMove } from './HeadMoveDialog';
import { SagaPanel } from './SagaPanel';
import { StatePanel } from './StatePanel';
import { TimeAxis } from './TimeAxis';
import { PAGE_STEPS, TimelineGraph } from './TimelineGraph';

/** Versions detailed per timeline request: the rest of the DAG comes as its compact parents array. */
const TIMELINE_PAGE = 200;
/** Versions detailed per request when a search reads them all. */
const DETAIL_PAGE = 5000;

/** One session: the timeline (graph, slider, branches), the state at the selected step, diff, head moves and the saga. */
export function SessionPage({ sessionId }: { sessionId: string }) {
  const [refresh, setRefresh] = useState(0);
  const reload = useCallback(() => setRefresh((r) => r + 1), []);
  // Another tab, the agent or the saga committed: timeline, head, state and rollback are read again.
  const live = useLive(`${sessionPath(sessionId)}/stream`, reload);
  // The newest page first (the head is usually there); other pages as the selection travels.
  const timeline = useLoad(() => get<Timeline>(`${sessionPath(sessionId)}/timeline${query({ limit: TIMELINE_PAGE })}`), [sessionId, refresh]);
  const [details, setDetails] = useState<ReadonlyMap<number, TimelineNode>>(new Map());
  const current = useLoad(() => get<SessionStateView>(sessionPath(sessionId)), [sessionId, refresh]);
  // What became of each tool call's effect, on any branch (the ledger): a past step shows it as it stands now.
  const ledger = useLoad(() => wholeLedger(sessionId), [sessionId, refresh]);
  const outcomes = useMemo(
    () =>
      new Map(
        (ledger.data?.items ?? []).flatMap((c) => (c.compensation ? [[outcomeKey(c.toolCallId, c.startedVersion), c.compensation.status] as const] : [])),
      ),
    [ledger.data],
  );
  // Where each started call's effect stands now, by the version it started at: the graph marks compensated ones.
  const effects = useMemo(
    () => new Map((ledger.data?.items ?? []).flatMap((c) => (c.compensation ? [[c.startedVersion, c.compensation.status] as const] : []))),
    [ledger.data],
  );
  const model = useMemo(() => (timeline.data ? buildTimelineModel(timeline.data, details) : null), [timeline.data, details]);
  // The step, branch, tab, diff pair and rollback shown live in the URL: a link opens this very view, back and forward move through views.
  const view = useViewParams();
  const picked = numberParam(view, 'step');
  const pickedTip = numberParam(view, 'branch');
  const tab: 'state' | 'diff' = view.get('tab') === 'diff' ? 'diff' : 'state';
  // A rollback picked among the session's (in the URL); else the one just started here, the active one or the latest.
  const pickedRollback = view.get('rollback');
  const setPicked = (step: number | null, replace = false) => setViewParams({ step, from: null, to: null }, replace);
  const setPickedTip = (branch: number | null) => setViewParams({ branch });
  const setTab = (chosen: 'state' | 'diff') => setViewParams({ tab: chosen === 'state' ? null : chosen });
  const pickRollback = (rollbackId: string | null) => setViewParams({ rollback: rollbackId });
  const [move, setMove] = useState<HeadMove | null>(null);
  const [forkAt, setForkAt] = useState<number | null>(null);
  const [watching, setWatching] = useState<string | null>(null);
  const [checkpoint, setCheckpoint] = useState('');
  const asking = useRef<string | null>(null);

  // A search over a long session: every step's details, a few large pages at a time.
  const readAllDetails = useCallback(async () => {
    const version = timeline.data?.version ?? 0;
    for (let from = 1; from <= version; from += DETAIL_PAGE) {
      const page = await get<Timeline>(`${sessionPath(sessionId)}/timeline${query({ from, limit: DETAIL_PAGE })}`);
      setDetails((known) => new Map([...known, ...page.nodes.map((n) => [n.version, n] as const)]));
    }
  }, [sessionId, timeline.data?.version]);

  // Back from an outage: what failed to load is read again without a click.
  const failed = timeline.error !== null || current.error !== null;
  useEffect(() => {
    if (live === 'live' && failed) reload();
  }, [live]);

  useEffect(() => {
    if (timeline.data) setDetails(new Map(timeline.data.nodes.map((n) => [n.version, n])));
  }, [timeline.data]);

  const selected = model && picked !== null && model.isNode(picked) ? picked : (timeline.data?.head ?? 0);
  // Detail the nodes about to be drawn that no page brought yet.
  useEffect(() => {
    if (!model) return;
    const missing = windowVersions(model, selected).filter((v) => !details.has(v));
    if (missing.length === 0) return;
    const from = missing[0]!;
    const limit = Math.min(missing[missing.length - 1]! - from + 1, 5000);
    const key = `${from}:${limit}`;
    if (asking.current === key) return;
    asking.current = key;
    get<Timeline>(`${sessionPath(sessionId)}/timeline${query({ from, limit })}`)
      .then(
        (page) => setDetails((known) => new Map([...known, ...page.nodes.map((n) => [n.version, n] as const)])),
        () => undefined, // the graph keeps its plain nodes; the next selection asks again
      )
      .finally(() => {
        if (asking.current === key) asking.current = null;
      });
  }, [model, selected, details, sessionId]);

  if (!model) {
    return (
      <div>
        <ServerBanner status={timeline.error?.status === 0 ? 'reconnecting' : live} onRetry={reload} />
        {timeline.error?.status !== 0 && <ErrorMessage error={timeline.error} />}
        {!timeline.error && <p aria-live="polite">Loading the timeline…</p>}
      </div>
    );
  }

  const t = model.timeline;
  const chosenBranch = t.branches.find((b) => b.tip === pickedTip);
  const branch = model.branchOf(selected, chosenBranch) ?? t.branches[0];
  const branchPath = branch ? model.pathTo(branch.tip) : [];
  const position = branchPath.indexOf(selected);
  const node = model.detail(selected);
  const tookSince = duration(model.detail(model.parentOf(selected) ?? 0)?.occurredAt, node?.occurredAt);
  const latestRollback = [...t.rollbacks].sort((a, b) => b.requestedVersion - a.requestedVersion)[0];
  const shownRollback = pickedRollback ?? watching ?? current.data?.activeRollbackId ?? latestRollback?.rollbackId ?? null;
  const checkpoints = t.checkpoints;
  // The session's lock: while a rollback runs or needs attention, head moves are refused (409): say so before anyone clicks.
  const locked =
    t.status === 'rolling_back'
      ? 'A rollback is in progress: wait for it to finish.'
      : t.status === 'needs_attention'
        ? 'The last rollback needs attention: retry or resolve its failed compensations first.'
        : null;

  // The slider replaces the history entry: dragging across 50 steps does not make 50 of them.
  const select = (version: number) => setPicked(version, true);
  const done = (result: HeadMoveResult) => {
    setMove(null);
    if (result.rollbackId) {
      setWatching(result.rollbackId);
      pickRollback(null);
    }
    setPicked(null);
    setPickedTip(null);
    reload();
  };

  return (
    <div className="session">
      <ServerBanner status={live} onRetry={reload} />
      <div className="session-head">
        <div>
          <h1>{current.data?.title ?? sessionId}</h1>
          <p className="muted">
            {sessionId} · <StatusBadge status={t.status} /> · head at step {t.head} · {t.version} events · {t.branches.length} branch
            {t.branches.length === 1 ? '' : 'es'} · <a href={`#/audit/${encodeURIComponent(sessionId)}`}>audit</a> · <LiveBadge status={live} />
          </p>
        </div>
        <div className="actions" role="toolbar" aria-label="Time travel">
          <button
            type="button"
            disabled={locked !== null}
            title={locked ?? undefined}
            onClick={() => setMove({ action: 'undo', body: {}, title: 'Undo the last step' })}
          >
            ↶ Undo
          </button>
          <button
            type="button"
            disabled={locked !== null || (current.data ? !current.data.canRedo : false)}
            title={
              (locked ?? (current.data && !current.data.canRedo))
                ? (locked ?? current.data?.redoBlockedBy ?? 'Nothing to redo: no undo or rollback since the last step.')
                : undefined
            }
            onClick={() => setMove({ action: 'redo', body: {}, title: 'Redo' })}
          >
            ↷ Redo
          </button>
          <button
            type="button"
            disabled={locked !== null || selected === t.head}
            title={locked ?? (selected === t.head ? 'This step is already the head.' : undefined)}
            onClick={() => setMove({ action: 'rollback', body: { toVersion: selected }, title: `Make step ${selected} current` })}
          >
            Go to step {selected}
          </button>
          <button
            type="button"
            disabled={locked !== null || selected === t.head}
            title={locked ?? (selected === t.head ? 'This step is the head: record new steps as usual.' : undefined)}
            onClick={() => setForkAt(selected)}
          >
            Fork from step {selected}…
          </button>
          {checkpoints.length > 0 && (
            <span className="checkpoint-move">
              <label>
                Checkpoint
                <select aria-label="Checkpoint" value={checkpoint} onChange={(e) => setCheckpoint(e.target.value)}>
                  <option value="">choose…</option>
                  {checkpoints.map((c) => (
                    <option key={c.label} value={c.label}>
                      {c.label} (step {c.version})
                    </option>
                  ))}
                </select>
              </label>
              <button
                type="button"
                disabled={locked !== null || !checkpoint}
                title={locked ?? undefined}
                onClick={() => setMove({ action: 'rollback', body: { toCheckpoint: checkpoint }, title: `Roll back to checkpoint “${checkpoint}”` })}
              >
                Roll back
              </button>
            </span>
          )}
        </div>
      </div>
      {locked && (
        <p role="note" aria-label="Why time travel is paused" className="locked-note">
          Undo, redo and going back are paused. {locked}
        </p>
      )}
      {current.data?.redoBlockedBy && (
        <p role="note" aria-label="Why redo is refused" className="muted">
          Redo is refused: {current.data.redoBlockedBy}
        </p>
      )}
      <ErrorMessage error={timeline.error ?? current.error} />
      {current.data && <ApprovalsQueue sessionId={sessionId} proposals={current.data.proposals ?? []} onDecided={reload} />}

      <section className="panel timeline" aria-labelledby="timeline-title">
        <div className="panel-head">
          <h2 id="timeline-title">Timeline</h2>
          <label>
            Branch
            <select
              aria-label="Branch"
              value={branch?.tip ?? ''}
              onChange={(e) => {
                const tip = Number(e.target.value);
                setPickedTip(tip);
                setPicked(tip);
              }}
            >
              {t.branches.map((b) => (
                <option key={b.tip} value={b.tip}>
                  {b.name ? `${b.name} · ` : ''}ends at step {b.tip}
                  {b.forkedFrom ? `, forked at ${b.forkedFrom}` : ''} · {b.length} steps{b.containsHead ? ' · head' : ''}
                  {b.containsHead ? '' : ' · abandoned'}
                </option>
              ))}
            </select>
          </label>
        </div>
        <TimelineGraph
          model={model}
          selected={selected}
          branchPath={branchPath}
          effects={effects}
          onReadAll={readAllDetails}
          onSelect={(v) => {
            setPicked(v);
            const b = model.branchOf(v, chosenBranch);
            if (b) setPickedTip(b.tip);
          }}
        />
        <div className="slider">
          <label htmlFor="step-slider">Step</label>
          <input
            id="step-slider"
            type="range"
            min={0}
            max={Math.max(branchPath.length - 1, 0)}
            value={Math.max(position, 0)}
            aria-valuetext={describeStep(selected, node)}
            aria-keyshortcuts="h PageUp PageDown"
            onKeyDown={(e) => {
              // The same keys as the graph: h goes to the head, Page Up/Down move ten steps (the slider handles arrows, Home and End itself).
              if (e.key === 'h' || e.key === 'H') {
                e.preventDefault();
                setPicked(null);
                setPickedTip(null);
              } else if (e.key === 'PageUp' || e.key === 'PageDown') {
                e.preventDefault();
                const to = branchPath[Math.min(branchPath.length - 1, Math.max(0, position + (e.key === 'PageUp' ? PAGE_STEPS : -PAGE_STEPS)))];
                if (to !== undefined) select(to);
              }
            }}
            onChange={(e) => {
              const v = branchPath[Number(e.target.value)];
              if (v !== undefined) select(v);
            }}
          />
          <output htmlFor="step-slider">
            {describeStep(selected, node)}
            {node?.occurredAt && <span className="muted"> · {new Date(node.occurredAt).toLocaleString()}</span>}
            {tookSince && (
              <span className="muted">
                {' '}
                · {tookSince} after step {model.parentOf(selected)}
              </span>
            )}
            {node?.actor && (
              <span className="muted step-writer">
                {' '}
                · written by {node.actor}
                {node.node ? ` (LangGraph node ${node.node})` : ''}
              </span>
            )}
          </output>
        </div>
        <TimeAxis
          points={branchPath.flatMap((version) => {
            const at = Date.parse(model.detail(version)?.occurredAt ?? '');
            return Number.isFinite(at) ? [{ version, at }] : [];
          })}
          selected={selected}
          onSelect={(version) => setPicked(version)}
        />
      </section>

      <div className="tabs" role="tablist" aria-label="Selected step">
        <button type="button" role="tab" aria-selected={tab === 'state'} onClick={() => setTab('state')}>
          State
        </button>
        <button type="button" role="tab" aria-selected={tab === 'diff'} onClick={() => setTab('diff')}>
          Diff
        </button>
      </div>
      <div className="split">
        <div>
          {tab === 'state' && (
            <StatePanel
              sessionId={sessionId}
              version={selected}
              parentVersion={model.parentOf(selected)}
              revision={refresh}
              current={current.data}
              outcomes={outcomes}
            />
          )}
          {tab === 'diff' && <DiffPanel key={selected} sessionId={sessionId} initialFrom={model.parentOf(selected) ?? selected} initialTo={selected} />}
          {tab === 'diff' && <BranchCompare sessionId={sessionId} branches={t.branches} />}
        </div>
        <div>
          {t.rollbacks.length > 1 && <RollbackPicker rollbacks={t.rollbacks} shown={shownRollback} onPick={pickRollback} />}
          {shownRollback && <SagaPanel key={shownRollback} rollbackId={shownRollback} revision={refresh} onChanged={reload} />}
        </div>
      </div>
      {forkAt !== null && (
        <ForkComposer
          atVersion={forkAt}
          memoryKeys={Object.keys(current.data?.memory ?? {})}
          onClose={() => setForkAt(null)}
          onCompose={(fork) => {
            setForkAt(null);
            setMove(fork);
          }}
        />
      )}
      {move && <HeadMoveDialog sessionId={sessionId} move={move} current={current.data} onClose={() => setMove(null)} onDone={done} />}
    </div>
  );
}

/** Ledger pages read for one session: 500 calls a page, up to 20 000 calls. */
const LEDGER_PAGE = 500;
const LEDGER_PAGES = 40;

/** Every tool call of the session from the ledger, page after page (a long session has more than one page). */
async function wholeLedger(sessionId: string): Promise<Page<ToolCallEntry>> {
  const items: ToolCallEntry[] = [];
  let cursor: string | null = null;
  for (let read = 0; read < LEDGER_PAGES; read++) {
    const page: Page<ToolCallEntry> = await get<Page<ToolCallEntry>>(`/v1/tool-calls${query({ sessionId, cursor, limit: LEDGER_PAGE })}`);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return { items, nextCursor: cursor };
}

/** Every rollback of the session, newest first: any of them can be opened in the saga panel. */
function RollbackPicker({ rollbacks, shown, onPick }: { rollbacks: Timeline['rollbacks']; shown: string | null; onPick: (rollbackId: string) => void }) {
  const newestFirst = [...rollbacks].sort((a, b) => b.requestedVersion - a.requestedVersion);
  return (
    <label className="rollback-picker">
      Rollback shown
      <select aria-label="Rollback shown" value={shown ?? ''} onChange={(e) => onPick(e.target.value)}>
        {newestFirst.map((r) => (
          <option key={r.rollbackId} value={r.rollbackId}>
            {r.kind} from step {r.fromVersion} to {r.toVersion} · {r.status.replace(/_/g, ' ')} · asked at step {r.requestedVersion}
          </option>
        ))}
      </select>
    </label>
  );
}
