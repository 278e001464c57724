import type { CreateCheckpoint } from '@rewind/domain';
import type { CreateCheckpointCommand } from '../impl/session-write-commands';
import type { WriteResult } from '../write-request';
import { decideAlone } from './decide-alone';
import { writeSession, type SessionWriteContext } from './session-write';

/** Labels the current head. */
export class CreateCheckpointHandler {
  constructor(private readonly context: SessionWriteContext) {}

  execute({ caller, sessionId, label, options }: CreateCheckpointCommand): Promise<WriteResult> {
    const command: CreateCheckpoint = { type: 'CreateCheckpoint', label };
    return writeSession(this.context, caller, sessionId, options, () => ({ sessionId, command }), decideAlone(this.context, caller, command), command.type);
  }
}
