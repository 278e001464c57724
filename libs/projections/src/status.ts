import type { EventStore } from '@rewind/event-store';
import { countEventsAfter } from '@rewind/event-store/subscriptions';
import { PROJECTIONS } from './projections';
import type { ReadModelDatabase } from './read-model-database';
import { SHADOW_SUFFIX } from './sql';

export type RunnerState = 'stopped' | 'active' | 'standby' | 'failing';

export interface ProjectionStatus {
  name: string;
  description: string;
  /** Global position of the last event applied (0: none yet). */
  position: number;
  /** The highest global position a reader may see now. */
  head: number;
  /** Events after `position` that a reader may see now (a count, also where positions have gaps): 0 means up to date. */
  lag: number;
  updatedAt: string | null;
  /** This process's runner: active (it holds the lock), standby (another holds it), failing, or stopped (none here). */
  state: RunnerState;
  lastError: string | null;
  /** A rebuild in progress (or interrupted): where its shadow tables are. */
  rebuild: { position: number; updatedAt: string } | null;
  /** A verifying rebuild has paused the runners until then (it resumes them when done). */
  pausedUntil: string | null;
}

export interface RuntimeState {
  state: RunnerState;
  lastError: string | null;
}

/** Checkpoints, head of log and lag of every projection, read from the databases. */
export async function projectionStatuses(
  store: EventStore,
  db: ReadModelDatabase,
  runtime: (name: string) => RuntimeState | undefined = () => undefined,
): Promise<ProjectionStatus[]> {
  const [checkpoints, head] = await Promise.all([db.checkpoints(), store.lastPosition()]);
  const byName = new Map(checkpoints.map((c) => [c.name, c]));
  const positions = new Set(PROJECTIONS.map((p) => byName.get(p.name)?.position ?? 0));
  const lags = new Map(await Promise.all([...positions].map(async (p) => [p, p >= head ? 0 : await countEventsAfter(store, p)] as const)));
  return PROJECTIONS.map((projection) => {
    const checkpoint = byName.get(projection.name);
    const shadow = byName.get(`${projection.name}${SHADOW_SUFFIX}`);
    const position = checkpoint?.position ?? 0;
    const run = runtime(projection.name);
    return {
      name: projection.name,
      description: projection.description,
      position,
      head,
      lag: lags.get(position) ?? 0,
      updatedAt: checkpoint?.updatedAt ?? null,
      state: run?.state ?? 'stopped',
      lastError: run?.lastError ?? null,
      rebuild: shadow ? { position: shadow.position, updatedAt: shadow.updatedAt } : null,
      pausedUntil: checkpoint?.pausedUntil ?? null,
    };
  });
}
