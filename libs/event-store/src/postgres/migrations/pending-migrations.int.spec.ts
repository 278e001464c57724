import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../postgres-event-store';
import { useTestDatabase } from '../test-database';
import { migrations, pendingMigrations } from './index';

const db = useTestDatabase();

describe('pendingMigrations (for readiness probes)', () => {
  it('names the migrations an older schema lacks, and none once a store has opened it', async () => {
    const schema = `pending_${randomBytes(3).toString('hex')}`;
    const old = await PostgresEventStore.open({ connectionString: db.url, schema, migrateTo: 2 });
    try {
      const later = migrations(`"${schema}"`).filter((m) => m.version > 2);
      expect(later.length).toBeGreaterThan(0);
      expect(await pendingMigrations(old.pool, schema)).toEqual(later.map((m) => `${schema} ${m.version} ${m.name}`));
      const current = await PostgresEventStore.open({ connectionString: db.url, schema });
      expect(await pendingMigrations(current.pool, schema)).toEqual([]);
      await current.close();
    } finally {
      await old.close();
    }
  });

  it('counts every migration as pending in a schema Rewind never created', async () => {
    const store = await db.openStore();
    try {
      expect(await pendingMigrations(store.pool, 'never_created')).toHaveLength(migrations('"never_created"').length);
    } finally {
      await store.close();
    }
  });
});
