import type { Context } from '@opentelemetry/api';

/**
 * The message log port: an in-process bus (embedded default) and Kafka (distributed)
 * implement it, and pass the same contract suite (`testing/message-bus.contract.ts`).
 */

export interface BusMessage {
  /** Messages with the same key keep their order (Kafka: same partition). */
  key: string | null;
  value: string;
  headers: Record<string, string>;
  /**
   * The span this message continues (Kafka: written as its `traceparent` header), when it is
   * not the publish's own: the relay gives each event the span that continues its write's trace.
   */
  traceContext?: Context;
}

export interface DeliveredMessage extends BusMessage {
  topic: string;
  partition: number;
  offset: string;
}

export type MessageHandler = (message: DeliveredMessage) => Promise<void>;

export interface Subscription {
  /** Stops delivery after in-flight handlers finish; committed offsets are kept. */
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Consumers in one group share the topic's messages; each group gets every message. */
  groupId: string;
  /** Where a new group starts: only new messages (default) or from the beginning. */
  fromBeginning?: boolean;
}

export interface MessageBus {
  publish(topic: string, messages: BusMessage[]): Promise<void>;
  /**
   * Delivers each message to `handler`, in order per key. A message counts as consumed once
   * its handler resolves; a handler that throws gets the message again (at-least-once).
   */
  subscribe(topic: string, options: SubscribeOptions, handler: MessageHandler): Promise<Subscription>;
  close(): Promise<void>;
}
