/**
 * Which item of the state a diff path belongs to, for highlighting it on the state panel. Paths
 * are the diff's `changes`: `memory.diet`, `tasks[0].title`, `toolCalls.h1.status`,
 * `turns[2].messages[0]`. The changes in words come from the server (the diff's `items`).
 */

/** The part of the state a change belongs to, e.g. `memory:diet`, `turns:2`, `toolCalls:h1`. */
export function changedItem(path: string): string {
  const match = /^(\w+)(?:\.([^.[]+)|\[(\d+)\])?/.exec(path);
  if (!match) return path;
  const [, section, key, index] = match;
  return key !== undefined || index !== undefined ? `${section}:${key ?? index}` : `${section}`;
}
