import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The driver Rewind's stores open their files with: a second copy of SQLite in one process would not share its file locks.
import Database from 'rewind-better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type StoreKind } from '@rewind/config';
import { sealLog, verifyLog } from '@rewind/event-store';
import { newEvent } from '@rewind/event-store/testing';
import { createTestDatabase, withAdminClient, type TestDatabase } from '@rewind/event-store/testing/postgres';
import { openBackend, type Backend } from './backend';

/** Every closable part, in the order openBackend opens them (read models last: at their first use). */
function partsOf(backend: Backend, readModels: { close(): unknown }): [string, { close(): unknown }][] {
  const parts: [string, { close(): unknown } | null][] = [
    ['events', backend.events],
    ['checkpoints', backend.checkpoints],
    ['seals', backend.seals],
    ['dataKeys', backend.dataKeys],
    ['apiKeys', backend.apiKeys],
    ['signingKeys', backend.signingKeys],
    ['memoryPolicies', backend.memoryPolicies],
    ['readModels', readModels],
  ];
  return parts.filter((p): p is [string, { close(): unknown }] => p[1] !== null);
}

/** Records each close of each part, in order, still closing it. */
function recordCloses(parts: [string, { close(): unknown }][]): string[] {
  const closed: string[] = [];
  for (const [name, part] of parts) {
    const close = part.close.bind(part);
    part.close = () => {
      closed.push(name);
      return close();
    };
  }
  return closed;
}

describe.each<StoreKind>(['sqlite', 'postgres'])('openBackend on %s', (kind) => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let backend: Backend;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rewind-backend-'));
    database = kind === 'postgres' ? await createTestDatabase('rewind_backend') : undefined;
    const env = { REWIND_DATA_DIR: dataDir, ...(database ? { REWIND_STORE: 'postgres', DATABASE_URL: database.url } : {}) };
    backend = await openBackend(loadConfig(env));
  });
  afterEach(async () => {
    await backend.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens every store a process needs, each usable', async () => {
    expect(backend.kind).toBe(kind);
    expect(backend.databaseFile).toBe(join(dataDir, 'rewind.db'));

    await backend.events.append('session:acme:trip', [newEvent('SessionStarted', { title: 'trip' })], { expectedVersion: 'no_stream' });
    expect(await backend.events.streamVersion('session:acme:trip')).toBe(1);

    await backend.checkpoints.save('relay:rewind.events', 42);
    expect(await backend.checkpoints.load('relay:rewind.events')).toBe(42);

    // The event was linked as it was written: nothing is left to seal, and the audit covers it.
    expect(await sealLog(backend.events, backend.seals)).toMatchObject({ sealed: 0, done: true });
    expect(await backend.seals.lastSealedPosition()).toBe(0);
    // (On PostgreSQL the log shows it once no older transaction of a test beside this one is open.)
    let verified = await verifyLog(backend.events, backend.seals);
    for (let i = 0; i < 100 && verified.checked === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      verified = await verifyLog(backend.events, backend.seals);
    }
    expect(verified).toMatchObject({ ok: true, checked: 1, unsealed: 0 });

    await backend.dataKeys.setRetention('acme', 30);
    expect(await backend.dataKeys.retentionPolicies()).toEqual([{ tenantId: 'acme', inactiveDays: 30 }]);

    const { key } = await backend.apiKeys.create({ tenantId: 'acme', name: 'bot' });
    expect(await backend.apiKeys.authenticate(key)).toMatchObject({ tenantId: 'acme', name: 'bot' });

    const signing = await backend.signingKeys.create({ tenantId: 'acme' });
    expect(await backend.signingKeys.find(signing.keyId)).toMatchObject({ tenantId: 'acme', secret: signing.secret });

    if (kind === 'postgres') {
      await backend.memoryPolicies!.set('acme', undefined, 'none');
      expect(await backend.memoryPolicies!.get('acme')).toBe('none');
    } else {
      // On SQLite memory policies live in the memory index file, which the memory runtime opens.
      expect(backend.memoryPolicies).toBeNull();
    }

    const readModels = await backend.readModels();
    expect(await backend.readModels()).toBe(readModels);
    expect(await readModels.dataSource.showMigrations()).toBe(false);
    expect(await backend.pendingMigrations()).toEqual([]);
    expect(await backend.pruneSnapshots({ keep: 1, dryRun: true, referencedSegments: () => [] })).toMatchObject({ snapshotsDeleted: 0 });
  });

  it('closes each part once, newest first, and leaves nothing open on the database', async () => {
    const readModels = await backend.readModels();
    const parts = partsOf(backend, readModels);
    const closed = recordCloses(parts);

    await backend.close();
    await backend.close();

    expect(closed).toEqual(parts.map(([name]) => name).reverse());
    if (kind === 'sqlite') {
      // Leaving WAL mode needs the only connection to the file: none of the backend's is left.
      const file = new Database(backend.databaseFile);
      try {
        expect(file.pragma('journal_mode = DELETE', { simple: true })).toBe('delete');
      } finally {
        file.close();
      }
    } else {
      const sessions = () =>
        withAdminClient(async (c) => {
          const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database!.name]);
          return rows[0]!.n;
        });
      // A session leaves pg_stat_activity a moment after its client has said goodbye.
      await expect.poll(sessions, { timeout: 5000 }).toBe(0);
    }
  });
});

describe('openBackend', () => {
  it('refuses an unreachable PostgreSQL in one sentence, leaving nothing open', async () => {
    const config = loadConfig({ REWIND_STORE: 'postgres', DATABASE_URL: 'postgres://rewind:s3cret@127.0.0.1:1/rewind' });
    const error = await openBackend(config).catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ name: 'PostgresUnavailableError' });
    expect((error as Error).message).toContain('Cannot reach PostgreSQL at postgres://rewind:***@127.0.0.1:1/rewind');
  });
});
