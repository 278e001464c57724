import type { StartSession } from '@rewind/domain';
import type { StartSessionCommand } from '../impl/session-write-commands';
import type { WriteResult } from '../write-request';
import { decideAlone } from './decide-alone';
import { writeSession, type SessionWriteContext } from './session-write';

export class StartSessionHandler {
  constructor(private readonly context: SessionWriteContext) {}

  execute({ caller, input, options }: StartSessionCommand): Promise<WriteResult> {
    const sessionId = input.sessionId ?? this.context.pipeline.newId();
    const command: StartSession = { type: 'StartSession', sessionId, title: input.title ?? null, metadata: input.metadata ?? {} };
    return writeSession(
      this.context,
      caller,
      sessionId,
      options,
      () => ({ op: 'StartSession', input }),
      decideAlone(this.context, caller, command),
      command.type,
    );
  }
}
