import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteFile } from '@rewind/event-store/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { axisVector, memoryItem } from '../testing';
import { CONTEXT_WEIGHT } from './fts-query';
import { SqliteVectorIndex } from './sqlite-vector-index';

const OPENERS = 4;
const PREFIX = 'memory_model_a_8';
const STORE = `memory-index:${PREFIX}`;
// The processes load the built package, as the memory threads do (libs/memory/dist: run `npm run build` first).
const BUILT = join(__dirname, '..', '..', 'dist', 'sqlite-vec', 'index.js');

const dir = mkdtempSync(join(tmpdir(), 'rewind-memory-migrations-'));
let files = 0;
const freshFile = () => join(dir, `index-${++files}.db`);

/** One process: opens the index for model-a, adds its own item, says how many items it then sees. */
const OPENER = `
  const { SqliteVectorIndex } = require(process.argv[1]);
  const [filename, id] = process.argv.slice(2);
  (async () => {
    const index = new SqliteVectorIndex({ filename });
    await index.open({ id: 'model-a', dimensions: 8 });
    const vector = new Float32Array(8); vector[0] = 1;
    await index.upsert([{ item: { id, text: 'hotel in Lisbon ' + id, tenantId: 't1', sessionId: 's1', eventId: id, version: 2,
      globalPosition: 2, role: 'user', occurredAt: '2026-05-01T10:00:00.000Z', chunk: 0 }, vector }]);
    await index.close();
  })().catch((error) => { console.error(error); process.exit(1); });`;

/** Starts OPENERS processes on the file at once; resolves with each one's exit code and what it wrote to stderr. */
function openTogether(filename: string): Promise<{ code: number | null; stderr: string }[]> {
  return Promise.all(
    Array.from({ length: OPENERS }, (_, i) => {
      const child = spawn(process.execPath, ['-e', OPENER, BUILT, filename, `p${i}:0`], { cwd: __dirname, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
      return new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
    }),
  );
}

function inspect(filename: string) {
  const db = openSqliteFile(filename);
  try {
    return {
      versions: db.prepare('SELECT store, version FROM schema_versions ORDER BY store').all(),
      items: db.prepare<[], string>(`SELECT id FROM ${PREFIX}_items ORDER BY id`).pluck().all(),
      rank: db.prepare<[], string>(`SELECT v FROM ${PREFIX}_fts_config WHERE k = 'rank'`).pluck().get(),
    };
  } finally {
    db.close();
  }
}

const allOpened = Array.from({ length: OPENERS }, (_, i) => `p${i}:0`);

describe('the SQLite memory index file through versioned migrations (issue 38), several processes at once', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('on a fresh file: every process opens and writes, the tables are made once and recorded as version 1', async () => {
    for (let round = 0; round < 2; round++) {
      const filename = freshFile();
      const exits = await openTogether(filename);
      expect(exits).toEqual(allOpened.map(() => ({ code: 0, stderr: '' })));
      expect(inspect(filename)).toEqual({ versions: [{ store: STORE, version: 1 }], items: allOpened, rank: `bm25(1.0, 0.0, ${CONTEXT_WEIGHT})` });
    }
  }, 60_000);

  it('on a file made before the runner (no schema_versions, an index made before stemming): adopted with its items, its ranking set for its shape', async () => {
    const filename = freshFile();
    const old = new SqliteVectorIndex({ filename });
    await old.open({ id: 'model-a', dimensions: 8 });
    await old.upsert([{ item: memoryItem({ id: 'old:0', text: 'museum tickets' }), vector: axisVector(8, 2) }]);
    // What an older release left: no versions, and a full-text table of one text column with its default ranking.
    old.db.exec(`DROP TABLE schema_versions; DROP TABLE ${PREFIX}_fts_vocab; DROP TABLE ${PREFIX}_fts;
      CREATE VIRTUAL TABLE ${PREFIX}_fts USING fts5(tokens, scope, tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE ${PREFIX}_fts_vocab USING fts5vocab(${PREFIX}_fts, 'row');`);
    await old.close();
    const exits = await openTogether(filename);
    expect(exits).toEqual(allOpened.map(() => ({ code: 0, stderr: '' })));
    expect(inspect(filename)).toEqual({ versions: [{ store: STORE, version: 1 }], items: ['old:0', ...allOpened], rank: 'bm25(1.0, 0.0)' });
    const reopened = new SqliteVectorIndex({ filename });
    await reopened.open({ id: 'model-a', dimensions: 8 });
    expect((await reopened.searchText('Lisbon', { tenantId: 't1' }, 10)).map((h) => h.item.id).sort()).toEqual(allOpened);
    await reopened.close();
  }, 60_000);
});
