import type { Change } from './types';

/**
 * Plain-language sentences for the changes between two states (seed 002 §4: "memory 'diet'
 * set to 'vegetarian'" rather than raw JSON). Paths are the diff's: `memory.diet`,
 * `tasks[0].title`, `toolCalls.h1.status`, `turns[2].messages[0]`.
 */

const MAX_TEXT = 60;

export function quote(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const short = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
  return typeof value === 'string' ? `'${short}'` : short;
}

/** The part of the state a change belongs to, e.g. `memory:diet`, `turns:2`, `toolCalls:h1`. */
export function changedItem(path: string): string {
  const match = /^(\w+)(?:\.([^.[]+)|\[(\d+)\])?/.exec(path);
  if (!match) return path;
  const [, section, key, index] = match;
  return key !== undefined || index !== undefined ? `${section}:${key ?? index}` : `${section}`;
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
}

/** "set to 'x'", "removed (was 'x')", "changed from 'x' to 'y'". */
function saidChange(op: Change['op'], from: unknown, to: unknown): string {
  if (op === 'added') return `set to ${quote(to)}`;
  if (op === 'removed') return `removed (was ${quote(from)})`;
  return `changed from ${quote(from)} to ${quote(to)}`;
}

function describeOne(change: Change): string | null {
  const { path, op, from, to } = change;
  let m: RegExpExecArray | null;
  if ((m = /^memory\.(.+)$/.exec(path))) {
    if (op === 'removed') return `memory '${m[1]}' erased (was ${quote(from)})`;
    if (op === 'added') return `memory '${m[1]}' set to ${quote(to)}`;
    return `memory '${m[1]}' changed from ${quote(from)} to ${quote(to)}`;
  }
  if ((m = /^contextVars\.(.+)$/.exec(path))) {
    if (op === 'removed') return `context variable '${m[1]}' removed (was ${quote(from)})`;
    if (op === 'added') return `context variable '${m[1]}' set to ${quote(to)}`;
    return `context variable '${m[1]}' changed from ${quote(from)} to ${quote(to)}`;
  }
  if (/^tasks\[\d+\]$/.test(path)) {
    if (op === 'added') return `task '${String(field(to, 'title'))}' pushed`;
    if (op === 'removed') return `task '${String(field(from, 'title'))}' popped`;
  }
  if (/^tasks\[\d+\]\.title$/.test(path)) return `task changed from ${quote(from)} to ${quote(to)}`;
  if ((m = /^tasks\[(\d+)\]\.data$/.exec(path))) return `data of task ${Number(m[1]) + 1} ${saidChange(op, from, to)}`;
  if (/^tasks\[\d+\]\./.test(path)) return null; // ids and versions: said by the task's sentence
  if ((m = /^turns\[(\d+)\]$/.exec(path))) {
    if (op === 'added') {
      const first = (field(to, 'messages') as unknown[] | undefined)?.[0];
      return first ? `${String(field(first, 'role'))} said ${quote(field(first, 'content'))}` : `turn ${Number(m[1]) + 1} started`;
    }
    if (op === 'removed') {
      const first = (field(from, 'messages') as unknown[] | undefined)?.[0];
      const said = first ? ` (${String(field(first, 'role'))} said ${quote(field(first, 'content'))})` : '';
      return `turn ${Number(m[1]) + 1}${said} is no longer on the path`;
    }
  }
  if ((m = /^turns\[(\d+)\]\.messages\[(\d+)\]$/.exec(path))) {
    if (op === 'added') return `${String(field(to, 'role'))} said ${quote(field(to, 'content'))}`;
    if (op === 'removed') return `${String(field(from, 'role'))}'s message ${quote(field(from, 'content'))} removed from turn ${Number(m[1]) + 1}`;
  }
  if ((m = /^turns\[(\d+)\]\.messages\[(\d+)\]\.(content|role|partial)$/.exec(path))) {
    const what = m[3] === 'content' ? 'text' : m[3] === 'role' ? 'role' : 'interrupted mark';
    return `${what} of message ${Number(m[2]) + 1} in turn ${Number(m[1]) + 1} ${saidChange(op, from, to)}`;
  }
  if ((m = /^turns\[(\d+)\]\.status$/.exec(path))) return `turn ${Number(m[1]) + 1} is now ${String(to)}`;
  if (/^turns\[/.test(path)) return null;
  if ((m = /^toolCalls\.([^.]+)$/.exec(path))) {
    if (op === 'added') return `tool call '${String(field(to, 'tool'))}' (${m[1]}) started, effect ${String(field(field(to, 'effect'), 'kind'))}`;
    if (op === 'removed') return `tool call '${String(field(from, 'tool'))}' (${m[1]}) is no longer on the path`;
  }
  if ((m = /^toolCalls\.([^.]+)\.status$/.exec(path))) return `tool call ${m[1]} ${String(to)}`;
  if ((m = /^toolCalls\.([^.]+)\.output$/.exec(path)))
    return op === 'removed' ? `tool call ${m[1]}'s answer removed (was ${quote(from)})` : `tool call ${m[1]} answered ${quote(to)}`;
  if ((m = /^toolCalls\.([^.]+)\.(input|error)(?:\.(.+))?$/.exec(path)))
    return `${m[2]}${m[3] ? ` ${m[3]}` : ''} of tool call ${m[1]} ${saidChange(op, from, to)}`;
  if (/^toolCalls\./.test(path)) return null;
  if ((m = /^checkpoints\.([^.]+)$/.exec(path))) return op === 'removed' ? `checkpoint '${m[1]}' removed` : `checkpoint '${m[1]}' created`;
  if (/^checkpoints\./.test(path)) return null;
  if (path === 'head') return null; // every step moves the head
  if (path === 'status') return `session status changed from ${quote(from)} to ${quote(to)}`;
  return `${path} ${op}${op === 'changed' ? ` from ${quote(from)} to ${quote(to)}` : ''}`;
}

/** One sentence per meaningful change, in the diff's order (details said by their item's sentence are left out). */
export function describeChanges(changes: readonly Change[]): string[] {
  return changes.map(describeOne).filter((sentence): sentence is string => sentence !== null);
}
