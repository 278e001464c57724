/**
 * The timeline DAG, read from `SessionState.timeline` (parent of each version; 0 for the
 * root, -1 for versions that are not nodes). Along any path versions strictly increase,
 * because a step's parent always existed before it.
 */

export function isNode(timeline: readonly number[], version: number): boolean {
  return version >= 1 && version <= timeline.length && timeline[version - 1]! >= 0;
}

export function parentOf(timeline: readonly number[], version: number): number {
  return timeline[version - 1] ?? 0;
}

/** Versions from the root to `version`, inclusive, oldest first. */
export function ancestry(timeline: readonly number[], version: number): number[] {
  const path: number[] = [];
  for (let v = version; v > 0; v = parentOf(timeline, v)) path.push(v);
  return path.reverse();
}

export function isAncestor(timeline: readonly number[], ancestor: number, of: number): boolean {
  for (let v = of; v >= ancestor && v > 0; v = parentOf(timeline, v)) if (v === ancestor) return true;
  return false;
}

/** The newest common ancestor of two nodes (0 if they share none). */
export function commonAncestor(timeline: readonly number[], a: number, b: number): number {
  let x = a;
  let y = b;
  while (x !== y) {
    if (x > y) x = parentOf(timeline, x);
    else y = parentOf(timeline, y);
  }
  return x;
}

export interface TimelineNode {
  version: number;
  parentVersion: number | null;
  children: number[];
}

export interface TimelineView {
  head: number;
  nodes: TimelineNode[];
  /** One entry per leaf: the path from the root, and whether the head lies on it. */
  branches: { tip: number; forkedFrom: number | null; length: number; containsHead: boolean; name: string | null }[];
}

/**
 * `names`: branch names by the version of the step that carries them; a branch is called by
 * the nearest name on its path (a fork of a named branch keeps its name until it gets one).
 */
export function timelineView(timeline: readonly number[], head: number, names: Readonly<Record<string, string>> = {}): TimelineView {
  const nodes = new Map<number, TimelineNode>();
  timeline.forEach((parent, index) => {
    if (parent < 0) return;
    const version = index + 1;
    nodes.set(version, { version, parentVersion: parent === 0 ? null : parent, children: [] });
    if (parent > 0) nodes.get(parent)?.children.push(version);
  });
  const branches = [...nodes.values()]
    .filter((node) => node.children.length === 0)
    .map((leaf) => {
      const path = ancestry(timeline, leaf.version);
      let forkedFrom: number | null = null;
      for (let i = path.length - 2; i >= 0; i--) {
        if ((nodes.get(path[i]!)?.children.length ?? 0) > 1) {
          forkedFrom = path[i]!;
          break;
        }
      }
      let name: string | null = null;
      for (let i = path.length - 1; i >= 0 && name === null; i--) name = Object.hasOwn(names, path[i]!) ? names[path[i]!]! : null;
      return { tip: leaf.version, forkedFrom, length: path.length, containsHead: path.includes(head), name };
    });
  return { head, nodes: [...nodes.values()], branches };
}
