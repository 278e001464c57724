import type { JsonValue } from './json';
import type { Checkpoint, Message, PathState, Proposal, SessionState, Task, Thought, ToolCall, Turn } from './state';

/** What kind of thing a change is about: one item of what the agent knows, did or was told. */
export type StateChangeKind =
  | 'message'
  | 'turn'
  | 'thought'
  | 'proposal'
  | 'decision'
  | 'tool_call'
  | 'tool_output'
  | 'memory'
  | 'context_variable'
  | 'task'
  | 'checkpoint'
  | 'status';

/**
 * One change between two states, said in words (`summary`) with the item as it was (`before`)
 * and as it is (`after`) for whoever wants the raw JSON. `version` is the step that recorded what
 * the change is about (a message's, a decision's…), null when no single step did.
 */
export interface StateChange {
  kind: StateChangeKind;
  op: 'added' | 'removed' | 'changed';
  /** The item's id or key: a messageId, toolCallId, memory key… */
  ref: string;
  summary: string;
  version: number | null;
  before: JsonValue | null;
  after: JsonValue | null;
}

const MAX_TEXT = 80;

/** A value as a reader sees it in a sentence: strings quoted, long text cut. */
export function quoteValue(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const short = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
  return typeof value === 'string' ? `'${short}'` : short;
}

const json = (value: unknown): JsonValue => value as JsonValue;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function byKey<T>(items: Iterable<T>, key: (item: T) => string): Map<string, T> {
  return new Map([...items].map((item) => [key(item), item]));
}

/** Added, removed and kept items of two keyed collections, in the order of `to` then of `from`. */
function pair<T>(from: Map<string, T>, to: Map<string, T>): { key: string; before?: T; after?: T }[] {
  const pairs: { key: string; before?: T; after?: T }[] = [];
  for (const [key, after] of to) pairs.push({ key, before: from.get(key), after });
  for (const [key, before] of from) if (!to.has(key)) pairs.push({ key, before });
  return pairs;
}

interface Placed {
  message: Message;
  turn: number;
}

function messagesOf(path: PathState): Map<string, Placed> {
  const placed = new Map<string, Placed>();
  path.turns.forEach((turn, index) => turn.messages.forEach((message) => placed.set(`${message.messageId}@${message.version}`, { message, turn: index + 1 })));
  return placed;
}

function messageChanges(from: PathState, to: PathState): StateChange[] {
  return pair(messagesOf(from), messagesOf(to)).flatMap(({ key, before, after }): StateChange[] => {
    if (after && before && same(after.message, before.message)) return [];
    const m = (after ?? before)!.message;
    const who = m.role === 'user' ? 'the user' : 'the agent';
    const where = `turn ${(after ?? before)!.turn}`;
    const base = {
      kind: 'message' as const,
      ref: key,
      version: m.version,
      before: before ? json(before.message) : null,
      after: after ? json(after.message) : null,
    };
    if (!before) {
      const said = m.partial ? `${who} was cut off after saying` : `${who} said`;
      return [{ ...base, op: 'added' as const, summary: `${said} ${quoteValue(m.content)} (${where})` }];
    }
    if (!after) return [{ ...base, op: 'removed' as const, summary: `${who}'s message ${quoteValue(m.content)} (${where}) is no longer on the path` }];
    return [
      {
        ...base,
        op: 'changed' as const,
        summary: `${who}'s message in ${where} changed from ${quoteValue(before.message.content)} to ${quoteValue(m.content)}`,
      },
    ];
  });
}

function turnChanges(from: PathState, to: PathState): StateChange[] {
  const index = (path: PathState) => byKey(path.turns, (t) => t.turnId);
  const numbered = new Map(to.turns.map((t, i) => [t.turnId, i + 1]));
  return pair(index(from), index(to)).flatMap(({ key, before, after }): StateChange[] => {
    const base = (turn: Turn) => ({
      kind: 'turn' as const,
      ref: key,
      version: turn.startedVersion,
      before: before ? json(before) : null,
      after: after ? json(after) : null,
    });
    // A turn's messages are said one by one; the turn itself only when its status says something they do not.
    if (after && before && after.status !== before.status && after.status === 'interrupted')
      return [{ ...base(after), op: 'changed' as const, summary: `turn ${numbered.get(key)} was interrupted` }];
    if (after && !before && after.status === 'interrupted')
      return [{ ...base(after), op: 'added' as const, summary: `turn ${numbered.get(key)} was interrupted` }];
    if (after && !before && after.messages.length === 0) return [{ ...base(after), op: 'added' as const, summary: `turn ${numbered.get(key)} started` }];
    return [];
  });
}

