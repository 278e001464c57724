import {
  atStepIndex,
  decide,
  DomainError,
  evolveInPlace,
  scratchForSteps,
  invalid,
  isStepCommand,
  type DecideContext,
  type SessionEvent,
  type SessionState,
  type StepCommand,
} from '@rewind/domain';
import type { NewEvent, StoredEvent } from '@rewind/event-store';
import type { RecordStepsCommand } from '../impl/session-write-commands';
import type { StampEvents } from '../command-pipeline';
import type { WriteResult } from '../write-request';
import { recordStep } from './record-step.handler';
import { registeredEffects } from './registered-effects';
import { decideContext, writeSession, type SessionWriteContext } from './session-write';

/** Steps in one batch: one append, one transaction. */
export const MAX_STEPS_PER_WRITE = 1000;

/**
 * Several steps in one atomic write: each is decided on the state the ones before it leave,
 * all are appended in one transaction, and a refused step (named by its index) refuses the
 * whole batch, so nothing is persisted. One Idempotency-Key and one If-Match cover the batch.
 */
export class RecordStepsHandler {
  constructor(private readonly context: SessionWriteContext) {}

  async execute({ caller, sessionId, steps: commands, options }: RecordStepsCommand): Promise<WriteResult> {
    if (commands.length === 0 || commands.length > MAX_STEPS_PER_WRITE) {
      throw invalid('validation_failed', `Send between 1 and ${MAX_STEPS_PER_WRITE} steps (got ${commands.length}).`, [
        { field: 'steps', message: `must hold 1 to ${MAX_STEPS_PER_WRITE} steps` },
      ]);
    }
    const steps = commands.map((command, index) => {
      if (!isStepCommand(command)) {
        throw invalid('validation_failed', `steps[${index}]: a ${command.type} cannot be sent among steps; send it on its own.`, [
          { field: `steps.${index}`, message: 'not a step' },
        ]);
      }
      return command;
    });
    // One step answers (and is fingerprinted) exactly as the same step sent on its own.
    if (steps.length === 1) return recordStep(this.context, caller, sessionId, steps[0]!, options);
    const effects = await registeredEffects(this.context.tools, caller, steps);
    const lookups = decideContext(this.context, caller, { toolEffect: (tool) => effects.get(tool) });
    return writeSession(
      this.context,
      caller,
      sessionId,
      options,
      () => ({ sessionId, steps }),
      (state, stamp, streamId) => {
        // Decided on a scratch state that copies only what the steps touch; after the commit the
        // events are folded into the cached state (a whole copy grew with the session: ~1 ms a
        // request at 3 000 turns, the soak's slowdown).
        return { events: decideSteps(scratchForSteps(state), steps, lookups, stamp, streamId), context: {} };
      },
      'RecordSteps',
    );
  }
}

/**
 * Steps decided one after the other on a private fork (the cached state is what readers
 * see until the append commits); a refused step refuses the batch, named by its index.
 */
function decideSteps(
  scratch: SessionState,
  steps: readonly StepCommand[],
  context: DecideContext,
  stamp: StampEvents<SessionEvent>,
  streamId: string,
): NewEvent<SessionEvent>[] {
  const events: NewEvent<SessionEvent>[] = [];
  steps.forEach((command, index) => {
    let decided;
    try {
      decided = decide(scratch, command, context).events;
    } catch (error) {
      throw error instanceof DomainError ? atStepIndex(error, index) : error;
    }
    for (const event of stamp(decided)) {
      const recorded: StoredEvent<SessionEvent> = { ...event, streamId, streamVersion: scratch.version + 1, globalPosition: 0 };
      evolveInPlace(scratch, recorded, () => {
        throw new Error(`steps never switch paths (${event.type} at steps[${index}])`);
      });
      events.push(event);
    }
  });
  return events;
}
