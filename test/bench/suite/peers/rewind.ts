/**
 * Rewind through its library: SessionService for writes (as the API does), a SessionRepository
 * with no cache for restores (`restore(streamId, version)`: nearest snapshot + tail).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evolveInPlace, initialSessionState, type RecordedSessionEvent } from '@rewind/domain';
import { SessionRepository, SessionService, sessionStreamId } from '@rewind/engine';
import { type EventStore } from '@rewind/event-store';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { PostgresEventStore } from '@rewind/event-store/postgres';
import type { TestDatabase } from '../../../support/postgres';
import type { SystemAdapter } from '../adapter';
import { benchCaller, BENCH_TENANT, generateSessionEvents, HOTEL_SEARCH, toNewEvent, type Conversation } from '../conversation';
import { createBenchDatabase, rowSizes, tableSizes } from '../databases';
import type { StoreName } from '../results';

/** The API's defaults (libs/config/src/rewind-config.ts). */
export const DEFAULT_SNAPSHOT_EVERY = 100;
export const DEFAULT_PG_POOL_SIZE = 20;
export const REWIND_PG_TABLES = ['rewind.events', 'rewind.streams', 'rewind.snapshots', 'rewind.snapshot_segments', 'rewind.idempotency_keys'];
/** The same tables in the SQLite file (dbstat names; indexes are not rows). */
const REWIND_SQLITE_TABLES = ['events', 'streams', 'snapshots', 'snapshot_segments', 'idempotency_keys'];

export interface RewindAdapterOptions {
  run: string;
  store: StoreName;
  snapshotEvery?: number;
  /** Restores ignore snapshots (pure replay) when true. */
  pureReplay?: boolean;
}

export class RewindAdapter implements SystemAdapter {
  readonly system = 'rewind' as const;
  readonly speaksOtherConversations = true;
  readonly description: string;
  readonly service: SessionService;
  private restorer: SessionRepository;
  /** Sessions prepared with a conversation other than the suite's. */
  private readonly conversations = new Map<string, Conversation>();

  private constructor(
    readonly store: StoreName,
    readonly events: EventStore,
    readonly snapshotEvery: number,
    private readonly cleanup: () => Promise<void>,
    readonly location: { file?: string; url?: string },
  ) {
    this.service = new SessionService(new SessionRepository(events, { snapshotEvery }));
    this.restorer = new SessionRepository(events, { snapshotEvery });
    this.description =
      store === 'sqlite'
        ? `Rewind ${'SqliteEventStore'} (WAL, synchronous=FULL), snapshots every ${snapshotEvery} events`
        : `Rewind PostgresEventStore (pool ${DEFAULT_PG_POOL_SIZE}), snapshots every ${snapshotEvery} events`;
  }

  static async open(options: RewindAdapterOptions): Promise<RewindAdapter> {
    const snapshotEvery = options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
    if (options.store === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'rewind-bench-'));
      const file = join(dir, 'rewind.db');
      const store = new SqliteEventStore({ filename: file, synchronous: 'FULL' });
      return new RewindAdapter(
        'sqlite',
        store,
        snapshotEvery,
        async () => {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
        { file },
      );
    }
    const db: TestDatabase = await createBenchDatabase(options.run, 'rewind');
    const store = await PostgresEventStore.open({ connectionString: db.url, poolSize: DEFAULT_PG_POOL_SIZE });
    return new RewindAdapter(
      'postgres',
      store,
      snapshotEvery,
      async () => {
        await store.close();
        await db.drop();
      },
      { url: db.url },
    );
  }

  /** Restores from here on ignore snapshots (or use them again). */
  useSnapshotsForRestore(use: boolean): void {
    this.restorer = new SessionRepository(this.events, { snapshotEvery: use ? this.snapshotEvery : 0 });
  }

  streamId(sessionId: string): string {
    return sessionStreamId(BENCH_TENANT, sessionId);
  }

  async startSession(sessionId: string): Promise<void> {
    await this.service.startSession(benchCaller, { sessionId });
  }

  async prepare(sessionId: string, _turns: number, conversation?: Conversation): Promise<void> {
    if (conversation) this.conversations.set(sessionId, conversation);
  }

  async appendStep(sessionId: string, t: number, s: number): Promise<void> {
    const conversation = this.conversations.get(sessionId) ?? HOTEL_SEARCH;
    await this.service.execute(benchCaller, sessionId, conversation.command(t, s));
  }

  restoreHead(sessionId: string): Promise<unknown> {
    return this.restorer.restore(this.streamId(sessionId), Number.MAX_SAFE_INTEGER);
  }

  restoreAt(sessionId: string, version: number): Promise<unknown> {
    return this.restorer.restore(this.streamId(sessionId), version);
  }

  /**
   * The events the engine produces, appended in batches, and the snapshots the live service would
   * have written at each multiple of the cadence.
   */
  async bulkLoad(sessionId: string, turns: number): Promise<number> {
    const events = await generateSessionEvents(sessionId, turns);
    const streamId = this.streamId(sessionId);
    const batch = 1000;
    for (let i = 0; i < events.length; i += batch) {
      await this.events.append(streamId, events.slice(i, i + batch).map(toNewEvent), { expectedVersion: i === 0 ? 'no_stream' : i });
    }
    if (this.snapshotEvery > 0) {
      const state = initialSessionState();
      for (const event of events) {
        evolveInPlace(state, event as unknown as RecordedSessionEvent, () => {
          throw new Error('no head moves in the benchmark conversation');
        });
        if (state.version % this.snapshotEvery === 0) {
          // As the live service writes them (segmented: sealed parts shared between snapshots).
          await this.service.repository.saveSnapshot(streamId, state);
        }
      }
    }
    return events.length;
  }

  async storageBytes(settle: boolean): Promise<Record<string, number>> {
    if (this.store === 'postgres') return tableSizes(this.location.url!, REWIND_PG_TABLES);
    const db = (this.events as SqliteEventStore).db;
    if (settle) {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.exec('VACUUM');
      db.pragma('wal_checkpoint(TRUNCATE)');
    }
    const file = this.location.file!;
    const size = (f: string) => {
      try {
        return statSync(f).size;
      } catch {
        return 0;
      }
    };
    const sizes: Record<string, number> = { 'rewind.db': size(file), 'rewind.db-wal': size(`${file}-wal`) };
    try {
      // Per-table split (dbstat is compiled into better-sqlite3's SQLite).
      const rows = db.prepare<[], { name: string; bytes: number }>('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name').all();
      for (const row of rows) sizes[`table:${row.name}`] = row.bytes;
    } catch {
      // no dbstat: file sizes only
    }
    return sizes;
  }

  async rowBytes(): Promise<Record<string, number>> {
    if (this.store === 'postgres') return rowSizes(this.location.url!, REWIND_PG_TABLES);
    const db = (this.events as SqliteEventStore).db;
    const sizes: Record<string, number> = {};
    // dbstat's payload: each row's record (header and values) as stored, without page slack.
    const payload = db.prepare<[string], { bytes: number | null }>('SELECT SUM(payload) AS bytes FROM dbstat WHERE name = ?');
    for (const table of REWIND_SQLITE_TABLES) sizes[table] = payload.get(table)?.bytes ?? 0;
    return sizes;
  }

  async close(): Promise<void> {
    await this.cleanup();
  }
}
