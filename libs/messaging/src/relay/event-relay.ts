import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { EventStore, StoredEvent } from '@rewind/event-store';
import {
  countEventsAfter,
  StopFollowing,
  SubscriptionLoop,
  type CheckpointStore,
  type LogBatch,
  type LogSubscription,
  type SubscriptionHub,
} from '@rewind/event-store/subscriptions';
import { DEFAULT_TOPICS } from '../kafka/kafka-config';
import type { Logger } from '@rewind/config';
import { errorMessage, silentLogger } from '../kafka/logger';
import type { BusMessage, MessageBus } from '../message-bus';

/** The relay's publish spans (no-ops unless tracing is on); the bus's send spans nest under them. */
const tracer = trace.getTracer('rewind');

export interface EventRelayOptions {
  store: EventStore;
  bus: MessageBus;
  checkpoints: CheckpointStore;
  /** Default `rewind.events`. */
  topic?: string;
  /** Checkpoint (and lease) name; default `relay:<topic>`. */
  name?: string;
  /** Events read from the global log per round (default 500). */
  batchSize?: number;
  /** Largest message batch sent at once, in bytes of values (default 4 MiB; one event is always sent alone if bigger). */
  maxBatchBytes?: number;
  /** How often an idle relay looks for new events (default 20 ms; a commit in this process wakes it at once through the hub). */
  pollIntervalMs?: number;
  /** Backoff while the broker or the store fails (exponential with jitter). */
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
  /** Lease length: a standby worker takes over at most this long after the publisher died (default 10 000 ms). */
  leaseMs?: number;
  /** This relay's name in the lease (default host:pid:random). */
  owner?: string;
  logger?: Logger;
  /** The process's subscription hub (shared reads of the log, woken by commits). */
  hub?: SubscriptionHub;
  /**
   * For tests only. `afterPublish` runs after the broker acknowledged a batch and before
   * its checkpoint is saved; if it throws, the relay stops right there as if the process
   * had died (state `crashed`, checkpoint not saved).
   */
  testHooks?: { afterPublish?: (events: StoredEvent[]) => void | Promise<void> };
}

export type RelayState = 'idle' | 'running' | 'stopping' | 'stopped' | 'crashed';

export interface RelayStatus {
  state: RelayState;
  /** True while this relay holds the lease and publishes; false while it stands by. */
  leader: boolean;
  checkpoint: number;
  lastPosition: number;
  /** Committed events not yet published (a count of events). */
  lag: number;
  /** Messages this relay sent (duplicates after a crash included). */
  published: number;
}

/** The message for one stored event on `rewind.events`. */
export function eventMessage(event: StoredEvent): BusMessage {
  return {
    key: event.metadata.sessionId,
    value: JSON.stringify(event),
    headers: {
      type: event.type,
      tenant: event.metadata.tenantId,
      eventId: event.eventId,
      'global-position': String(event.globalPosition),
      'stream-version': String(event.streamVersion),
      'content-type': 'application/json',
    },
  };
}

/**
 * Publishes every committed event to Kafka in global order: a subscription of the global log
 * (one publisher at a time across workers, by the lease of its CheckpointStore) that publishes
 * each batch, and whose checkpoint is saved only once the broker acknowledged it. A crash in
 * between republishes that batch (duplicates; consumers dedupe by eventId) and never skips an
 * event. EventStore.readAll never steps past a position that may still commit, so no event
 * is missed under concurrent writers either.
 */
export class EventRelay {
  private readonly topic: string;
  private readonly name: string;
  private readonly loop: SubscriptionLoop;
  private state: RelayState = 'idle';
  private published = 0;

  constructor(private readonly options: EventRelayOptions) {
    this.topic = options.topic ?? DEFAULT_TOPICS.events;
    this.name = options.name ?? `relay:${this.topic}`;
    const subscription: LogSubscription = {
      name: this.name,
      checkpoint: { kind: 'store', store: options.checkpoints },
      exclusivity: { kind: 'lease', ttlMs: options.leaseMs ?? 10_000, ...(options.owner ? { owner: options.owner } : {}) },
      handle: (batch) => this.publish(batch),
    };
    const loopOptions = {
      batchSize: options.batchSize ?? 500,
      idleDelayMs: options.pollIntervalMs ?? 20,
      lingerMs: 0,
      backoff: { initialDelayMs: options.retry?.initialDelayMs ?? 200, maxDelayMs: options.retry?.maxDelayMs ?? 10_000 },
      logger: options.logger ?? silentLogger,
    };
    this.loop = options.hub ? options.hub.add(subscription, loopOptions) : new SubscriptionLoop(options.store, subscription, loopOptions);
  }

  get currentState(): RelayState {
    return this.state;
  }

  /** Starts the publishing loop in the background. */
  start(): void {
    if (this.state === 'running') return;
    this.state = 'running';
    this.loop.start();
  }

