import { appendOnlyView } from './append-only-view';
import { copyTurns, OWN_TURN, type PathState, type SessionState, type ToolCall, type Turn } from './state';

/**
 * A record that reads through to `base` and keeps its own writes and deletions: a copy of a
 * record of thousands of keys (a long session's tool calls) costs ~0.5 ms, this costs nothing
 * until written. `own` turns a value read from `base` into the scratch's own copy first, for
 * values that evolve changes in place (tool calls).
 */
function overlay<T>(base: Record<string, T>, own?: (value: T) => T): Record<string, T> {
  const written = new Map<string, T>();
  const deleted = new Set<string>();
  const has = (key: string) => written.has(key) || (!deleted.has(key) && Object.hasOwn(base, key));
  const value = (key: string): T | undefined => {
    if (written.has(key)) return written.get(key);
    if (deleted.has(key) || !Object.hasOwn(base, key)) return undefined;
    const found = base[key]!;
    if (!own) return found;
    const copy = own(found);
    written.set(key, copy);
    return copy;
  };
  return new Proxy({} as Record<string, T>, {
    get: (_target, key) => (typeof key === 'string' ? value(key) : undefined),
    set: (_target, key, v: T) => {
      if (typeof key !== 'string') return false;
      written.set(key, v);
      deleted.delete(key);
      return true;
    },
    deleteProperty: (_target, key) => {
      if (typeof key !== 'string') return true;
      written.delete(key);
      deleted.add(key);
      return true;
    },
    has: (_target, key) => typeof key === 'string' && has(key),
    getOwnPropertyDescriptor: (_target, key) =>
      typeof key === 'string' && has(key) ? { value: value(key), writable: true, enumerable: true, configurable: true } : undefined,
    ownKeys: () => [...Object.keys(base).filter((key) => !deleted.has(key) && !written.has(key)), ...written.keys()],
    defineProperty: () => false,
  });
}

/** The turns, sharing the array's entries: evolve asks for its own copy of a turn before it changes it (OWN_TURN). */
function ownTurns(base: Turn[]): { turns: Turn[]; own: (index: number) => Turn } {
  const turns = copyTurns(base);
  return {
    turns,
    own: (index) => {
      if (index < base.length && turns[index] === base[index]) turns[index] = { ...base[index]!, messages: [...base[index]!.messages] };
      return turns[index]!;
    },
  };
}

/**
 * A state that a batch of steps may be decided and folded into without changing `state`, in time
 * that does not grow with the session: the records and the turns read through to `state` and copy
 * only what the steps touch. For deciding only — it is not kept: after the commit, the events are
 * folded into the cached state itself (a copy of a 3 000-turn session's state cost ~1 ms a request).
 * Head moves and rollbacks change more: fold those into a `cloneState` copy.
 */
export function scratchForSteps(state: SessionState): SessionState {
  const path = state.path;
  const { turns, own } = ownTurns(path.turns);
  const scratchPath: PathState = {
    turns,
    memory: overlay(path.memory),
    contextVars: overlay(path.contextVars),
    tasks: appendOnlyView(path.tasks),
    toolCalls: overlay<ToolCall>(path.toolCalls, (call) => ({ ...call })),
    thoughts: appendOnlyView(path.thoughts),
    proposals: overlay(path.proposals),
  };
  Object.defineProperty(scratchPath, OWN_TURN, { value: own, enumerable: false });
  return {
    ...state,
    path: scratchPath,
    timeline: appendOnlyView(state.timeline),
    checkpoints: { ...state.checkpoints },
    redoStack: [...state.redoStack],
  };
}
