import { Counter, Gauge, Histogram } from 'prom-client';
import { createMetricsRegistry, registerSagaMetrics, registerStoreMetrics, registerSubscriberLag, type SubscriberProgress } from '@rewind/observability';

/**
 * Prometheus metrics of one process. Nothing here carries a tenant or session id, so the
 * endpoint can be scraped without an API key.
 */
export class RewindMetrics {
  readonly registry = createMetricsRegistry();
  readonly httpDuration = new Histogram({
    name: 'rewind_http_request_duration_seconds',
    help: 'HTTP requests by route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly eventsAppended = new Counter({
    name: 'rewind_events_appended_total',
    help: 'Events committed by this process, by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  /** Event write latency and snapshot outcomes (measured on the store itself, see meteredEventStore) and restore time. */
  readonly store = registerStoreMetrics(this.registry);
  /** Compensation outcomes and rollback durations, from the events this process commits. */
  readonly saga = registerSagaMetrics(this.registry);
  private readonly lags = new Map<string, () => Promise<number>>();
  private readonly subscribers = new Map<string, () => Promise<Omit<SubscriberProgress, 'name'>>>();

  constructor() {
    registerSubscriberLag(this.registry, this.lags);
  }

  /** A subscriber reports its lag (the global log's head minus its checkpoint) on each scrape. */
  registerLag(subscriber: string, lag: () => Promise<number>): void {
    this.lags.set(subscriber, lag);
  }

  /** A subscriber whose checkpoint is known too: its lag is scraped, and readiness watches it for stalls. */
  registerSubscriber(subscriber: string, progress: () => Promise<Omit<SubscriberProgress, 'name'>>): void {
    this.subscribers.set(subscriber, progress);
    this.registerLag(subscriber, async () => (await progress()).lag);
  }

  /** Where every registered subscriber stands now (for /health/ready). */
  async subscriberProgress(): Promise<SubscriberProgress[]> {
    return Promise.all([...this.subscribers].map(async ([name, read]) => ({ name, ...(await read()) })));
  }

  gauge(name: string, help: string, read: () => Promise<number> | number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }

  /** A gauge with one label, its series read on each scrape (e.g. memory items per embedding model). */
  labelledGauge(name: string, help: string, label: string, read: () => Promise<Record<string, number>>): void {
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [value, n] of Object.entries(await read())) this.set({ [label]: value }, n);
      },
    });
  }
}