  /** Resolves when the loop has ended (stopped or crashed). */
  get done(): Promise<void> {
    return this.loop.done;
  }

  /** Finishes the batch in flight (publish + checkpoint), then gives the lease up. */
  async stop(): Promise<void> {
    if (this.state === 'crashed') return; // a "dead" process releases nothing
    if (this.state === 'running') this.state = 'stopping';
    await this.loop.stop();
    this.state = 'stopped';
  }

  /** Looks for new events now instead of at the next poll (e.g. right after an append in this process). */
  notify(): void {
    this.loop.poke();
  }

  /** Committed events not yet published (from the shared checkpoint, whichever worker publishes). */
  async lag(): Promise<number> {
    return countEventsAfter(this.options.store, await this.options.checkpoints.load(this.name));
  }

  async status(): Promise<RelayStatus> {
    const [lastPosition, checkpoint] = await Promise.all([this.options.store.lastPosition(), this.options.checkpoints.load(this.name)]);
    const leader = this.loop.runtime().state === 'running';
    return { state: this.state, leader, checkpoint, lastPosition, lag: await countEventsAfter(this.options.store, checkpoint), published: this.published };
  }

  private chunks(events: readonly StoredEvent[]): { events: StoredEvent[]; messages: BusMessage[] }[] {
    const max = this.options.maxBatchBytes ?? 4 * 1024 * 1024;
    const chunks: { events: StoredEvent[]; messages: BusMessage[] }[] = [];
    let current: { events: StoredEvent[]; messages: BusMessage[] } = { events: [], messages: [] };
    let bytes = 0;
    for (const event of events) {
      const message = eventMessage(event);
      const size = Buffer.byteLength(message.value);
      if (current.events.length > 0 && bytes + size > max) {
        chunks.push(current);
        current = { events: [], messages: [] };
        bytes = 0;
      }
      current.events.push(event);
      current.messages.push(message);
      bytes += size;
    }
    if (current.events.length > 0) chunks.push(current);
    return chunks;
  }

  /**
   * One send for the chunk, and a `rewind.relay.publish` span per write it carries: a child of
   * the write's span (the traceparent its events keep in their metadata), or of the relay's own
   * context for events written without a sampled trace. Each message carries its write's span
   * as `traceparent`, so its consumers continue the write's trace; the send nests under one of them.
   */
  private async publishInSpans(chunk: { events: StoredEvent[]; messages: BusMessage[] }): Promise<void> {
    const byWrite = new Map<string, StoredEvent[]>();
    for (const event of chunk.events) {
      const key = event.metadata.traceparent ?? '';
      const events = byWrite.get(key);
      if (events) events.push(event);
      else byWrite.set(key, [event]);
    }
    const spans = new Map<string, Span>();
    for (const [traceparent, events] of byWrite) {
      const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : context.active();
      const attributes = {
        'messaging.destination.name': this.topic,
        'messaging.batch.message_count': events.length,
        'rewind.global_position.first': events[0]!.globalPosition,
        'rewind.global_position.last': events[events.length - 1]!.globalPosition,
      };
      spans.set(traceparent, tracer.startSpan('rewind.relay.publish', { attributes }, parent));
    }
    // The send nests under a sampled publish span if there is one.
    const sendParent = [...spans.values()].find((span) => span.isRecording()) ?? spans.values().next().value!;
    // Tracing off (or nothing recorded): the messages stay as they are.
    const messages = sendParent.isRecording()
      ? chunk.messages.map((message, i) => ({
          ...message,
          traceContext: trace.setSpan(ROOT_CONTEXT, spans.get(chunk.events[i]!.metadata.traceparent ?? '')!),
        }))
      : chunk.messages;
    try {
      await context.with(trace.setSpan(context.active(), sendParent), () => this.options.bus.publish(this.topic, messages));
    } catch (error) {
      for (const span of spans.values()) span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
      throw error;
    } finally {
      for (const span of spans.values()) span.end();
    }
  }

  /** Publishes a batch chunk by chunk; each acknowledged chunk's checkpoint is saved before the next (the loop saves the last). */
  private async publish(batch: LogBatch): Promise<number> {
    let last = batch.after;
    for (const chunk of this.chunks(batch.events)) {
      if (last !== batch.after) await this.options.checkpoints.save(this.name, last);
      await this.publishInSpans(chunk);
      this.published += chunk.messages.length;
      last = chunk.events[chunk.events.length - 1]!.globalPosition;
      const hook = this.options.testHooks?.afterPublish;
      if (hook) {
        try {
          await hook(chunk.events);
        } catch (error) {
          this.state = 'crashed';
          this.options.logger?.warn(
            `Relay stopped by a test hook after publishing up to position ${last}, before saving the checkpoint: ${errorMessage(error)}`,
          );
          throw new StopFollowing(errorMessage(error));
        }
      }
    }
    return last;
  }
}
