import { invalid, isStepCommand, type StepCommand } from '@rewind/domain';
import type { RecordStepCommand } from '../impl/session-write-commands';
import type { Caller, WriteOptions, WriteResult } from '../write-request';
import { decideAlone } from './decide-alone';
import { registeredEffects, startsTool } from './registered-effects';
import { writeSession, type SessionWriteContext } from './session-write';

/** One step: a tool call's start first looks up the tool's registered effect. */
export class RecordStepHandler {
  constructor(private readonly context: SessionWriteContext) {}

  execute({ caller, sessionId, step, options }: RecordStepCommand): Promise<WriteResult> {
    if (!isStepCommand(step)) {
      return Promise.reject(
        invalid('validation_failed', `A ${step.type} is not a step: send it as its own command.`, [{ field: 'type', message: 'not a step' }]),
      );
    }
    return recordStep(this.context, caller, sessionId, step, options);
  }
}

/** A step alone; a batch of one is recorded (and fingerprinted) exactly like this. */
export function recordStep(context: SessionWriteContext, caller: Caller, sessionId: string, step: StepCommand, options: WriteOptions): Promise<WriteResult> {
  const print = () => ({ sessionId, command: step });
  if (!startsTool(context.tools, [step])) return writeSession(context, caller, sessionId, options, print, decideAlone(context, caller, step), step.type);
  return registeredEffects(context.tools, caller, [step]).then((effects) =>
    writeSession(context, caller, sessionId, options, print, decideAlone(context, caller, step, { toolEffect: (tool) => effects.get(tool) }), step.type),
  );
}
