/**
 * Checks every request input (body, query, path) before anything transforms it: nesting depth,
 * and text that a store cannot hold. PostgreSQL refuses U+0000 in text and in jsonb, and a lone
 * UTF-16 surrogate is not Unicode at all; SQLite would take both, so the edge refuses them for
 * every store alike. The walk is iterative: hostile nesting cannot exhaust the stack here.
 */

/** Deeper JSON is refused (class-transformer and the stores recurse on it). */
export const MAX_JSON_DEPTH = 128;

export interface UnsafeInput {
  /** Dotted path, array indexes as segments: `steps.1.content`. */
  field: string;
  message: string;
}

// A NUL, or a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const describeText = (text: string): string =>
  text.includes('\u0000') ? 'contains the NUL character (U+0000)' : 'contains a lone UTF-16 surrogate (not valid Unicode)';

const join = (path: string, segment: string | number): string => (path ? `${path}.${segment}` : String(segment));

/** Names a too-deep value by where it starts (its first named fields), not by 128 indexes. */
function headOf(path: string): string {
  const segments = path.split('.').slice(0, 3);
  while (segments.length > 1 && /^\d+$/.test(segments[segments.length - 1]!)) segments.pop();
  return segments.join('.');
}

/** The first unsafe part of `value` (named under `root`, '' for a whole body), or null. */
export function findUnsafeInput(value: unknown, root = ''): UnsafeInput | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (UNSTORABLE.test(current)) {
        const field = path || 'body';
        return { field, message: `${field} ${describeText(current)}: send text without it` };
      }
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      const field = headOf(path) || 'body';
      return { field, message: `${field} is nested more than ${MAX_JSON_DEPTH} levels deep: flatten it` };
    }
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: join(path, i), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(current);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      if (UNSTORABLE.test(key)) {
        const field = path || 'body';
        return { field, message: `a field name in ${field} ${describeText(key)}: rename it` };
      }
      stack.push({ value: (current as Record<string, unknown>)[key], path: join(path, key.slice(0, 100)), depth: depth + 1 });
    }
  }
  return null;
}
