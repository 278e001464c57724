import type { EffectKind, JsonValue, RetryPolicy } from '@rewind/domain';
import { nextDelay, parseRetryAfter } from '@rewind/sagas';

/** What an undo is given: the call's input and output, and a key that is the same on every attempt at this undo. */
export interface UndoCall<I, O> {
  input: I;
  output: O | null;
  /** Apply the undo at most once per key: after a crash the saga may send it again. */
  idempotencyKey: string;
  toolCallId: string;
}

/** How many times `run` is tried, and how long to wait in between (seed 004's `retry_operation`). */
export type ToolRetryPolicy = Pick<RetryPolicy, 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs'> & Partial<Pick<RetryPolicy, 'timeoutMs'>>;

/**
 * A tool registered once by name (seed 000's `@rollback_step`): its undo is found by the
 * tool's name, so a process that restarts in the middle of a rollback can finish it as
 * soon as the tools are registered again.
 */
export interface ToolDefinition<I extends JsonValue, O extends JsonValue | void> {
  run: (input: I, attempt: { attempt: number; toolCallId: string }) => Promise<O> | O;
  undo?: (call: UndoCall<I, O>) => Promise<unknown> | unknown;
  /** Default: `reversible` when `undo` is given, else `none`. */
  kind?: EffectKind;
  /** Retries `run` (and the undo) with exponential backoff and full jitter. Without it, `run` is tried once. */
  retry?: ToolRetryPolicy;
}

/**
 * Thrown by a tool's `run` (or undo) to say whether trying again could help, and when:
 * `retryAfterMs` (or an HTTP `Retry-After` value in `retryAfter`) wins over the backoff.
 * Any other error counts as retryable.
 */
export class ToolCallError extends Error {
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    readonly retryable: boolean = true,
    options: { retryAfterMs?: number; retryAfter?: string } = {},
  ) {
    super(message);
    this.name = 'ToolCallError';
    this.retryAfterMs = options.retryAfterMs ?? parseRetryAfter(options.retryAfter ?? null);
  }
}

export interface AttemptFailure {
  error: string;
  retryable: boolean;
  retryAfterMs: number | undefined;
}

export function describeFailure(error: unknown): AttemptFailure {
  if (error instanceof ToolCallError) return { error: error.message, retryable: error.retryable, retryAfterMs: error.retryAfterMs };
  return { error: error instanceof Error ? error.message : String(error), retryable: true, retryAfterMs: undefined };
}

/** The wait before attempt `attempt + 1`, or null when there is none (permanent error, attempts used up). */
export function waitBeforeNextAttempt(policy: ToolRetryPolicy | undefined, attempt: number, failure: AttemptFailure, random?: () => number): number | null {
  if (!policy || !failure.retryable || attempt >= policy.maxAttempts) return null;
  return nextDelay({ timeoutMs: 0, ...policy }, attempt, failure.retryAfterMs, random);
}

/** Why the last attempt was the last, for the error the caller sees and the event the audit log keeps. */
export function finalFailureMessage(tool: string, attempt: number, failure: AttemptFailure): string {
  if (!failure.retryable) return failure.error;
  return attempt > 1 ? `${tool} gave up after ${attempt} attempts: ${failure.error}` : failure.error;
}
