import type { Branch, Timeline, TimelineNode } from './api/types';

/** Nodes laid out and drawn at once, around the selected one: a 20 000-step session stays responsive. */
export const GRAPH_WINDOW = 80;

/**
 * Client-side indexes over a (paged) timeline answer: the whole DAG comes as `parents`, the
 * details (type, summary, time) of the nodes seen so far as `details`.
 */
export interface TimelineModel {
  timeline: Timeline;
  /** Node versions in increasing order (the stream order). */
  versions: number[];
  isNode(version: number): boolean;
  parentOf(version: number): number | null;
  detail(version: number): TimelineNode | undefined;
  pathTo(version: number): number[];
  /** The branch to show for a node: the current one if the node is on it, else the head's, else the newest leaf under it. */
  branchOf(version: number, current?: Branch): Branch | undefined;
}

/** `parents[v - 1]`: 0 for the root, -1 for versions that are not nodes (as the API's paged timeline sends it). */
function parentsOf(timeline: Timeline): number[] {
  if (timeline.parents) return timeline.parents;
  const parents = new Array<number>(timeline.version).fill(-1);
  for (const node of timeline.nodes) parents[node.version - 1] = node.parentVersion ?? 0;
  return parents;
}

export function buildTimelineModel(timeline: Timeline, details: ReadonlyMap<number, TimelineNode>): TimelineModel {
  const parents = parentsOf(timeline);
  const isNode = (v: number) => v >= 1 && v <= parents.length && parents[v - 1]! >= 0;
  const parentOf = (v: number) => (isNode(v) && parents[v - 1]! > 0 ? parents[v - 1]! : null);
  const versions: number[] = [];
  parents.forEach((parent, i) => parent >= 0 && versions.push(i + 1));
  const pathCache = new Map<number, number[]>();
  const pathTo = (version: number): number[] => {
    const cached = pathCache.get(version);
    if (cached) return cached;
    const path: number[] = [];
    for (let v: number | null = version; v; v = parentOf(v)) path.push(v);
    path.reverse();
    pathCache.set(version, path);
    return path;
  };
  const onBranch = (branch: Branch, version: number) => {
    // Versions grow along a path: walk up from the tip until at or below the version.
    let v: number | null = branch.tip;
    while (v && v > version) v = parentOf(v);
    return v === version;
  };
  const branchOf = (version: number, current?: Branch) => {
    if (current && onBranch(current, version)) return current;
    const candidates = timeline.branches.filter((b) => onBranch(b, version));
    return candidates.find((b) => b.containsHead) ?? candidates.sort((a, b) => b.tip - a.tip)[0];
  };
  return { timeline, versions, isNode, parentOf, detail: (v) => details.get(v), pathTo, branchOf };
}

/** The node versions drawn around `selected`: GRAPH_WINDOW of them, in stream order. */
export function windowVersions(model: TimelineModel, selected: number): number[] {
  const { versions } = model;
  let index = versions.indexOf(selected);
  if (index < 0) index = versions.length - 1;
  const start = Math.max(0, Math.min(index - GRAPH_WINDOW / 2, versions.length - GRAPH_WINDOW));
  return versions.slice(start, start + GRAPH_WINDOW);
}

/** Short names for the event types, for node labels. */
export function shortType(type: string): string {
  const names: Record<string, string> = {
    SessionStarted: 'start',
    UserMessageReceived: 'user',
    AgentMessageProduced: 'agent',
    ToolCallStarted: 'call',
    ToolCallSucceeded: 'result',
    ToolCallFailed: 'failed',
    MemoryWritten: 'memory',
    MemoryErased: 'forget',
    ContextVariableSet: 'var',
    TaskPushed: 'task+',
    TaskPopped: 'task−',
    TurnInterrupted: 'stop',
    AgentThoughtRecorded: 'thought',
    ToolCallProposed: 'propose',
    ToolCallApproved: 'approve',
    ToolCallRejected: 'reject',
  };
  return names[type] ?? type;
}

export function describeStep(version: number, node: TimelineNode | undefined): string {
  if (!node) return `Step ${version}`;
  return `Step ${version}: ${node.type}${node.summary ? ` — ${node.summary}` : ''}`;
}

/** The kinds of step the timeline can be filtered by, and the event types each holds. */
export const STEP_KINDS: readonly { id: string; label: string; types: readonly string[] }[] = [
  { id: 'messages', label: 'messages', types: ['UserMessageReceived', 'AgentMessageProduced', 'TurnInterrupted'] },
  {
    id: 'tools',
    label: 'tool calls',
    types: ['ToolCallStarted', 'ToolCallSucceeded', 'ToolCallFailed', 'ToolCallProposed', 'ToolCallApproved', 'ToolCallRejected'],
  },
  { id: 'memory', label: 'memory and context', types: ['MemoryWritten', 'MemoryErased', 'ContextVariableSet'] },
  { id: 'tasks', label: 'tasks', types: ['TaskPushed', 'TaskPopped'] },
  { id: 'thoughts', label: 'thoughts', types: ['AgentThoughtRecorded', 'AgentThoughtProcess'] },
];

/** Whether a step is of the kind chosen ('' for any) and its type or summary holds the text (case-insensitive). */
export function stepMatches(node: TimelineNode | undefined, kind: string, text: string): boolean {
  if (!node) return false;
  const wanted = STEP_KINDS.find((k) => k.id === kind);
  if (wanted && !wanted.types.includes(node.type)) return false;
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  return [node.type, shortType(node.type), node.summary ?? ''].some((field) => field.toLowerCase().includes(needle));
}

/** The time from one step to the next, short: "+850 ms", "+2.4 s", "+3 min", "+2 h"; null when a time is unknown. */
export function duration(from: string | null | undefined, to: string | null | undefined): string | null {
  if (!from || !to) return null;
  const ms = Date.parse(to) - Date.parse(from);
  if (!Number.isFinite(ms) || ms < 0) return null;
  if (ms < 1000) return `+${ms} ms`;
  if (ms < 60_000) return `+${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  if (ms < 3_600_000) return `+${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `+${Math.round(ms / 3_600_000)} h`;
  return `+${Math.round(ms / 86_400_000)} d`;
}
