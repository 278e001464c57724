import type { ResolveCompensation } from '@rewind/domain';
import type { ResolveCompensationCommand } from '../impl/session-write-commands';
import type { WriteResult } from '../write-request';
import { decideAlone } from './decide-alone';
import { writeSession, type SessionWriteContext } from './session-write';

/** An operator records a failed compensation as undone by hand. */
export class ResolveCompensationHandler {
  constructor(private readonly context: SessionWriteContext) {}

  execute({ caller, sessionId, rollbackId, toolCallId, note, options }: ResolveCompensationCommand): Promise<WriteResult> {
    const command: ResolveCompensation = { type: 'ResolveCompensation', rollbackId, toolCallId, note };
    return writeSession(this.context, caller, sessionId, options, () => ({ sessionId, command }), decideAlone(this.context, caller, command), command.type);
  }
}