function thoughtChanges(from: PathState, to: PathState): StateChange[] {
  const index = (path: PathState) => byKey(path.thoughts, (t: Thought) => `${t.thoughtId}@${t.version}`);
  return pair(index(from), index(to)).flatMap(({ key, before, after }): StateChange[] => {
    if (after && before) return [];
    const t = (after ?? before)!;
    const steps = t.steps.length > 0 ? ` (${t.steps.length} step${t.steps.length === 1 ? '' : 's'}: ${t.steps.map((s) => quoteValue(s)).join(', ')})` : '';
    const base = { kind: 'thought' as const, ref: key, version: t.version, before: before ? json(before) : null, after: after ? json(after) : null };
    return after
      ? [{ ...base, op: 'added' as const, summary: `the agent thought ${quoteValue(t.content)}${steps}` }]
      : [{ ...base, op: 'removed' as const, summary: `the agent's thought ${quoteValue(t.content)} is no longer on the path` }];
  });
}

function decision(p: Proposal): string {
  const who = p.decidedBy ?? 'someone';
  if (p.status === 'approved') return `${who} approved '${p.tool}' (${p.toolCallId})${p.note ? ` with the note ${quoteValue(p.note)}` : ''}`;
  return `${who} rejected '${p.tool}' (${p.toolCallId})${p.note ? `: ${quoteValue(p.note)}` : ''}`;
}

function proposalChanges(from: PathState, to: PathState): StateChange[] {
  return pair(
    byKey(Object.values(from.proposals), (p) => p.toolCallId),
    byKey(Object.values(to.proposals), (p) => p.toolCallId),
  ).flatMap(({ key, before, after }): StateChange[] => {
    const changes: StateChange[] = [];
    const p = (after ?? before)!;
    const raw = { before: before ? json(before) : null, after: after ? json(after) : null };
    if (!after)
      return [
        {
          kind: 'proposal',
          op: 'removed',
          ref: key,
          version: p.proposedVersion,
          ...raw,
          summary: `the proposal of '${p.tool}' (${key}) is no longer on the path`,
        },
      ];
    if (!before) {
      changes.push({
        kind: 'proposal',
        op: 'added',
        ref: key,
        version: p.proposedVersion,
        ...raw,
        summary: `${p.proposedBy} proposed '${p.tool}' (${key}) with ${quoteValue(p.input)}, effect ${p.effect.kind}: it waits for a person`,
      });
    }
    if (after.status !== 'pending' && before?.status !== after.status) {
      changes.push({ kind: 'decision', op: before ? 'changed' : 'added', ref: key, version: after.decidedVersion, ...raw, summary: decision(after) });
    }
    return changes;
  });
}

function outcome(call: ToolCall): string {
  if (call.status === 'succeeded') return `'${call.tool}' (${call.toolCallId}) answered ${quoteValue(call.output ?? null)}`;
  if (call.status === 'failed')
    return `'${call.tool}' (${call.toolCallId}) failed: ${call.error ?? 'no reason given'}${call.retryable ? ' (can be retried)' : ''}`;
  return `'${call.tool}' (${call.toolCallId}) is running again (attempt ${call.attempts})`;
}

function toolCallChanges(from: PathState, to: PathState): StateChange[] {
  return pair(
    byKey(Object.values(from.toolCalls), (c) => c.toolCallId),
    byKey(Object.values(to.toolCalls), (c) => c.toolCallId),
  ).flatMap(({ key, before, after }): StateChange[] => {
    const c = (after ?? before)!;
    const raw = { before: before ? json(before) : null, after: after ? json(after) : null };
    if (!after)
      return [
        { kind: 'tool_call', op: 'removed', ref: key, version: c.startedVersion, ...raw, summary: `the call of '${c.tool}' (${key}) is no longer on the path` },
      ];
    const changes: StateChange[] = [];
    const restarted = before && before.startedVersion !== after.startedVersion;
    if (!before || restarted) {
      changes.push({
        kind: 'tool_call',
        op: before ? 'changed' : 'added',
        ref: key,
        version: after.startedVersion,
        ...raw,
        summary: `${restarted ? 'called again' : 'called'} '${after.tool}' (${key}) with ${quoteValue(after.input)}, effect ${after.effect.kind}${after.confirmed ? ', confirmed by a person' : ''}`,
      });
    }
    const finished = after.status !== 'started' && (!before || restarted || before.status !== after.status || !same(before.output, after.output));
    if (finished)
      changes.push({ kind: 'tool_output', op: before ? 'changed' : 'added', ref: key, version: after.finishedVersion, ...raw, summary: outcome(after) });
    return changes;
  });
}

