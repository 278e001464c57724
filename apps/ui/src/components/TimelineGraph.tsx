import dagre from '@dagrejs/dagre';
import { useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import type { Timeline } from '../api/types';
import { describeStep, shortType, windowVersions, type TimelineModel } from '../timeline-model';

const NODE = 34;

interface Props {
  model: TimelineModel;
  selected: number;
  /** The versions of the branch being followed, root first. */
  branchPath: number[];
  onSelect: (version: number) => void;
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
  graph.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 22, marginx: 60, marginy: 30 });
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

export function TimelineGraph({ model, selected, branchPath, onSelect }: Props) {
  const layout = useMemo(() => layoutWindow(model, selected), [model, selected]);
  const { checkpoints, rollbacks } = useMemo(() => labels(model.timeline), [model]);
  const onPath = useMemo(() => new Set(branchPath), [branchPath]);
  const scroller = useRef<HTMLDivElement>(null);
  const head = model.timeline.head;

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
      ArrowLeft: () => step(-1),
      ArrowRight: () => step(1),
      Home: () => branchPath[0] !== undefined && onSelect(branchPath[0]),
      End: () => branchPath.length > 0 && onSelect(branchPath[branchPath.length - 1]!),
      h: () => onSelect(head),
    };
    const move = moves[e.key];
    if (move) {
      e.preventDefault();
      move();
    }
  };

  return (
    <div
      className="graph"
      ref={scroller}
      tabIndex={0}
      role="group"
      aria-label="Timeline graph. Left and right arrows move along the branch, Home and End jump to its ends, H goes to the head."
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
        {layout.nodes.map(({ version, x, y }) => {
          const node = model.detail(version);
          const type = node ? shortType(node.type) : '…';
          const classes = ['node', `type-${type.replace(/[^a-z]/g, '')}`];
          if (version === selected) classes.push('selected');
          if (version === head) classes.push('head');
          if (!onPath.has(version)) classes.push('off-path');
          return (
            <g
              key={version}
              className={classes.join(' ')}
              transform={`translate(${x},${y})`}
              role="button"
              tabIndex={-1}
              data-version={version}
              aria-label={`${describeStep(version, node)}${version === head ? ' (head)' : ''}`}
              aria-pressed={version === selected}
              onClick={() => onSelect(version)}
            >
              <title>{`${describeStep(version, node)}${node?.occurredAt ? `\n${node.occurredAt}` : ''}`}</title>
              <circle r={NODE / 2 - 2} />
              <text className="version" dy="-1">
                {version}
              </text>
              <text className="type" dy="10">
                {type}
              </text>
              {version === head && (
                <text className="head-label" dy={-NODE / 2 - 6}>
                  HEAD
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
          );
        })}
      </svg>
    </div>
  );
}
