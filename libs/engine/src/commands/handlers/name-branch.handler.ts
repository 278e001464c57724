import type { NameBranch } from '@rewind/domain';
import type { NameBranchCommand } from '../impl/session-write-commands';
import type { WriteResult } from '../write-request';
import { decideAlone } from './decide-alone';
import { writeSession, type SessionWriteContext } from './session-write';

/** Names a branch by one of its steps (a record about the timeline, not a step). */
export class NameBranchHandler {
  constructor(private readonly context: SessionWriteContext) {}

  execute({ caller, sessionId, version, name, options }: NameBranchCommand): Promise<WriteResult> {
    const command: NameBranch = { type: 'NameBranch', version, name };
    return writeSession(this.context, caller, sessionId, options, () => ({ sessionId, command }), decideAlone(this.context, caller, command), command.type);
  }
}