function keyValueChanges(kind: 'memory' | 'context_variable', from: Record<string, JsonValue>, to: Record<string, JsonValue>): StateChange[] {
  const what = kind === 'memory' ? 'memory' : 'context variable';
  const keys = [...new Set([...Object.keys(to), ...Object.keys(from)])];
  return keys.flatMap((key): StateChange[] => {
    const had = Object.hasOwn(from, key);
    const has = Object.hasOwn(to, key);
    const before = had ? from[key]! : null;
    const after = has ? to[key]! : null;
    const base = { kind, ref: key, version: null, before, after };
    if (had && has)
      return same(before, after)
        ? []
        : [{ ...base, op: 'changed' as const, summary: `${what} '${key}' changed from ${quoteValue(before!)} to ${quoteValue(after!)}` }];
    if (has) return [{ ...base, op: 'added' as const, summary: `${what} '${key}' set to ${quoteValue(after!)}` }];
    return [{ ...base, op: 'removed' as const, summary: `${what} '${key}' ${kind === 'memory' ? 'erased' : 'removed'} (was ${quoteValue(before!)})` }];
  });
}

function taskChanges(from: PathState, to: PathState): StateChange[] {
  return pair(
    byKey(from.tasks, (t: Task) => t.taskId),
    byKey(to.tasks, (t: Task) => t.taskId),
  ).flatMap(({ key, before, after }): StateChange[] => {
    const t = (after ?? before)!;
    const base = { kind: 'task' as const, ref: key, version: t.version, before: before ? json(before) : null, after: after ? json(after) : null };
    if (!before) return [{ ...base, op: 'added' as const, summary: `task ${quoteValue(t.title)} pushed` }];
    if (!after) return [{ ...base, op: 'removed' as const, summary: `task ${quoteValue(t.title)} popped` }];
    return same(before, after) ? [] : [{ ...base, op: 'changed' as const, summary: `task ${quoteValue(before.title)} changed to ${quoteValue(after.title)}` }];
  });
}

/** Whether `version` is `tip` or one of its ancestors on the timeline. */
function onPathTo(timeline: readonly number[], tip: number, version: number): boolean {
  for (let v = tip; v > 0; v = timeline[v - 1] ?? 0) if (v === version) return true;
  return false;
}

/**
 * Checkpoints belong to the session, not to a path: one is said only when it was created between
 * the two states and marks a step on the path arrived at (one created on another branch is not a
 * change of this one), naming the step it marks.
 */
function checkpointChanges(from: SessionState, to: SessionState): StateChange[] {
  const after = (c: Checkpoint) => c.createdVersion > from.version && c.createdVersion <= to.version && onPathTo(to.timeline, to.head, c.version);
  return Object.values(to.checkpoints)
    .filter((c) => !Object.hasOwn(from.checkpoints, c.label) && after(c))
    .map((c) => ({
      kind: 'checkpoint' as const,
      op: 'added' as const,
      ref: c.label,
      version: c.createdVersion,
      before: null,
      after: json(c),
      summary: `checkpoint '${c.label}' created at event ${c.createdVersion}, marking step ${c.version}`,
    }));
}

/**
 * Everything that differs between the states at two steps, one item at a time and said in words:
 * every message of every turn, thought, proposal and decision, tool call and its answer, memory
 * key, context variable and task; checkpoints created for the path arrived at; the session's status.
 */
export function describeStateChanges(from: SessionState, to: SessionState): StateChange[] {
  const status: StateChange[] =
    from.status === to.status
      ? []
      : [
          {
            kind: 'status',
            op: 'changed',
            ref: 'status',
            version: null,
            before: from.status,
            after: to.status,
            summary: `session status changed from ${from.status.replace(/_/g, ' ')} to ${to.status.replace(/_/g, ' ')}`,
          },
        ];
  const changes = [
    ...turnChanges(from.path, to.path),
    ...messageChanges(from.path, to.path),
    ...thoughtChanges(from.path, to.path),
    ...proposalChanges(from.path, to.path),
    ...toolCallChanges(from.path, to.path),
    ...keyValueChanges('memory', from.path.memory, to.path.memory),
    ...keyValueChanges('context_variable', from.path.contextVars, to.path.contextVars),
    ...taskChanges(from.path, to.path),
    ...checkpointChanges(from, to),
    ...status,
  ];
  // In the order they happened (stable: what no single step recorded keeps its place at the end).
  return changes
    .map((change, i) => ({ change, i }))
    .sort((a, b) => (a.change.version ?? Infinity) - (b.change.version ?? Infinity) || a.i - b.i)
    .map(({ change }) => change);
}
