import type { CompensationChannel as ChannelName, JsonValue } from '@rewind/domain';

export interface CompensationRequest {
  /** The same for every attempt at one effect: the compensator must apply it once. */
  idempotencyKey: string;
  tenantId: string;
  sessionId: string;
  rollbackId: string;
  toolCallId: string;
  tool: string;
  /** Filled from the template: URL, topic or handler name. */
  target: string;
  payload: JsonValue;
  timeoutMs: number;
  replyTopic?: string;
}

export type CompensationResult = { status: 'applied'; response: JsonValue } | { status: 'failed'; retryable: boolean; error: string; retryAfterMs?: number };

/** One way to reach a compensator. */
export interface CompensationChannel {
  readonly name: ChannelName;
  send(request: CompensationRequest): Promise<CompensationResult>;
}
