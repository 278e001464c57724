import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The driver Rewind's stores open their files with: a second copy of SQLite in one process would not share its file locks.
import Database from 'rewind-better-sqlite3';
import { Pool } from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/postgres';
import { InMemoryCheckpointStore } from '@rewind/event-store/subscriptions';
import { MemoryIndexer, setMemoryPolicy } from '../memory-indexer';
import { OnnxEmbeddingModel } from '../onnx';
import { PostgresVectorIndex } from '../postgres/postgres-vector-index';
import { SqliteVectorIndex } from '../sqlite-vec';
import { memoryFixture, rawIndexBytes } from '../testing';
import { LanguageRoutedEmbeddingModel } from './language-routed-model';
import { LanguageSpacesIndex } from './language-spaces-index';

// The real local models, as the defaults route them: English (and all but Chinese) and Chinese.
const model = new LanguageRoutedEmbeddingModel([
  { language: 'en', id: 'all-minilm-l6-v2-q', dimensions: 384, model: new OnnxEmbeddingModel({ model: 'all-minilm-l6-v2-q' }) },
  { language: 'zh', id: 'bge-small-zh-v15-q', dimensions: 512, model: new OnnxEmbeddingModel({ model: 'bge-small-zh-v15-q' }) },
]);
afterAll(() => model.close());

const SECRET_EN = 'My locker code at the Quixotrella gym is 7741';
const SECRET_ZH = '好的：奎克索健身房的储物柜密码是七七四一。';
const KEPT_EN = 'The Plumbifora bakery opens at seven in the morning';
const KEPT_ZH = '普伦比面包店早上七点开门。';

/** A fresh routed index on one store, and whether a text's words are still anywhere in its storage. */
interface Storage {
  index: LanguageSpacesIndex;
  /** Whether `text` (UTF-8) is still in the storage: SQLite's file bytes (free pages too), PostgreSQL's rows. */
  holds(text: string): Promise<boolean>;
  /** Another routed index on the same kind of store, empty (a rebuild's). */
  fresh(): LanguageSpacesIndex;
  done(): Promise<void>;
}

