import type { JsonValue } from '@rewind/domain';
import type { CompensationChannel, CompensationRequest, CompensationResult } from '../compensation-channel';

export type InlineCompensator = (request: CompensationRequest) => Promise<JsonValue | void> | JsonValue | void;

/** Thrown by an inline compensator to say whether trying again could help. */
export class CompensationError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean = true,
  ) {
    super(message);
    this.name = 'CompensationError';
  }
}

/** Compensators registered in-process by name (library mode and tests). */
export class InlineCompensationChannel implements CompensationChannel {
  readonly name = 'inline' as const;
  private readonly handlers = new Map<string, InlineCompensator>();

  register(name: string, handler: InlineCompensator): void {
    this.handlers.set(name, handler);
  }

  async send(request: CompensationRequest): Promise<CompensationResult> {
    const handler = this.handlers.get(request.target);
    if (!handler) {
      return { status: 'failed', retryable: false, error: `No inline compensator is registered as "${request.target}": register it before rolling back.` };
    }
    try {
      return { status: 'applied', response: (await handler(request)) ?? null };
    } catch (error) {
      const retryable = error instanceof CompensationError ? error.retryable : true;
      return { status: 'failed', retryable, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
