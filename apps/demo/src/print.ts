/** Plain-text rendering of what the demo reads back over HTTP (timeline, states, diffs). */

export interface TimelineNode {
  version: number;
  parentVersion: number | null;
  children: number[];
  type: string;
  summary: string | null;
}

export interface Timeline {
  version: number;
  head: number;
  nodes: TimelineNode[];
  branches: { tip: number; forkedFrom: number | null; length: number; containsHead: boolean }[];
  checkpoints: { label: string; version: number }[];
  rollbacks: { rollbackId: string; kind: string; fromVersion: number; toVersion: number; status: string }[];
}

export interface RecordedEvent {
  streamVersion: number;
  type: string;
  data: Record<string, unknown>;
}

export interface StateView {
  version: number;
  head: number;
  memory: Record<string, unknown>;
  conversation: { turns: { messages: { role: string; content: string }[] }[] };
}

export interface Change {
  path: string;
  op: 'added' | 'removed' | 'changed';
  from?: unknown;
  to?: unknown;
}

export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}

const json = (value: unknown, max = 60) => clip(JSON.stringify(value) ?? 'undefined', max);

/** A one-line description of a step, from its event. */
export function describeEvent(event: RecordedEvent | undefined, fallback: string | null): string {
  const d = event?.data ?? {};
  switch (event?.type) {
    case 'SessionStarted':
      return `session "${String(d.sessionId)}"${d.title ? `: ${String(d.title)}` : ''}`;
    case 'UserMessageReceived':
      return `user:  ${clip(String(d.content), 60)}`;
    case 'AgentMessageProduced':
      return `agent: ${clip(String(d.content), 60)}`;
    case 'ToolCallStarted':
      return `${String(d.tool)}(${json(d.input, 40)})  effect ${String((d.effect as { kind?: string } | undefined)?.kind)}`;
    case 'ToolCallSucceeded':
      return `${String(d.toolCallId)} -> ${json(d.output, 50)}`;
    case 'ToolCallFailed':
      return `${String(d.toolCallId)} failed: ${clip(String(d.error), 50)}`;
    case 'MemoryWritten':
      return `memory ${String(d.key)} = ${json(d.value, 50)}`;
    default:
      return fallback ?? '';
  }
}

/** The versions from the root to `version`. */
function ancestry(nodes: Map<number, TimelineNode>, version: number): Set<number> {
  const path = new Set<number>();
  for (let v: number | null = version; v !== null; v = nodes.get(v)?.parentVersion ?? null) path.add(v);
  return path;
}

/**
 * The timeline DAG as an indented tree: a straight run of steps stays in one column, and
 * each fork opens one indented block per branch. Steps show their version, event type
 * and a summary; the head and checkpoints are marked.
 */