let database: TestDatabase | undefined;
let pool: Pool | undefined;
let schemas = 0;
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const stores: { name: string; open(): Promise<Storage> }[] = [
  {
    name: 'SQLite on a file (each model its own tables)',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'rewind-memory-language-'));
      const routed = (filename: string) => {
        const file = new SqliteVectorIndex({ filename });
        return new LanguageSpacesIndex(file, () => file.sibling());
      };
      const filename = join(dir, 'rewind.memory.db');
      return {
        index: routed(filename),
        holds: async (text) => rawIndexBytes(filename).includes(Buffer.from(text, 'utf8').toString('latin1')),
        fresh: () => routed(join(dir, `rebuilt-${++schemas}.memory.db`)),
        done: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'PostgreSQL (each model its space in the shared tables)',
    async open() {
      database ??= await createTestDatabase('rewind_memory_language');
      pool ??= new Pool({ connectionString: database.url, max: 4 });
      const routed = (schema: string) => {
        const tables = new PostgresVectorIndex({ pool: pool!, schema });
        return new LanguageSpacesIndex(tables, () => tables.sibling());
      };
      const schema = `language_${++schemas}`;
      return {
        index: routed(schema),
        holds: async (text) =>
          (await pool!.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.memory_items WHERE text LIKE $1 OR context LIKE $1`, [`%${text}%`]))
            .rows[0]!.n > 0,
        fresh: () => routed(`language_${++schemas}`),
        done: async () => undefined,
      };
    },
  },
];

describe.each(stores)('language routing on $name: real local models, every clean-up path model-aware', (store) => {
  let storage: Storage;
  let index: LanguageSpacesIndex;
  let f: ReturnType<typeof memoryFixture>;
  /** Each model's items of a session: [English model's, Chinese model's]. */
  const perModel = async (sessionId: string, tenantId = 't1') => (await index.models({ tenantId, sessionId })).map((m) => m.items);

  beforeAll(() => model.info());
  beforeEach(async () => {
    storage = await store.open();
    index = storage.index;
    f = memoryFixture(model, index);
    for (const id of ['secret', 'kept']) await f.sessions.startSession(f.caller(), { sessionId: id });
    await f.sessions.startSession(f.caller('t2'), { sessionId: 'elsewhere' });
    await f.say('secret', 'user', SECRET_EN);
    await f.say('secret', 'agent', SECRET_ZH);
    await f.say('kept', 'user', KEPT_EN);
    await f.say('kept', 'agent', KEPT_ZH);
    await f.say('elsewhere', 'user', 'The Quixotrella gym of the other tenant', 't2');
    await f.say('elsewhere', 'agent', '另一个租户的奎克索健身房。', 't2');
    await f.indexer.catchUp();
  });
  afterEach(async () => {
    await index.close();
    await storage.done();
  });

  it('stores an English item with the English model and a Chinese one with the Chinese model, and status counts each model', async () => {
    expect(await perModel('secret')).toEqual([1, 1]);
    const status = await f.indexer.status();
    expect(status).toMatchObject({ model: 'all-minilm-l6-v2-q', dimensions: 384, items: 6, pendingVectors: 0 });
    expect(status.models).toEqual([
      { id: 'all-minilm-l6-v2-q', dimensions: 384, language: 'en', items: 3, pendingVectors: 0 },
      { id: 'bge-small-zh-v15-q', dimensions: 512, language: 'zh', items: 3, pendingVectors: 0 },
    ]);
    expect(await index.count({ tenantId: 't1', sessionId: 'kept' })).toBe(2);
  });

  it('answers a Chinese question from the Chinese items and an English one from the English items; an English question finds a Chinese turn by a word they share', async () => {
    const ask = async (query: string) => (await f.recall.recall({ tenantId: 't1', sessionId: 'kept', query, rewrite: false })).hits.map((h) => h.text);
    expect((await ask('面包店几点开门？'))[0]).toBe(KEPT_ZH);
    expect((await ask('When does the bakery open?'))[0]).toBe(KEPT_EN);
    await f.say('kept', 'agent', '我们订了 Hilton 酒店，在外滩旁边。');
    await f.indexer.catchUp();
    expect(await ask('Where is the Hilton?')).toContain('我们订了 Hilton 酒店，在外滩旁边。');
  });

  it('shredding a session leaves none of its items with either model, nor its text in the storage; the other session keeps both', async () => {
    expect(await f.indexer.shred({ tenantId: 't1', sessionId: 'secret' })).toBe(2);
    expect(await perModel('secret')).toEqual([0, 0]);
    for (const text of ['Quixotrella gym is 7741', '奎克索健身房的储物柜']) expect(await storage.holds(text)).toBe(false);
    expect(await perModel('kept')).toEqual([1, 1]);
  });

  it('a shred of the session’s data keys (DataShredded in the log) removes both languages’ items, and a rebuild from the log never brings them back', async () => {
    await f.sessions.execute(f.caller(), 'secret', { type: 'RecordShredding', keyIds: [], reason: 'test' });
    await f.indexer.catchUp();
    expect(await perModel('secret')).toEqual([0, 0]);
    expect(await storage.holds('奎克索健身房的储物柜')).toBe(false);
    // `rewind memory rebuild`'s path: the whole log again, into a fresh routed index.
    const rebuilt = storage.fresh();
    const rebuild = new MemoryIndexer({
      store: f.store,
      checkpoints: new InMemoryCheckpointStore(),
      index: rebuilt,
      model,
      policies: f.policies,
      batchSize: 2,
    });
    try {
      await rebuild.catchUp();
      const status = await rebuild.status();
      expect(status.models.map((m) => m.items)).toEqual([2, 2]);
      expect(await rebuilt.models({ tenantId: 't1', sessionId: 'secret' })).toMatchObject([{ items: 0 }, { items: 0 }]);
      expect(await rebuilt.models({ tenantId: 't1', sessionId: 'kept' })).toMatchObject([{ items: 1 }, { items: 1 }]);
    } finally {
      await rebuilt.close();
    }
  });

  it('shredding a tenant removes its sessions from both models; another tenant keeps its items of both languages', async () => {
    expect(await f.indexer.shred({ tenantId: 't1' })).toBe(4);
    expect(await index.models({ tenantId: 't1' })).toMatchObject([{ items: 0 }, { items: 0 }]);
    const hits = await f.recall.recall({ tenantId: 't1', sessionId: 'kept', query: '面包店几点开门？', scope: 'tenant', rewrite: false });
    expect(hits.hits).toEqual([]);
    expect(await perModel('elsewhere', 't2')).toEqual([1, 1]);
  });

  it('deleteScope and a policy of none remove the session from every model', async () => {
    expect(await index.deleteScope({ tenantId: 't1', sessionId: 'kept' })).toBe(2);
    expect(await perModel('kept')).toEqual([0, 0]);
    expect(await setMemoryPolicy({ policies: f.policies, index, indexer: f.indexer }, 't1', 'secret', 'none')).toEqual({ removedItems: 2 });
    expect(await perModel('secret')).toEqual([0, 0]);
    expect(await perModel('elsewhere', 't2')).toEqual([1, 1]);
  });

  it('never recalls a turn of an abandoned branch, in either language, per session or tenant-wide', async () => {
    await f.sessions.startSession(f.caller(), { sessionId: 'undone' });
    await f.say('undone', 'user', 'How much is the Zanquivel museum?');
    await f.say('undone', 'agent', 'The Zanquivel museum costs 90 euros.');
    await f.say('undone', 'agent', '赞奎维尔博物馆每人九十元。');
    await f.sessions.execute(f.caller(), 'undone', { type: 'MoveHead', kind: 'undo', steps: 2 });
    await f.say('undone', 'agent', 'The Zanquivel museum costs 40 euros.');
    await f.say('undone', 'agent', '赞奎维尔博物馆每人四十元。');
    await f.indexer.catchUp();
    for (const query of ['How much is the Zanquivel museum?', '赞奎维尔博物馆多少钱？'])
      for (const scope of ['session', 'tenant'] as const) {
        const texts = (await f.recall.recall({ tenantId: 't1', sessionId: 'undone', query, scope, rewrite: false })).hits.map((h) => h.text);
        expect(texts.some((t) => t.includes('40') || t.includes('四十'))).toBe(true);
        expect(texts.filter((t) => t.includes('90') || t.includes('九十'))).toEqual([]);
      }
    // Both abandoned turns are in the index (one per model): recall leaves them out, not the index.
    expect(await perModel('undone')).toEqual([3, 2]);
  });
});

describe('language routing on SQLite: the file itself', () => {
  it('keeps each model’s items in tables of its own (memory_<model>_items)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rewind-memory-language-tables-'));
    const filename = join(dir, 'rewind.memory.db');
    const file = new SqliteVectorIndex({ filename });
    const index = new LanguageSpacesIndex(file, () => file.sibling());
    try {
      const f = memoryFixture(model, index);
      await f.sessions.startSession(f.caller(), { sessionId: 's' });
      await f.say('s', 'user', SECRET_EN);
      await f.say('s', 'agent', SECRET_ZH);
      await f.indexer.catchUp();
      const db = new Database(filename, { readonly: true });
      try {
        const tables = db
          .prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'memory_*_items' ORDER BY name`)
          .all();
        expect(Object.fromEntries(tables.map(({ name }) => [name, db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${name}`).get()!.n]))).toEqual({
          memory_all_minilm_l6_v2_q_384_items: 1,
          memory_bge_small_zh_v15_q_512_items: 1,
        });
      } finally {
        db.close();
      }
    } finally {
      await index.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
