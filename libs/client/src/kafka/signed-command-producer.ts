import { createHmac, randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';

/** A Kafka signing key (`rewind signing-keys create --tenant <t>` prints one). */
export interface SigningKey {
  keyId: string;
  secret: string;
}

/** Command types the worker accepts on `rewind.commands` (payload = the HTTP body plus the path parameters). */
export type CommandType =
  | 'StartSession'
  | 'RecordMessage'
  | 'StartToolCall'
  | 'SucceedToolCall'
  | 'FailToolCall'
  | 'WriteMemory'
  | 'EraseMemory'
  | 'SetContextVariable'
  | 'PushTask'
  | 'PopTask'
  | 'InterruptTurn'
  | 'RecordThought'
  | 'CreateCheckpoint'
  | 'RecordSteps'
  | 'Rollback'
  | 'Undo'
  | 'Redo';

export interface CommandEnvelope {
  commandId: string;
  type: CommandType;
  tenantId: string;
  sessionId: string;
  expectedVersion?: number;
  payload?: Record<string, unknown>;
}

export const KEY_ID_HEADER = 'rewind-key-id';
export const SIGNATURE_HEADER = 'rewind-signature';

/** `v1=<hex HMAC-SHA256(secret, value)>` over the exact bytes sent (the worker recomputes it). */
export function signCommand(value: string, key: SigningKey): Record<string, string> {
  return { [KEY_ID_HEADER]: key.keyId, [SIGNATURE_HEADER]: `v1=${createHmac('sha256', key.secret).update(value, 'utf8').digest('hex')}` };
}

/** A signed message for `rewind.commands`: key = sessionId (per-session order), value = the envelope's JSON. */
export function signedCommandMessage(envelope: CommandEnvelope, key: SigningKey): { key: string; value: string; headers: Record<string, string> } {
  const value = JSON.stringify(envelope);
  return { key: envelope.sessionId, value, headers: { 'content-type': 'application/json', ...signCommand(value, key) } };
}

export interface SignedCommandProducerOptions {
  /** A connected kafkajs producer (kafkajs is an optional peer dependency of @rewind/client). */
  producer: Pick<Producer, 'send'>;
  key: SigningKey;
  /** The key's tenant: every envelope names it (the worker refuses another). */
  tenantId: string;
  /** Default `rewind.commands`. */
  topic?: string;
  newCommandId?: () => string;
}

export interface SendOptions {
  /** Default: a new UUID. Resending with the same commandId applies the command once. */
  commandId?: string;
  /** Like HTTP If-Match: the stream version you believe is current (0: the session must not exist yet). */
  expectedVersion?: number;
}

/**
 * Publishes signed command envelopes. Returns the commandId: the outcome arrives on
 * `rewind.command-results` keyed by it. A send that failed may be repeated with the same
 * commandId; the worker applies it once.
 */
export class SignedCommandProducer {
  private readonly topic: string;
  private readonly newCommandId: () => string;

  constructor(private readonly options: SignedCommandProducerOptions) {
    this.topic = options.topic ?? 'rewind.commands';
    this.newCommandId = options.newCommandId ?? randomUUID;
  }

  async send(type: CommandType, sessionId: string, payload: Record<string, unknown> = {}, options: SendOptions = {}): Promise<string> {
    const envelope: CommandEnvelope = {
      commandId: options.commandId ?? this.newCommandId(),
      type,
      tenantId: this.options.tenantId,
      sessionId,
      ...(options.expectedVersion !== undefined ? { expectedVersion: options.expectedVersion } : {}),
      payload,
    };
    await this.options.producer.send({ topic: this.topic, messages: [signedCommandMessage(envelope, this.options.key)] });
    return envelope.commandId;
  }
}
