import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OnnxEmbeddingModel } from '../onnx';
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

/** Items of the session in each model's tables, read from the file itself (every `memory_*_items` table there is). */
function itemsPerTable(filename: string, sessionId: string): Record<string, number> {
  const db = new Database(filename, { readonly: true });
  try {
    const tables = db.prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'memory_*_items'`).all();
    return Object.fromEntries(
      tables.map(({ name }) => [name, db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM ${name} WHERE session_id = ?`).get(sessionId)!.n]),
    );
  } finally {
    db.close();
  }
}

describe('language routing: each model its own tables (real local models, SQLite on a file)', () => {
  let dir: string;
  let filename: string;
  let index: LanguageSpacesIndex;
  let f: ReturnType<typeof memoryFixture>;

  beforeAll(() => model.info());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rewind-memory-language-'));
    filename = join(dir, 'rewind.memory.db');
    const file = new SqliteVectorIndex({ filename });
    index = new LanguageSpacesIndex(file, () => file.sibling());
    f = memoryFixture(model, index);
    for (const id of ['secret', 'kept']) await f.sessions.startSession(f.caller(), { sessionId: id });
    await f.say('secret', 'user', 'My locker code at the Quixotrella gym is 7741');
    await f.say('secret', 'agent', '好的：奎克索健身房的储物柜密码是七七四一。');
    await f.say('kept', 'user', 'The Plumbifora bakery opens at seven in the morning');
    await f.say('kept', 'agent', '普伦比面包店早上七点开门。');
    await f.indexer.catchUp();
  });
  afterEach(async () => {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores an English item in the English model’s tables and a Chinese one in the Chinese model’s, and says so in status', async () => {
    expect(itemsPerTable(filename, 'secret')).toEqual({ memory_all_minilm_l6_v2_q_384_items: 1, memory_bge_small_zh_v15_q_512_items: 1 });
    const status = await f.indexer.status();
    expect(status).toMatchObject({ model: 'all-minilm-l6-v2-q', dimensions: 384 });
    expect(status.models).toEqual([
      { id: 'all-minilm-l6-v2-q', dimensions: 384, language: 'en', items: 2 },
      { id: 'bge-small-zh-v15-q', dimensions: 512, language: 'zh', items: 2 },
    ]);
    expect(status.items).toBe(4);
    expect(await index.count({ tenantId: 't1', sessionId: 'kept' })).toBe(2);
  });

  it('answers a Chinese question from the Chinese items and an English one from the English items', async () => {
    const ask = async (query: string) => (await f.recall.recall({ tenantId: 't1', sessionId: 'kept', query, rewrite: false })).hits.map((h) => h.text);
    expect((await ask('面包店几点开门？'))[0]).toBe('普伦比面包店早上七点开门。');
    expect((await ask('When does the bakery open?'))[0]).toBe('The Plumbifora bakery opens at seven in the morning');
  });

  it('finds a Chinese turn by an English question through the words they share (every model’s keyword list is searched)', async () => {
    await f.say('kept', 'agent', '我们订了 Hilton 酒店，在外滩旁边。');
    await f.indexer.catchUp();
    const hits = (await f.recall.recall({ tenantId: 't1', sessionId: 'kept', query: 'Where is the Hilton?', rewrite: false })).hits.map((h) => h.text);
    expect(hits).toContain('我们订了 Hilton 酒店，在外滩旁边。');
  });

  it('shredding a session leaves none of its items in any model’s tables, nor its text in the file; the other session keeps both', async () => {
    expect(await f.indexer.shred({ tenantId: 't1', sessionId: 'secret' })).toBe(2);
    const left = itemsPerTable(filename, 'secret');
    expect(Object.keys(left)).toHaveLength(2);
    expect(Object.values(left)).toEqual([0, 0]);
    const bytes = rawIndexBytes(filename);
    for (const word of ['Quixotrella', Buffer.from('奎克索', 'utf8').toString('latin1')]) expect(bytes).not.toContain(word);
    expect(itemsPerTable(filename, 'kept')).toEqual({ memory_all_minilm_l6_v2_q_384_items: 1, memory_bge_small_zh_v15_q_512_items: 1 });
  });

  it('deleteScope and a policy of none remove the session from every model', async () => {
    expect(await index.deleteScope({ tenantId: 't1', sessionId: 'kept' })).toBe(2);
    expect(Object.values(itemsPerTable(filename, 'kept'))).toEqual([0, 0]);
    expect(await index.count({ tenantId: 't1', sessionId: 'secret' })).toBe(2);
  });
});
