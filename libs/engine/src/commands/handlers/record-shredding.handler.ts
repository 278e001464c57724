import type { RecordShredding } from '@rewind/domain';
import type { RecordShreddingCommand } from '../impl/session-write-commands';
import type { WriteResult } from '../write-request';
import { decideAlone } from './decide-alone';
import { writeSession, type SessionWriteContext } from './session-write';

/** Records destroyed encryption keys (accepted even while a rollback runs). */
export class RecordShreddingHandler {
  constructor(private readonly context: SessionWriteContext) {}

  execute({ caller, sessionId, keyIds, reason, options }: RecordShreddingCommand): Promise<WriteResult> {
    const command: RecordShredding = { type: 'RecordShredding', keyIds, reason };
    return writeSession(this.context, caller, sessionId, options, () => ({ sessionId, command }), decideAlone(this.context, caller, command), command.type);
  }
}
