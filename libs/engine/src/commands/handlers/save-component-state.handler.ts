import { saveComponentState } from '@rewind/domain';
import type { SaveComponentStateCommand } from '../impl/session-write-commands';
import type { WriteResult } from '../write-request';
import { decideAlone } from './decide-alone';
import { writeSession, type SessionWriteContext } from './session-write';

/** A component's own state, kept as a reserved context variable of the session. */
export class SaveComponentStateHandler {
  constructor(private readonly context: SessionWriteContext) {}

  async execute({ caller, sessionId, name, state, options }: SaveComponentStateCommand): Promise<WriteResult> {
    const command = saveComponentState(name, state);
    return writeSession(this.context, caller, sessionId, options, () => ({ sessionId, command }), decideAlone(this.context, caller, command), command.type);
  }
}
