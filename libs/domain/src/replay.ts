import type { RecordedSessionEvent } from './events';
import { evolveInPlace } from './evolve';
import { initialSessionState, type PathState, type SessionState } from './state';

type ReplayableEvent = Pick<RecordedSessionEvent, 'type' | 'data' | 'streamVersion' | 'parentVersion' | 'metadata'>;

/** The definition of a node's path state: the fold of its ancestry, from events alone. */
export function foldPath(events: readonly ReplayableEvent[], version: number): PathState {
  const chain: ReplayableEvent[] = [];
  for (let v = version; v > 0; v = events[v - 1]!.parentVersion ?? 0) chain.push(events[v - 1]!);
  const scratch = initialSessionState();
  for (let i = chain.length - 1; i >= 0; i--) {
    evolveInPlace(scratch, chain[i] as RecordedSessionEvent, () => {
      throw new Error('unreachable: an ancestry chain never moves its head');
    });
  }
  return scratch.path;
}

/**
 * The definition of `state(v)`: every event from 1 to v, folded in order, with each head
 * move resolved by folding its target's ancestry. `events[i]` must be version i + 1.
 */
export function replay(events: readonly ReplayableEvent[], upTo: number = events.length): SessionState {
  const state = initialSessionState();
  const resolve = (v: number) => foldPath(events, v);
  for (let i = 0; i < upTo; i++) evolveInPlace(state, events[i] as RecordedSessionEvent, resolve);
  return state;
}
