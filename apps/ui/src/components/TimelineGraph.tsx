import dagre from '@dagrejs/dagre';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { Timeline } from '../api/types';
import { outcomeWord } from './outcome-key';
import { describeStep, duration, shortType, STEP_KINDS, stepMatches, windowVersions, type TimelineModel } from '../timeline-model';

const NODE = 34;
/** Page Up/Down move this many steps, on the graph and on the slider. */
export const PAGE_STEPS = 10;

interface Props {
  model: TimelineModel;
  selected: number;
  /** The versions of the branch being followed, root first. */
  branchPath: number[];
  onSelect: (version: number) => void;
  /** What became of the effect of the call started at each version, now (compensated, failed…). */
  effects?: ReadonlyMap<number, string>;
  /** Reads the details of every step (a long session's are read a page at a time), so a search covers them all. */
  onReadAll?: () => Promise<void>;
}

type Layout = {
  width: number;
  height: number;
  nodes: { version: number; x: number; y: number }[];
  edges: { from: number; to: number; points: { x: number; y: number }[] }[];
  cutParents: number[];
};

/** dagre lays out the window of the DAG left to right; versions outside the window are not drawn. */
function layoutWindow(model: TimelineModel, selected: number): Layout {
  const shown = new Set(windowVersions(model, selected));
  const graph = new dagre.graphlib.Graph();
  // ranksep leaves room between steps for the time from one to the next.
  graph.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 40, marginx: 60, marginy: 30 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const v of shown) graph.setNode(String(v), { width: NODE, height: NODE });
  const cutParents: number[] = [];
  for (const v of shown) {
    const parent = model.parentOf(v);
    if (parent && shown.has(parent)) graph.setEdge(String(parent), String(v));
    else if (parent) cutParents.push(v);
  }
  dagre.layout(graph);
  const info = graph.graph();
  return {
    width: (info.width ?? 0) + 10,
    height: (info.height ?? 0) + 20,
    nodes: graph.nodes().map((id) => {
      const n = graph.node(id);
      return { version: Number(id), x: n.x, y: n.y };
    }),
    edges: graph.edges().map((e) => ({ from: Number(e.v), to: Number(e.w), points: graph.edge(e).points ?? [] })),
    cutParents,
  };
}

function labels(timeline: Timeline) {
  const checkpoints = new Map<number, string[]>();
  for (const c of timeline.checkpoints) checkpoints.set(c.version, [...(checkpoints.get(c.version) ?? []), c.label]);
  const rollbacks = new Map<number, string[]>();
  for (const r of timeline.rollbacks) rollbacks.set(r.toVersion, [...(rollbacks.get(r.toVersion) ?? []), `${r.kind} from ${r.fromVersion}`]);
  return { checkpoints, rollbacks };
}

