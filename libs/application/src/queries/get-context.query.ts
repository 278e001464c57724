import { Query } from '@nestjs/cqrs';
import type { ContextWindow, ContextWindowOptions } from '@rewind/domain';
import type { Caller } from '@rewind/engine';

export type SessionContext = ContextWindow & { sessionId: string; head: number };

/** The sanitized LLM context of a session's head path (or of version `at`), windowed to a budget. */
export class GetContextQuery extends Query<SessionContext> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly window: ContextWindowOptions & { at?: number } = {},
  ) {
    super();
  }
}
