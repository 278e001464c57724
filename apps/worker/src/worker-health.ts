import { countEventsAfter } from '@rewind/event-store/subscriptions';
import type { EventStore } from '@rewind/event-store';
import type { CheckpointStore } from '@rewind/event-store/subscriptions';
import {
  checkReadiness,
  createMetricsRegistry,
  migrationsApplied,
  registerSubscriberLag,
  startHealthServer,
  storeReachable,
  subscribersMoving,
  SubscriberStallWatch,
  type HealthServer,
  type SubscriberProgress,
} from '@rewind/observability';
import type { ProjectionSupervisor, ReadModelDatabase } from '@rewind/projections';
import type { Registry } from 'prom-client';

/** A probe that does not answer in this time is a failed probe (Kubernetes' own default timeout is 1 s). */
const CHECK_TIMEOUT_MS = 900;

export interface WorkerHealthParts {
  store: EventStore;
  /** The event store's migrations not applied yet (Backend.pendingMigrations). */
  pendingMigrations(): Promise<string[]>;
  checkpoints: CheckpointStore;
  /** The events topic when this worker runs the relay. */
  relayTopic: string | null;
  projections: { supervisor: ProjectionSupervisor; db: ReadModelDatabase } | null;
}

/** What the worker's HTTP server reads: readiness checks and the metrics registry, over the parts the worker started. */
export class WorkerHealth {
  private readonly stallWatch: SubscriberStallWatch;

  constructor(
    private readonly parts: WorkerHealthParts,
    stallThresholdMs: number,
    readonly registry: Registry = createMetricsRegistry(),
  ) {
    this.stallWatch = new SubscriberStallWatch(stallThresholdMs);
    const lags = new Map<string, () => Promise<number>>();
    for (const name of this.subscriberNames()) lags.set(name, async () => (await this.progressOf(name)).lag);
    registerSubscriberLag(this.registry, lags);
  }

  ready() {
    return checkReadiness(
      [
        storeReachable(() => this.parts.store.lastPosition()),
        migrationsApplied(() => this.pendingMigrations()),
        subscribersMoving(this.stallWatch, () => Promise.all(this.subscriberNames().map((n) => this.progressOf(n)))),
      ],
      CHECK_TIMEOUT_MS,
    );
  }

  /** Serves /health/live, /health/ready and /metrics on the given address. */
  serve(port: number, host: string): Promise<HealthServer> {
    return startHealthServer({ port, host, ready: () => this.ready(), metrics: () => this.registry.metrics(), metricsContentType: this.registry.contentType });
  }

  private subscriberNames(): string[] {
    const names = [...(this.parts.projections?.supervisor.runners.keys() ?? [])].map((n) => `projection:${n}`);
    return this.parts.relayTopic ? [...names, `relay:${this.parts.relayTopic}`] : names;
  }

  private async progressOf(name: string): Promise<SubscriberProgress> {
    if (name.startsWith('relay:')) {
      const position = await this.parts.checkpoints.load(name);
      return { name, position, lag: await countEventsAfter(this.parts.store, position) };
    }
    const { position, lag } = await this.parts.projections!.supervisor.runner(name.slice('projection:'.length)).status();
    return { name, position, lag };
  }

  private async pendingMigrations(): Promise<string[]> {
    const pending = await this.parts.pendingMigrations();
    if (this.parts.projections && (await this.parts.projections.db.dataSource.showMigrations())) pending.push('read models (TypeORM)');
    return pending;
  }
}
