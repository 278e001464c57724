import { randomBytes } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { hostname } from 'node:os';
import type { EventStore, StoredEvent } from '@rewind/event-store';
import { DEFAULT_TOPICS } from '../kafka/kafka-config';
import { errorMessage, silentLogger, type MessagingLogger } from '../kafka/logger';
import type { BusMessage, MessageBus } from '../message-bus';
import type { CheckpointStore } from './checkpoint-store';

/** The relay's publish spans (no-ops unless tracing is on); the kafkajs instrumentation's send spans nest under them. */
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
  /** How often an idle relay looks for new events (default 20 ms). */
  pollIntervalMs?: number;
  /** Backoff while the broker or the store fails (exponential with jitter). */
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
  /** Lease length: a standby worker takes over at most this long after the publisher died (default 10 000 ms). */
  leaseMs?: number;
  /** This relay's name in the lease (default host:pid:random). */
  owner?: string;
  logger?: MessagingLogger;
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
  /** Committed events not yet published: lastPosition - checkpoint. */
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
 * Publishes every committed event to Kafka in global order: reads the store's global log
 * after its checkpoint, publishes a batch, and saves the checkpoint only once the broker
 * acknowledged it. A crash in between republishes that batch (duplicates; consumers dedupe
 * by eventId) and never skips an event. EventStore.readAll never steps past a position
 * that may still commit, so no event is missed under concurrent writers either.
 */
export class EventRelay {
  private readonly topic: string;
  private readonly name: string;
  private readonly owner: string;
  private readonly logger: MessagingLogger;
  private state: RelayState = 'idle';
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private leader = false;
  private leaseCheckedAt = 0;
  private position = 0;
  private failures = 0;
  private published = 0;

  constructor(private readonly options: EventRelayOptions) {
    this.topic = options.topic ?? DEFAULT_TOPICS.events;
    this.name = options.name ?? `relay:${this.topic}`;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.logger = options.logger ?? silentLogger;
  }

  get currentState(): RelayState {
    return this.state;
  }

  /** Starts the publishing loop in the background. */
  start(): void {
    if (this.state === 'running') return;
    this.state = 'running';
    this.loop = this.run();
  }

  /** Resolves when the loop has ended (stopped or crashed). */
  get done(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  /** Finishes the batch in flight (publish + checkpoint), then gives the lease up. */
  async stop(): Promise<void> {
    if (this.state === 'running') this.state = 'stopping';
    this.wake?.();
    await this.loop;
    if (this.leader) await this.options.checkpoints.release(this.name, this.owner).catch(() => {});
    this.leader = false;
  }

  /** Looks for new events now instead of at the next poll (e.g. right after an append in this process). */
  notify(): void {
    this.wake?.();
  }

  /** Committed events not yet published (from the shared checkpoint, whichever worker publishes). */
  async lag(): Promise<number> {
    return Math.max(0, (await this.options.store.lastPosition()) - (await this.options.checkpoints.load(this.name)));
  }

  async status(): Promise<RelayStatus> {
    const [lastPosition, checkpoint] = await Promise.all([this.options.store.lastPosition(), this.options.checkpoints.load(this.name)]);
    return { state: this.state, leader: this.leader, checkpoint, lastPosition, lag: Math.max(0, lastPosition - checkpoint), published: this.published };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private backoff(): number {
    const initial = this.options.retry?.initialDelayMs ?? 200;
    const max = this.options.retry?.maxDelayMs ?? 10_000;
    return Math.round(Math.min(max, initial * 2 ** Math.min(this.failures - 1, 20)) * (0.8 + Math.random() * 0.4));
  }

  /** Takes or renews the lease (renewed at a third of its length, not on every poll). */
  private async holdLease(): Promise<boolean> {
    const leaseMs = this.options.leaseMs ?? 10_000;
    if (this.leader && Date.now() - this.leaseCheckedAt < leaseMs / 3) return true;
    const first = this.leaseCheckedAt === 0;
    const held = await this.options.checkpoints.acquire(this.name, this.owner, leaseMs);
    this.leaseCheckedAt = Date.now();
    if (held && !this.leader) {
      this.position = await this.options.checkpoints.load(this.name);
      this.logger.log(`Publishing committed events to "${this.topic}" from global position ${this.position} (relay ${this.owner}).`);
    } else if (!held && this.leader) {
      this.logger.warn(`Another worker took over publishing to "${this.topic}"; this one stands by.`);
    } else if (!held && first) {
      this.logger.log(`Another worker publishes to "${this.topic}"; this one stands by and takes over if it stops.`);
    }
    this.leader = held;
    return held;
  }

  private chunks(events: StoredEvent[]): { events: StoredEvent[]; messages: BusMessage[] }[] {
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

  private async run(): Promise<void> {
    const poll = this.options.pollIntervalMs ?? 20;
    const leaseMs = this.options.leaseMs ?? 10_000;
    while (this.state === 'running') {
      try {
        if (!(await this.holdLease())) {
          await this.sleep(Math.min(1_000, leaseMs / 3));
          continue;
        }
        const events = await this.options.store.readAll({ after: this.position, limit: this.options.batchSize ?? 500 });
        if (events.length === 0) {
          this.failures = 0;
          await this.sleep(poll);
          continue;
        }
        for (const chunk of this.chunks(events)) {
          const attributes = {
            'messaging.destination.name': this.topic,
            'messaging.batch.message_count': chunk.messages.length,
            'rewind.global_position.first': chunk.events[0]!.globalPosition,
            'rewind.global_position.last': chunk.events[chunk.events.length - 1]!.globalPosition,
          };
          await tracer.startActiveSpan('rewind.relay.publish', { attributes }, (span) =>
            this.options.bus.publish(this.topic, chunk.messages).finally(() => span.end()),
          );
          this.published += chunk.messages.length;
          const last = chunk.events[chunk.events.length - 1]!.globalPosition;
          const hook = this.options.testHooks?.afterPublish;
          if (hook) {
            try {
              await hook(chunk.events);
            } catch (error) {
              this.state = 'crashed';
              this.logger.warn(`Relay stopped by a test hook after publishing up to position ${last}, before saving the checkpoint: ${errorMessage(error)}`);
              return;
            }
          }
          await this.options.checkpoints.save(this.name, last);
          this.position = last;
          if (this.failures > 0) this.logger.log(`Publishing to "${this.topic}" works again; caught up to global position ${last}.`);
          this.failures = 0;
        }
      } catch (error) {
        this.failures++;
        const delay = this.backoff();
        // A warning: the relay never gives up (it retries with backoff and skips nothing); the lag metric says how far behind it is.
        this.logger.warn(
          `Could not publish events after global position ${this.position} to "${this.topic}" (attempt ${this.failures}): ${errorMessage(error)} ` +
            `Retrying in ${delay} ms; no event is skipped, and those already sent may be sent again.`,
        );
        // Keep the lease while waiting: this relay still owns the unpublished batch.
        await this.sleep(delay);
      }
    }
    if (this.state === 'stopping') this.state = 'stopped';
  }
}
