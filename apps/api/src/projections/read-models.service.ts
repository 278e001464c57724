import { Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { EventStore } from '@rewind/event-store';
import { InvalidCursorError, ProjectionSupervisor, ReadModelQueries, type ReadModelDatabase, type ProjectionStatus } from '@rewind/projections';
import { ApiError } from '../common/api-error';
import type { SubscriptionHub } from '@rewind/event-store/subscriptions';
import { EVENT_STORE, SUBSCRIPTION_HUB } from '../infrastructure/tokens';
import { RewindMetrics } from '../metrics/metrics';
import { PROJECTIONS_OPTIONS, READ_MODEL_DATABASE } from './tokens';

export interface ProjectionsModuleOptions {
  /** Run the projection runners in this process (default true). */
  runRunners?: boolean;
  /** How long a query waits for its projection to reach the writes acknowledged before it, in ms (default 5000). */
  freshnessWaitMs?: number;
  /** Pause of an idle runner between polls, in ms (default 250; a query wakes it at once). */
  idleDelayMs?: number;
  /** Events per runner transaction (default 1000). On SQLite a batch runs synchronously: smaller batches, shorter event-loop pauses. */
  batchSize?: number;
  /** Whether runner commits wait for the disk (default false); see ProjectionRunnerOptions.durable. */
  durableBatches?: boolean;
}

/** Runs the projections in this process and answers the query routes from their tables. */
@Injectable()
export class ReadModelsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Projections');
  readonly supervisor: ProjectionSupervisor;
  readonly queries: ReadModelQueries;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODEL_DATABASE) readonly db: ReadModelDatabase,
    @Inject(PROJECTIONS_OPTIONS) private readonly options: ProjectionsModuleOptions,
    @Optional() metrics?: RewindMetrics,
    @Optional() @Inject(SUBSCRIPTION_HUB) hub?: SubscriptionHub,
  ) {
    this.supervisor = new ProjectionSupervisor(store, db, {
      ...(hub ? { hub } : {}),
      idleDelayMs: options.idleDelayMs ?? 250,
      batchSize: options.batchSize ?? 1000,
      durable: options.durableBatches === true,
      logger: { log: (m) => this.logger.log(m), warn: (m) => this.logger.warn(m), error: (m) => this.logger.error(m) },
    });
    this.queries = new ReadModelQueries(db);
    for (const name of this.supervisor.runners.keys()) {
      const progress = async () => {
        const { position, lag } = await this.supervisor.runner(name).status();
        return { position, lag };
      };
      // Readiness watches only the runners of this process: another process's stall is its own probe's to report.
      if (options.runRunners !== false) metrics?.registerSubscriber(`projection:${name}`, progress);
      else metrics?.registerLag(`projection:${name}`, async () => (await progress()).lag);
    }
  }

  onApplicationBootstrap(): void {
    if (this.options.runRunners !== false) this.supervisor.start();
  }

  /** Before the backend closes (the read models with it): let the batches in progress commit. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.supervisor.stop();
  }

  /** Wakes the runners (e.g. after a write) so that queries see it sooner. */
  poke(): void {
    this.supervisor.poke();
  }

  /**
   * Read-your-writes: waits (at most `freshnessWaitMs`, default 5 s) until the projection has
   * applied everything committed when the query arrived — on any replica, whichever process runs
   * the projection; then the query runs either way. The target is the committed tail, not the
   * readable position: a write acknowledged while an older transaction was still in flight is
   * committed but not yet readable, and waiting only for the readable prefix missed it (issue 38:
   * 30 of 560 audit reads right after a write).
   */
  async fresh(projection: string): Promise<void> {
    const head = await (this.store.committedTail?.() ?? this.store.lastPosition());
    const caughtUp = await this.supervisor.runner(projection).waitFor(head, this.options.freshnessWaitMs ?? 5000);
    if (!caughtUp)
      this.logger.warn(
        `Read model "${projection}" had not reached global position ${head} after ${this.options.freshnessWaitMs ?? 5000} ms: the query answers from what it has applied (GET /v1/projections shows its lag; check that a process runs the projections).`,
      );
  }

  async status(): Promise<ProjectionStatus[]> {
    return this.supervisor.status();
  }

  /** Runs a query; a cursor that is not ours is the caller's mistake (400), not ours. */
  async query<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof InvalidCursorError) throw new ApiError(400, 'invalid_cursor', error.message, [{ field: 'cursor', message: error.message }]);
      throw error;
    }
  }
}