export function formatTimeline(timeline: Timeline, events: RecordedEvent[]): string[] {
  const nodes = new Map(timeline.nodes.map((n) => [n.version, n]));
  const byVersion = new Map(events.map((e) => [e.streamVersion, e]));
  const checkpointsAt = new Map<number, string[]>();
  for (const c of timeline.checkpoints) checkpointsAt.set(c.version, [...(checkpointsAt.get(c.version) ?? []), c.label]);
  const tipPaths = timeline.branches.map((b) => ({ tip: b.tip, path: ancestry(nodes, b.tip) }));

  const rows: { left: string; type: string; summary: string }[] = [];
  const walk = (start: number, prefix: string) => {
    for (let v: number | undefined = start; v !== undefined; ) {
      const node: TimelineNode = nodes.get(v)!;
      const marks = [...(checkpointsAt.get(v) ?? []).map((label) => `[checkpoint "${label}"]`), ...(v === timeline.head ? ['<== HEAD'] : [])];
      rows.push({ left: `${prefix}v${v}`, type: node.type, summary: [describeEvent(byVersion.get(v), node.summary), ...marks].join('  ') });
      const children = [...node.children].sort((a, b) => a - b);
      if (children.length <= 1) {
        v = children[0];
        continue;
      }
      children.forEach((child, i) => {
        const last = i === children.length - 1;
        const tips = tipPaths.filter((t) => t.path.has(child)).map((t) => `v${t.tip}`);
        rows.push({ left: `${prefix}${last ? '`-' : '|-'} branch ${i + 1}`, type: '', summary: `(tip ${tips.join(', ')})` });
        walk(child, prefix + (last ? '   ' : '|  '));
      });
      return;
    }
  };
  const root = timeline.nodes.find((n) => n.parentVersion === null);
  if (root) walk(root.version, '  ');

  const leftWidth = Math.max(...rows.filter((r) => r.type).map((r) => r.left.length));
  const typeWidth = Math.max(...rows.map((r) => r.type.length));
  const lines = rows.map((r) => (r.type ? `${r.left.padEnd(leftWidth)}  ${r.type.padEnd(typeWidth)}  ${r.summary}` : `${r.left} ${r.summary}`).trimEnd());

  lines.push('', `  head: v${timeline.head}   stream version: ${timeline.version}   branches: ${timeline.branches.length}`);
  for (const b of timeline.branches) {
    const fork = b.forkedFrom === null ? 'no fork' : `forked at v${b.forkedFrom}`;
    lines.push(
      `    tip v${String(b.tip).padEnd(4)} ${String(b.length).padStart(3)} steps   ${fork.padEnd(14)}${b.containsHead ? '(head is on this branch)' : ''}`.trimEnd(),
    );
  }
  for (const r of timeline.rollbacks) lines.push(`  ${r.kind} v${r.fromVersion} -> v${r.toVersion}: ${r.status}`);
  return lines;
}

/** Memory and the last few messages of a state. */
export function formatState(state: StateView, lastMessages = 3): string[] {
  const lines = [`  head v${state.head} (stream version ${state.version})`, '  memory:'];
  const keys = Object.keys(state.memory);
  const keyWidth = Math.max(0, ...keys.map((k) => k.length));
  if (keys.length === 0) lines.push('    (empty)');
  for (const key of keys) lines.push(`    ${key.padEnd(keyWidth)}  ${json(state.memory[key], 90)}`);
  const messages = state.conversation.turns.flatMap((t) => t.messages);
  lines.push(`  last ${Math.min(lastMessages, messages.length)} of ${messages.length} messages:`);
  for (const m of messages.slice(-lastMessages)) lines.push(`    ${m.role.padEnd(5)}  ${clip(m.content, 90)}`);
  return lines;
}

/** A changed value, the way a person reads it: messages by role and text, tool calls by name. */
function describeValue(value: unknown, max: number): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    if (typeof v.role === 'string' && typeof v.content === 'string') return `${v.role}: ${json(v.content, max - v.role.length - 2)}`;
    if (Array.isArray(v.messages)) return `a turn of ${v.messages.length} message(s): ${describeValue(v.messages[0], max - 28)}`;
    if (typeof v.tool === 'string') return `${v.tool}(${json(v.input, max - v.tool.length - 14)}) ${String(v.status)}`;
  }
  return json(value, max);
}

const SECTION_ORDER = ['memory', 'contextVars', 'tasks', 'toolCalls', 'turns'];
const sectionRank = (path: string) => {
  const rank = SECTION_ORDER.indexOf(path.split(/[.[]/)[0]!);
  return rank < 0 ? SECTION_ORDER.length : rank;
};

/**
 * A diff between two states, memory first. Bookkeeping fields (ids, versions) are left
 * out: they differ between any two branches and say nothing a person cares about.
 */
export function formatDiff(changes: Change[]): string[] {
  const bookkeeping = /(^|\.)(messageId|turnId|version|startedVersion|finishedVersion|head|toolCallId|attempts)$/;
  const shown = changes.filter((c) => !bookkeeping.test(c.path)).sort((a, b) => sectionRank(a.path) - sectionRank(b.path));
  const width = Math.max(0, ...shown.map((c) => c.path.length));
  const lines = shown.map((c) => {
    const what =
      c.op === 'added'
        ? `+ ${describeValue(c.to, 70)}`
        : c.op === 'removed'
          ? `- ${describeValue(c.from, 70)}`
          : `${describeValue(c.from, 34)}  ->  ${describeValue(c.to, 34)}`;
    return `  ${c.op.padEnd(7)}  ${c.path.padEnd(width)}  ${what}`;
  });
  if (shown.length === 0) lines.push('  (no differences)');
  if (shown.length < changes.length) lines.push(`  (and ${changes.length - shown.length} changes of ids and versions, not shown)`);
  return lines;
}
