import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Rewind, ToolCallError } from '@rewind/embedded';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { AUDIT_LOG, ProjectionSupervisor, ReadModelDatabase, SILENT_LOGGER } from '@rewind/projections';
import { tableRows } from '@rewind/projections/testing';

describe('forward retries in library mode reach the audit log', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('each failed attempt of a registered tool is a row of audit_log, projected from the embedded store', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-audit-'));
    dirs.push(dataDir);
    const rewind = Rewind.open({ dataDir, sleep: () => Promise.resolve() });
    let attempts = 0;
    rewind.tool('book_hotel', {
      retry: { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000 },
      run: () => {
        if (++attempts < 3) throw new ToolCallError('hotel API answered 503', true);
        return { bookingId: 'B-1' };
      },
      undo: () => undefined,
    });
    const session = await rewind.startSession('audited');
    await session.call('book_hotel', { hotel: 'Ritz' });
    await rewind.close();

    const db = await ReadModelDatabase.open({ type: 'sqlite', filename: join(dataDir, 'rewind.db') });
    const store = new SqliteEventStore({ filename: join(dataDir, 'rewind.db') });
    try {
      await new ProjectionSupervisor(store, db, { logger: SILENT_LOGGER, projections: ['audit'] }).catchUp();
      const types = (await tableRows(db, AUDIT_LOG, { session_id: 'audited' })).map((row) => row.type);
      expect(types.filter((t) => t === 'ToolCallStarted')).toHaveLength(3);
      expect(types.filter((t) => t === 'ToolCallFailed')).toHaveLength(2);
      expect(types.filter((t) => t === 'ToolCallSucceeded')).toHaveLength(1);
    } finally {
      await db.close();
      await store.close();
    }
  });
});
