import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/**
 * A registry with Node's default process metrics under their standard names
 * (process_cpu_seconds_total, nodejs_heap_size_used_bytes, ...), so stock dashboards and
 * alerts work unchanged; Rewind's own metrics are prefixed `rewind_`.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client's gauges named *_total break the exposition format's rule (only counters end in
  // _total; `promtool check metrics` refuses them). nodejs_active_{handles,requests,resources}
  // by type stay: their sum is the same number.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  return registry;
}

/** `rewind_subscriber_lag_events{subscriber}`: how far each subscriber of the global log is behind its head, read on each scrape (-1 when unreadable). */
export function registerSubscriberLag(registry: Registry, lags: Map<string, () => Promise<number>>): void {
  new Gauge({
    name: 'rewind_subscriber_lag_events',
    help: 'How far each subscriber of the global log (projections, relay) is behind its head',
    labelNames: ['subscriber'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const [name, lag] of lags) this.set({ subscriber: name }, await lag().catch(() => -1));
    },
  });
}
