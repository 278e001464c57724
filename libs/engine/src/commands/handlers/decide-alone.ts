import { decide, type DecideContext, type SessionCommand } from '@rewind/domain';
import { decideContext, type DecideSession, type SessionWriteContext } from './session-write';
import type { Caller } from '../write-request';

/** A command decided on its own, on the loaded state itself (decide does not change it), with the lookups already made. */
export function decideAlone(context: SessionWriteContext, caller: Caller, command: SessionCommand, lookups: Partial<DecideContext> = {}): DecideSession {
  return (state, stamp) => ({ events: stamp(decide(state, command, decideContext(context, caller, lookups)).events), context: {} });
}
