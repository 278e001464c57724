import type { JsonValue } from './json';

export interface Change {
  path: string;
  op: 'added' | 'removed' | 'changed';
  from?: JsonValue;
  to?: JsonValue;
}

const isObject = (v: unknown): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Field-by-field differences between two JSON documents (paths like `memory.city`, `turns[2]`). */
export function diffJson(from: JsonValue | undefined, to: JsonValue | undefined, path = ''): Change[] {
  if (from === undefined && to === undefined) return [];
  if (from === undefined) return [{ path, op: 'added', to: to! }];
  if (to === undefined) return [{ path, op: 'removed', from }];
  if (isObject(from) && isObject(to)) {
    const keys = new Set([...Object.keys(from), ...Object.keys(to)]);
    return [...keys].flatMap((key) => diffJson(from[key], to[key], path ? `${path}.${key}` : key));
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const changes: Change[] = [];
    for (let i = 0; i < Math.max(from.length, to.length); i++) changes.push(...diffJson(from[i], to[i], `${path}[${i}]`));
    return changes;
  }
  return JSON.stringify(from) === JSON.stringify(to) ? [] : [{ path, op: 'changed', from, to }];
}
