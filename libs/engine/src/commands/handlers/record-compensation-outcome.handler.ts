import type { RecordCompensationOutcome } from '@rewind/domain';
import type { RecordCompensationOutcomeCommand } from '../impl/session-write-commands';
import type { WriteResult } from '../write-request';
import { decideAlone } from './decide-alone';
import { assertSagaCaller, writeSession, type SessionWriteContext } from './session-write';

/** The saga's record of a compensation attempt: applied, failed for good, or failed with a retry to come. */
export class RecordCompensationOutcomeHandler {
  constructor(private readonly context: SessionWriteContext) {}

  async execute({ caller, sessionId, rollbackId, startedVersion, outcome, options }: RecordCompensationOutcomeCommand): Promise<WriteResult> {
    assertSagaCaller(caller, 'RecordCompensationOutcome');
    const command: RecordCompensationOutcome = { type: 'RecordCompensationOutcome', rollbackId, startedVersion, outcome };
    return writeSession(this.context, caller, sessionId, options, () => ({ sessionId, command }), decideAlone(this.context, caller, command), command.type);
  }
}
