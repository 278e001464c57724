import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { RewindConfig } from '@rewind/config';
import type { EventStore } from '@rewind/event-store';
import type { Backend } from '@rewind/runtime';
import { checkReadiness, migrationsApplied, storeReachable, subscribersMoving, SubscriberStallWatch, type Readiness } from '@rewind/observability';
import type { MemoryRuntime } from '@rewind/memory/runtime';
import { BACKEND, EVENT_STORE, REWIND_CONFIG } from '../../infrastructure/tokens';
import { memoryModelLoaded } from '../../memory/memory-readiness';
import { MEMORY_RUNTIME } from '../../memory/memory-runtime.provider';
import { RewindMetrics } from '../../metrics/metrics';
import { ReadModelsService } from '../../projections/read-models.service';
import { ReadinessQuery } from './readiness.query';

/** A probe that does not answer in this time is a failed probe (Kubernetes' own default timeout is 1 s). */
const CHECK_TIMEOUT_MS = 900;

@QueryHandler(ReadinessQuery)
export class ReadinessHandler implements IQueryHandler<ReadinessQuery, Readiness> {
  private readonly stallWatch: SubscriberStallWatch;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(BACKEND) private readonly backend: Backend,
    @Inject(REWIND_CONFIG) config: RewindConfig,
    private readonly readModels: ReadModelsService,
    private readonly metrics: RewindMetrics,
    @Inject(MEMORY_RUNTIME) private readonly memory: MemoryRuntime | null,
  ) {
    this.stallWatch = new SubscriberStallWatch(config.readyStallSeconds * 1000);
  }

  execute(): Promise<Readiness> {
    return checkReadiness(
      [
        storeReachable(() => this.store.lastPosition()),
        migrationsApplied(() => this.pendingMigrations()),
        subscribersMoving(this.stallWatch, () => this.metrics.subscriberProgress()),
        ...(this.memory ? [memoryModelLoaded(this.memory)] : []),
      ],
      CHECK_TIMEOUT_MS,
    );
  }

  /** The event store's schema (PostgreSQL; the SQLite file creates its tables when opened) and the read models'. */
  private async pendingMigrations(): Promise<string[]> {
    const pending = await this.backend.pendingMigrations();
    if (await this.readModels.db.dataSource.showMigrations()) pending.push('read models (TypeORM)');
    return pending;
  }
}
