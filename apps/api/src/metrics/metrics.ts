import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of one process. Nothing here carries a tenant or session id, so the
 * endpoint can be scraped without an API key.
 */
export class RewindMetrics {
  readonly registry = new Registry();
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
  private readonly lags = new Map<string, () => Promise<number>>();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'rewind_process_' });
    const lags = this.lags;
    new Gauge({
      name: 'rewind_subscriber_lag_events',
      help: 'How far each subscriber of the global log (projections, relay) is behind its head',
      labelNames: ['subscriber'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [name, lag] of lags) this.set({ subscriber: name }, await lag().catch(() => -1));
      },
    });
  }

  /** A subscriber reports its lag (the global log's head minus its checkpoint) on each scrape. */
  registerLag(subscriber: string, lag: () => Promise<number>): void {
    this.lags.set(subscriber, lag);
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
}
