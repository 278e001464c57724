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

function describeOne(change: Change): string | null {
  const { path, op, from, to } = change;
  let m: RegExpExecArray | null;
  if ((m = /^memory\.(.+)$/.exec(path))) {
    if (op === 'removed') return `memory '${m[1]}' erased (was ${quote(from)})`;
    if (op === 'added') return `memory '${m[1]}' set to ${quote(to)}`;
    return `memory '${m[1]}' changed from ${quote(from)} to ${quote(to)}`;
  }
  if ((m = /^contextVars\.(.+)$/.exec(path))) {
    if (op === 'removed') return `context variable '${m[1]}' removed`;
    if (op === 'added') return `context variable '${m[1]}' set to ${quote(to)}`;
    return `context variable '${m[1]}' changed from ${quote(from)} to ${quote(to)}`;
  }
  if ((m = /^tasks\[(\d+)\]$/.exec(path))) {
    if (op === 'added') return `task '${String(field(to, 'title'))}' pushed`;
    if (op === 'removed') return `task '${String(field(from, 'title'))}' popped`;
  }
  if ((m = /^tasks\[(\d+)\]\.title$/.exec(path))) return `task changed from ${quote(from)} to ${quote(to)}`;
  if (/^tasks\[\d+\]\./.test(path)) return null; // said by the title sentence
  if ((m = /^turns\[(\d+)\]$/.exec(path))) {
    if (op === 'added') {
      const first = (field(to, 'messages') as unknown[] | undefined)?.[0];
      return first ? `${String(field(first, 'role'))} said ${quote(field(first, 'content'))}` : `turn ${Number(m[1]) + 1} started`;
    }
    if (op === 'removed') return `turn ${Number(m[1]) + 1} is no longer on the path`;
  }
  if ((m = /^turns\[(\d+)\]\.messages\[(\d+)\]$/.exec(path)) && op === 'added') return `${String(field(to, 'role'))} said ${quote(field(to, 'content'))}`;
  if ((m = /^turns\[(\d+)\]\.status$/.exec(path))) return `turn ${Number(m[1]) + 1} is now ${String(to)}`;
  if (/^turns\[/.test(path)) return null;
  if ((m = /^toolCalls\.([^.]+)$/.exec(path))) {
    if (op === 'added') return `tool call '${String(field(to, 'tool'))}' (${m[1]}) started, effect ${String(field(field(to, 'effect'), 'kind'))}`;
    if (op === 'removed') return `tool call '${String(field(from, 'tool'))}' (${m[1]}) is no longer on the path`;
  }
  if ((m = /^toolCalls\.([^.]+)\.status$/.exec(path))) return `tool call ${m[1]} ${String(to)}`;
  if ((m = /^toolCalls\.([^.]+)\.output$/.exec(path)) && op !== 'removed') return `tool call ${m[1]} answered ${quote(to)}`;
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
