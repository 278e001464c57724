import { randomUUID } from 'node:crypto';
import type { JsonValue } from '@rewind/domain';
import type { MessageBus, Subscription } from '@rewind/messaging';
import type { CompensationChannel, CompensationRequest, CompensationResult } from '../compensation-channel';
import { EgressRefused, EgressRules, STRICT_EGRESS, type EgressPolicy } from './egress-policy';

/** What a compensator publishes on the reply topic. */
export interface CompensationReply {
  idempotencyKey: string;
  status: 'applied' | 'failed';
  retryable?: boolean;
  response?: JsonValue;
  error?: string;
}

/**
 * The `kafka` channel, over the messaging port (in-process bus or Kafka): publishes the
 * request to the target topic (key = session id) and waits for the reply with the same
 * idempotency key on the reply topic, up to the timeout.
 */
export class BusCompensationChannel implements CompensationChannel {
  readonly name = 'kafka' as const;
  private readonly waiting = new Map<string, (reply: CompensationReply) => void>();
  private readonly subscriptions = new Map<string, Promise<Subscription>>();

  constructor(
    private readonly bus: MessageBus,
    private readonly instanceId: string = randomUUID(),
    policy: EgressPolicy = STRICT_EGRESS,
  ) {
    this.rules = new EgressRules(policy);
  }

  private readonly rules: EgressRules;

  private listen(replyTopic: string): Promise<Subscription> {
    let subscription = this.subscriptions.get(replyTopic);
    if (!subscription) {
      subscription = this.bus.subscribe(replyTopic, { groupId: `rewind-compensation-replies-${this.instanceId}` }, async (message) => {
        let reply: CompensationReply;
        try {
          reply = JSON.parse(message.value) as CompensationReply;
        } catch {
          return; // not ours to fix: a malformed reply is ignored and the request times out
        }
        this.waiting.get(reply.idempotencyKey)?.(reply);
      });
      this.subscriptions.set(replyTopic, subscription);
    }
    return subscription;
  }

  async send(request: CompensationRequest): Promise<CompensationResult> {
    const replyTopic = request.replyTopic ?? `${request.target}.replies`;
    try {
      this.rules.checkTopic(request.target);
      this.rules.checkTopic(replyTopic);
    } catch (error) {
      if (error instanceof EgressRefused) return { status: 'failed', retryable: false, error: `publish to ${request.target} refused: ${error.message}` };
      throw error;
    }
    await this.listen(replyTopic);
    const reply = new Promise<CompensationReply | null>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(request.idempotencyKey);
        resolve(null);
      }, request.timeoutMs);
      this.waiting.set(request.idempotencyKey, (r) => {
        clearTimeout(timer);
        this.waiting.delete(request.idempotencyKey);
        resolve(r);
      });
    });
    try {
      await this.bus.publish(request.target, [
        {
          key: request.sessionId,
          value: JSON.stringify({ ...request, replyTopic }),
          headers: { 'idempotency-key': request.idempotencyKey, 'rewind-rollback-id': request.rollbackId },
        },
      ]);
    } catch (error) {
      this.waiting.get(request.idempotencyKey)?.({
        idempotencyKey: request.idempotencyKey,
        status: 'failed',
        retryable: true,
        error: `publish to ${request.target} failed: ${(error as Error).message}`,
      });
    }
    const answer = await reply;
    if (!answer) return { status: 'failed', retryable: true, error: `no reply on ${replyTopic} within ${request.timeoutMs} ms` };
    if (answer.status === 'applied') return { status: 'applied', response: answer.response ?? null };
    return { status: 'failed', retryable: answer.retryable ?? true, error: answer.error ?? 'the compensator reported a failure' };
  }

  async close(): Promise<void> {
    for (const subscription of this.subscriptions.values()) await (await subscription).close();
  }
}
