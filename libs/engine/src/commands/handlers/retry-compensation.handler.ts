import type { RetryCompensation } from '@rewind/domain';
import type { RetryCompensationCommand } from '../impl/session-write-commands';
import type { WriteResult } from '../write-request';
import { decideAlone } from './decide-alone';
import { writeSession, type SessionWriteContext } from './session-write';

/** An operator asks the saga to try a failed compensation again. */
export class RetryCompensationHandler {
  constructor(private readonly context: SessionWriteContext) {}

  execute({ caller, sessionId, rollbackId, toolCallId, options }: RetryCompensationCommand): Promise<WriteResult> {
    const command: RetryCompensation = { type: 'RetryCompensation', rollbackId, toolCallId };
    return writeSession(this.context, caller, sessionId, options, () => ({ sessionId, command }), decideAlone(this.context, caller, command), command.type);
  }
}