export function TimelineGraph({ model, selected, branchPath, onSelect, effects, onReadAll }: Props) {
  const layout = useMemo(() => layoutWindow(model, selected), [model, selected]);
  const { checkpoints, rollbacks } = useMemo(() => labels(model.timeline), [model]);
  const onPath = useMemo(() => new Set(branchPath), [branchPath]);
  const scroller = useRef<HTMLDivElement>(null);
  const head = model.timeline.head;
  // Steps the head's history does not hold: undone, or on a branch left behind by a rollback.
  const live = useMemo(() => new Set(model.pathTo(head)), [model, head]);
  const [text, setText] = useState('');
  const [kind, setKind] = useState('');
  const filtering = text.trim() !== '' || kind !== '';
  // Searched among the steps read so far (a long session's pages come as the graph travels).
  const matches = useMemo(() => (filtering ? model.versions.filter((v) => stepMatches(model.detail(v), kind, text)) : []), [model, kind, text, filtering]);
  const matching = useMemo(() => new Set(matches), [matches]);
  const unread = useMemo(() => (filtering ? model.versions.filter((v) => !model.detail(v)).length : 0), [model, filtering]);
  const [reading, setReading] = useState(false);
  const matchIndex = matches.indexOf(selected);
  const goToMatch = (delta: number) => {
    if (matches.length === 0) return;
    const after = delta > 0 ? matches.find((v) => v > selected) : [...matches].reverse().find((v) => v < selected);
    onSelect(after ?? matches[delta > 0 ? 0 : matches.length - 1]!);
  };

  useEffect(() => {
    const node = layout.nodes.find((n) => n.version === selected);
    const box = scroller.current;
    if (node && box) box.scrollTo({ left: Math.max(0, node.x - box.clientWidth / 2), top: Math.max(0, node.y - box.clientHeight / 2) });
  }, [layout, selected]);

  const step = (delta: number) => {
    const i = branchPath.indexOf(selected);
    const next = branchPath[Math.min(branchPath.length - 1, Math.max(0, i + delta))];
    if (next !== undefined) onSelect(next);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const moves: Record<string, () => void> = {
      // The slider's keys, so graph and slider answer alike: arrows one step, Page Up/Down ten.
      ArrowLeft: () => step(-1),
      ArrowDown: () => step(-1),
      ArrowRight: () => step(1),
      ArrowUp: () => step(1),
      PageDown: () => step(-PAGE_STEPS),
      PageUp: () => step(PAGE_STEPS),
      Home: () => branchPath[0] !== undefined && onSelect(branchPath[0]),
      End: () => branchPath.length > 0 && onSelect(branchPath[branchPath.length - 1]!),
      h: () => onSelect(head),
      H: () => onSelect(head),
    };
    const move = moves[e.key];
    if (move) {
      e.preventDefault();
      move();
    }
  };

  return (
    <>
      <div className="filters timeline-find" role="search" aria-label="Timeline search">
        <label>
          Find steps
          <input type="search" value={text} placeholder="text, e.g. Lisbon" onChange={(e) => setText(e.target.value)} />
        </label>
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.target.value)}>
            <option value="">any</option>
            {STEP_KINDS.map((k) => (
              <option key={k.id} value={k.id}>
                {k.label}
              </option>
            ))}
          </select>
        </label>
        {filtering && (
          <span className="find-result">
            <span role="status" aria-live="polite">
              {matches.length === 0
                ? 'No step matches.'
                : `${matchIndex >= 0 ? `Match ${matchIndex + 1} of ` : ''}${matches.length} matching step${matches.length === 1 ? '' : 's'}`}
            </span>{' '}
            <button type="button" disabled={matches.length === 0} onClick={() => goToMatch(-1)}>
              ← Previous match
            </button>{' '}
            <button type="button" disabled={matches.length === 0} onClick={() => goToMatch(1)}>
              Next match →
            </button>
            {unread > 0 && onReadAll && (
              <span className="muted">
                {' '}
                Searched {(model.versions.length - unread).toLocaleString('en')} of {model.versions.length.toLocaleString('en')} steps.{' '}
                <button
                  type="button"
                  disabled={reading}
                  onClick={() => {
                    setReading(true);
                    void onReadAll().finally(() => setReading(false));
                  }}
                >
                  {reading ? 'Reading the steps…' : `Search all ${model.versions.length.toLocaleString('en')} steps`}
                </button>
              </span>
            )}
          </span>
        )}
      </div>
      <div
        className="graph"
        ref={scroller}
        tabIndex={0}
        role="group"
        aria-label="Timeline graph. Arrow keys move one step along the branch, Page Up and Page Down ten, Home and End jump to its ends, H goes to the head."
        onKeyDown={onKeyDown}
      >
        <svg width={layout.width} height={layout.height} role="presentation">
          {layout.edges.map((e) => (
            <polyline
              key={`${e.from}-${e.to}`}
              className={onPath.has(e.from) && onPath.has(e.to) ? 'edge on-path' : 'edge'}
              points={e.points.map((p) => `${p.x},${p.y}`).join(' ')}
            />
          ))}
          {layout.edges.map((e) => {
            // The time between a step and the next, on the edge between them.
            const took = duration(model.detail(e.from)?.occurredAt, model.detail(e.to)?.occurredAt);
            const middle = e.points[Math.floor(e.points.length / 2)];
            return took && middle && onPath.has(e.to) ? (
              <text key={`d${e.from}-${e.to}`} className="duration" x={middle.x} y={middle.y + 11} aria-hidden="true">
                {took}
              </text>
            ) : null;
          })}
          {layout.nodes.map(({ version, x, y }) => {
            const node = model.detail(version);
            const type = node ? shortType(node.type) : '…';
            const effect = node?.type === 'ToolCallStarted' ? effects?.get(version) : undefined;
            const classes = ['node', `type-${type.replace(/[^a-z]/g, '')}`];
            if (version === selected) classes.push('selected');
            if (version === head) classes.push('head');
            if (!onPath.has(version)) classes.push('off-path');
            if (!live.has(version)) classes.push('abandoned');
            if (effect) classes.push(`effect-${effect}`);
            if (filtering) classes.push(matching.has(version) ? 'match' : 'no-match');
            const took = duration(model.detail(model.parentOf(version) ?? 0)?.occurredAt, node?.occurredAt);
            // The name starts with the text drawn in the circle (version, kind), so speech input can say what it sees.
            const name = [
              `${version} ${type}`,
              describeStep(version, node),
              version === head ? 'head' : null,
              live.has(version) ? null : 'not in the head’s history',
              effect ? `effect ${outcomeWord(effect)}` : null,
            ]
              .filter(Boolean)
              .join(', ');
            return (
              <g key={version} transform={`translate(${x},${y})`}>
                <g
                  className={classes.join(' ')}
                  role="button"
                  tabIndex={-1}
                  data-version={version}
                  data-effect={effect}
                  aria-label={name}
                  aria-pressed={version === selected}
                  onClick={() => onSelect(version)}
                >
                  <title>{`${describeStep(version, node)}${node?.occurredAt ? `\n${node.occurredAt}` : ''}${took ? ` (${took} after the step before)` : ''}`}</title>
                  <circle r={NODE / 2 - 2} />
                  <text className="version" dy="-1">
                    {version}
                  </text>{' '}
                  {/* The space makes the drawn text read "12 user", as the name starts. */}
                  <text className="type" dy="10">
                    {type}
                  </text>
                </g>
                {/* Marks beside the step, said by its name above. */}
                <g aria-hidden="true" className="node-marks">
                  {version === head && (
                    <text className="head-label" dy={-NODE / 2 - 6}>
                      HEAD
                    </text>
                  )}
                  {effect && (
                    <text className={`effect-label effect-${effect}`} dx={-NODE / 2} dy={-NODE / 2 - (version === head ? 17 : 6)}>
                      {effect === 'skipped' ? '⚠' : '↺'} {outcomeWord(effect)}
                    </text>
                  )}
                  {checkpoints.get(version)?.map((label, i) => (
                    <text key={label} className="checkpoint-label" dy={NODE / 2 + 12 + i * 11}>
                      ⚑ {label}
                    </text>
                  ))}
                  {rollbacks.get(version)?.map((label, i) => (
                    <text key={i} className="rollback-label" dx={NODE / 2} dy={-NODE / 2 - (version === head ? 17 : 6) - i * 11}>
                      ⟲ {label}
                    </text>
                  ))}
                  {layout.cutParents.includes(version) && (
                    <text className="cut" dx={-NODE / 2 - 10}>
                      …
                    </text>
                  )}
                </g>
              </g>
            );
          })}
        </svg>
      </div>
    </>
  );
}
