import type { Branch, Timeline, TimelineNode } from './api/types';

/** Client-side indexes over a timeline answer: parents, paths, the branch of a node. */
export interface TimelineModel {
  timeline: Timeline;
  byVersion: Map<number, TimelineNode>;
  /** Node versions in increasing order (the stream order). */
  versions: number[];
  pathTo(version: number): number[];
  /** The branch to show for a node: the one with the head if the node is on it, else the newest leaf under the node. */
  branchOf(version: number, current?: Branch): Branch | undefined;
}

export function buildTimelineModel(timeline: Timeline): TimelineModel {
  const byVersion = new Map(timeline.nodes.map((n) => [n.version, n]));
  const versions = timeline.nodes.map((n) => n.version).sort((a, b) => a - b);
  const pathCache = new Map<number, number[]>();
  const pathTo = (version: number): number[] => {
    const cached = pathCache.get(version);
    if (cached) return cached;
    const path: number[] = [];
    for (let v: number | null | undefined = version; v; v = byVersion.get(v)?.parentVersion) path.push(v);
    path.reverse();
    pathCache.set(version, path);
    return path;
  };
  const onBranch = (branch: Branch, version: number) => {
    // Versions grow along a path: walk up from the tip until at or below the version.
    let v: number | null | undefined = branch.tip;
    while (v && v > version) v = byVersion.get(v)?.parentVersion;
    return v === version;
  };
  const branchOf = (version: number, current?: Branch) => {
    if (current && onBranch(current, version)) return current;
    const candidates = timeline.branches.filter((b) => onBranch(b, version));
    return candidates.find((b) => b.containsHead) ?? candidates.sort((a, b) => b.tip - a.tip)[0];
  };
  return { timeline, byVersion, versions, pathTo, branchOf };
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
  };
  return names[type] ?? type;
}

export function describeNode(node: TimelineNode): string {
  return `Step ${node.version}: ${node.type}${node.summary ? ` — ${node.summary}` : ''}`;
}
