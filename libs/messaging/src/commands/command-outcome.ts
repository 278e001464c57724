import type { BusMessage, DeliveredMessage } from '../message-bus';
import { signatureHeaders, type SigningKey } from '../signing/envelope-signature';
import type { CommandEnvelope } from './command-envelope';
import type { CommandErrorBody } from './command-errors';

export type CommandStatus = 'applied' | 'duplicate' | 'rejected';

/** The value of a `rewind.command-results` message (key = commandId). */
export interface CommandResultMessage {
  /** null only when the message was so broken that it had no usable commandId. */
  commandId: string | null;
  status: CommandStatus;
  /** applied / duplicate: what HTTP answers for the same command (the write result, or `{dryRun, plan}`). */
  result?: unknown;
  /** rejected: the HTTP error shape. */
  error?: CommandErrorBody;
  /** Where the command was read: lets you match a result whose commandId is null. */
  source: { topic: string; partition: number; offset: string };
}

/** Headers added to a dead-lettered message (its key, value and own headers are kept as they were). */
export const DLQ_HEADERS = {
  errorCode: 'error-code',
  errorMessage: 'error-message',
  originalTopic: 'original-topic',
  originalPartition: 'original-partition',
  originalOffset: 'original-offset',
  /** How many times processing was attempted (transient failures). */
  attempts: 'attempts',
  failedAt: 'failed-at',
} as const;

/** Kafka header values are small strings: keep error messages readable but bounded. */
const headerSafe = (text: string, max = 1_000) => (text.length > max ? `${text.slice(0, max - 3)}...` : text);

export function resultMessage(result: CommandResultMessage): BusMessage {
  return {
    key: result.commandId,
    value: JSON.stringify(result),
    headers: { status: result.status, 'content-type': 'application/json', ...(result.error ? { 'error-code': result.error.code } : {}) },
  };
}

export function deadLetterMessage(original: DeliveredMessage, error: CommandErrorBody, attempts: number): BusMessage {
  return {
    key: original.key,
    value: original.value,
    headers: {
      ...original.headers,
      [DLQ_HEADERS.errorCode]: error.code,
      [DLQ_HEADERS.errorMessage]: headerSafe(error.message),
      [DLQ_HEADERS.originalTopic]: original.topic,
      [DLQ_HEADERS.originalPartition]: String(original.partition),
      [DLQ_HEADERS.originalOffset]: original.offset,
      [DLQ_HEADERS.attempts]: String(attempts),
      [DLQ_HEADERS.failedAt]: new Date().toISOString(),
    },
  };
}

/**
 * A signed command message for `rewind.commands`, as a producer (an agent runtime, the
 * SDK, a test) sends it: key = sessionId, value = the envelope's JSON, signature headers.
 */
export function commandMessage(envelope: CommandEnvelope, key: SigningKey): BusMessage {
  const value = JSON.stringify(envelope);
  return { key: envelope.sessionId, value, headers: { 'content-type': 'application/json', ...signatureHeaders(value, key) } };
}
