import type { Attributes } from '@opentelemetry/api';
import { Counter, Histogram, type Registry } from 'prom-client';
import { inSpan } from './tracing';

/** What the metered store needs of an event store: the two writes it times. */
interface Writes {
  append(...args: never[]): Promise<unknown>;
  saveSnapshot(...args: never[]): Promise<void>;
}

export interface StoreMetrics {
  appendDuration: Histogram<'outcome'>;
  snapshotWrites: Counter<'outcome'>;
  /** Fed by the session runtime's `onRestored`. */
  restoreDuration: Histogram;
}

/** Buckets of the restore-time histogram (seconds): a snapshot hit is sub-millisecond, a long replay hundreds of ms. */
export const RESTORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Seed 001's store metrics: event write latency (alarm line 50 ms at p99), snapshot success rate (target > 99.9 %), restore time. */
export function registerStoreMetrics(registry: Registry): StoreMetrics {
  return {
    appendDuration: new Histogram({
      name: 'rewind_event_append_duration_seconds',
      help: 'Time to append events to the event store (one call, acknowledged), by outcome (ok, conflict, error)',
      labelNames: ['outcome'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    snapshotWrites: new Counter({
      name: 'rewind_snapshot_writes_total',
      help: 'Snapshot writes by outcome (ok, failed); a failed one is only a missed cache, nothing is lost',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    restoreDuration: new Histogram({
      name: 'rewind_session_restore_duration_seconds',
      help: "Time to rebuild a session's state from the store (snapshot plus the events after it)",
      buckets: RESTORE_BUCKETS,
      registers: [registry],
    }),
  };
}

/** `append(streamId, events, options)`'s stream and event count, as span attributes. */
function appendAttributes(args: readonly unknown[]): Attributes {
  const [streamId, events] = args;
  return {
    ...(typeof streamId === 'string' ? { 'rewind.stream_id': streamId } : {}),
    ...(Array.isArray(events) ? { 'rewind.event_count': events.length } : {}),
  };
}

/**
 * The same store, its appends timed and its snapshot writes counted. A Proxy rather than a
 * wrapper class so that the adapter stays itself for everything else (`instanceof`, its pool,
 * its optional methods), with every other call going straight to it.
 */
export function meteredEventStore<S extends Writes>(store: S, metrics: StoreMetrics): S {
  // The span names the stream and how many events the append carries (`rewind.*`: the semantic conventions have no event store).
  const append = (...args: never[]) => inSpan('rewind.event-store.append', appendAttributes(args), () => timedAppend(...args));
  const timedAppend = async (...args: never[]) => {
    const stop = metrics.appendDuration.startTimer();
    try {
      const result = await store.append(...args);
      stop({ outcome: 'ok' });
      return result;
    } catch (error) {
      stop({ outcome: (error as Error)?.name === 'ConcurrencyError' ? 'conflict' : 'error' });
      throw error;
    }
  };
  const saveSnapshot = async (...args: never[]) => {
    try {
      await store.saveSnapshot(...args);
      metrics.snapshotWrites.inc({ outcome: 'ok' });
    } catch (error) {
      metrics.snapshotWrites.inc({ outcome: 'failed' });
      throw error;
    }
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'append') return append;
      if (property === 'saveSnapshot') return saveSnapshot;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
