import { describe, expect, it } from 'vitest';
import { NO_REASON, skipReason } from './skipped-tests-reporter';

describe('the reason the skipped-tests reporter gives', () => {
  it('is a trailing [… only: …] bracket of the test name (it.runIf on one store)', () => {
    const sqliteOnly =
      'tenants shred waits for a memory index another process holds past the busy timeout, and reports its success (issue 42: "database is locked", exit 1) [SQLite only: the lock is the memory file\'s]';
    expect(skipReason({ names: [sqliteOnly, 'rewind CLI on sqlite'] })).toEqual({
      reason: "SQLite only: the lock is the memory file's",
      carriedBy: " [SQLite only: the lock is the memory file's]",
    });
    const postgresOnly =
      'read-your-writes: a write held back behind an older transaction still in flight is waited for, not missed [PostgreSQL only: SQLite commits one writer at a time, nothing is held back]';
    expect(skipReason({ names: [postgresOnly, 'projections on sqlite'] }).reason).toBe(
      'PostgreSQL only: SQLite commits one writer at a time, nothing is held back',
    );
  });

  it("is a 'skipped because …' phrase of an enclosing suite's name", () => {
    const suite =
      'QdrantVectorIndex contract: skipped because QDRANT_URL is not set (no Qdrant server on this machine; `docker compose up qdrant` and QDRANT_URL=http://127.0.0.1:6333 run it)';
    const { reason, carriedBy } = skipReason({ names: ['upserts and searches', suite] });
    expect(reason).toBe('QDRANT_URL is not set (no Qdrant server on this machine; `docker compose up qdrant` and QDRANT_URL=http://127.0.0.1:6333 run it)');
    expect(suite.replace(carriedBy!, '')).toBe('QdrantVectorIndex contract');
  });

  it('is the ctx.skip note first, then a [skipped: …] bracket, before what else a name says', () => {
    const names = ['a test [SQLite only: one file]', 'a suite [skipped: no server here]'];
    expect(skipReason({ note: 'told by ctx.skip', names }).reason).toBe('told by ctx.skip');
    expect(skipReason({ names }).reason).toBe('no server here');
  });

  it('is "no reason given" when neither the note nor a name carries one', () => {
    expect(skipReason({ names: ['rewind memory status | rebuild [--verify]', 'memory'] })).toEqual({ reason: NO_REASON });
    expect(skipReason({ names: ['a test to write'], todo: true })).toEqual({ reason: 'a todo' });
  });
});
