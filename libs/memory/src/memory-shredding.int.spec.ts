import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryCheckpointStore } from '@rewind/event-store/subscriptions';
import type { EmbeddingModel } from './embedding-model';
import { MemoryIndexer } from './memory-indexer';
import { OnnxEmbeddingModel } from './onnx';
import { SqliteVectorIndex } from './sqlite-vec';
import { memoryFixture, rawIndexBytes } from './testing';

// The real local model and the embedded index on a file: what `npm start` runs.
const model = new OnnxEmbeddingModel({ model: 'all-minilm-l6-v2-q' });
afterAll(() => model.close());

/** What field encryption stores in place of a sensitive value (the format only matters here). */
const ciphertext = (n: number) => `rwd:enc:v1:dk_${'0123456789abcdef01234567'}:${Buffer.from(`opaque bytes number ${n} of ciphertext`).toString('base64url')}`;

describe('memory and crypto-shredding (local model, sqlite-vec on a file)', () => {
  let dir: string;
  let filename: string;
  let index: SqliteVectorIndex;
  let f: ReturnType<typeof memoryFixture>;

  beforeAll(() => model.info());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rewind-memory-shredding-'));
    filename = join(dir, 'rewind.memory.db');
    index = new SqliteVectorIndex({ filename });
    f = memoryFixture(model, index);
    for (const id of ['secret', 'kept']) await f.sessions.startSession(f.caller(), { sessionId: id });
  });
  afterEach(async () => {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const recallTexts = async (sessionId: string, query: string) => (await f.recall.recall({ tenantId: 't1', sessionId, query })).hits.map((h) => h.text);

  it('a DataShredded event in the log removes the session from the index, recall and the file; a rebuild from the log never brings it back', async () => {
    await f.say('secret', 'user', 'My locker code at the Quixotrella gym is 7741');
    await f.say('secret', 'agent', 'Noted: the Quixotrella gym locker opens with 7741.');
    await f.say('kept', 'user', 'The Plumbifora bakery opens at seven in the morning');
    await f.indexer.catchUp();
    expect(await recallTexts('secret', 'What is my locker code?')).toContain('Noted: the Quixotrella gym locker opens with 7741.');
    expect(rawIndexBytes(filename)).toContain('Quixotrella');

    await f.sessions.execute(f.caller(), 'secret', { type: 'RecordShredding', keyIds: [], reason: 'test' });
    // Said after the shred: new data, remembered like any other.
    await f.say('secret', 'user', 'From now on I train at the Velmorant pool on Mondays');
    await f.indexer.catchUp();
    expect(await recallTexts('secret', 'What is my locker code?')).not.toContain('Noted: the Quixotrella gym locker opens with 7741.');
    const tenantWide = await f.recall.recall({ tenantId: 't1', sessionId: 'kept', query: 'Quixotrella locker code', scope: 'tenant' });
    expect(tenantWide.hits.filter((h) => h.text.includes('Quixotrella'))).toEqual([]);
    expect(await recallTexts('secret', 'Where do I train on Mondays?')).toContain('From now on I train at the Velmorant pool on Mondays');
    expect(await recallTexts('kept', 'When does the bakery open?')).toContain('The Plumbifora bakery opens at seven in the morning');
    let bytes = rawIndexBytes(filename);
    for (const word of ['Quixotrella', 'quixotrella', 'locker']) expect(bytes).not.toContain(word);
    expect(bytes).toContain('Plumbifora');

    // A rebuild reads the whole log again, into a fresh file.
    const rebuiltFile = join(dir, 'rebuilt.memory.db');
    const rebuilt = new SqliteVectorIndex({ filename: rebuiltFile });
    const rebuild = new MemoryIndexer({
      store: f.store,
      checkpoints: new InMemoryCheckpointStore(),
      index: rebuilt,
      model,
      policies: f.policies,
      batchSize: 2,
    });
    await rebuild.catchUp();
    expect((await rebuilt.listItems()).map((i) => i.text).sort()).toEqual(
      ['From now on I train at the Velmorant pool on Mondays', 'The Plumbifora bakery opens at seven in the morning'].sort(),
    );
    await rebuilt.close();
    bytes = rawIndexBytes(rebuiltFile);
    for (const word of ['Quixotrella', 'quixotrella', 'locker']) expect(bytes).not.toContain(word);
  });

  it('never indexes an encrypted field, neither as plaintext nor as ciphertext', async () => {
    await f.say('secret', 'user', ciphertext(1));
    await f.sessions.execute(f.caller(), 'secret', { type: 'WriteMemory', key: 'ssn', value: ciphertext(2) });
    await f.sessions.execute(f.caller(), 'secret', { type: 'WriteMemory', key: 'card', value: { number: ciphertext(3), bank: 'Orvalia savings bank' } });
    await f.sessions.execute(f.caller(), 'secret', { type: 'StartToolCall', toolCallId: 'c1', tool: 'lookup', input: { q: 'x' } });
    await f.sessions.execute(f.caller(), 'secret', {
      type: 'CompleteToolCall',
      toolCallId: 'c1',
      output: { passport: ciphertext(4), office: 'Passport office on Trelawny square' },
    });
    await f.indexer.catchUp();
    const texts = (await index.listItems()).map((i) => i.text).sort();
    expect(texts).toEqual(['card: bank: Orvalia savings bank', 'office: Passport office on Trelawny square']);
    expect(rawIndexBytes(filename)).not.toContain('rwd:enc');
    // The partly encrypted memory value is still recalled by its clear part, on the session's path.
    expect(await recallTexts('secret', 'Which bank is my card from?')).toContain('card: bank: Orvalia savings bank');
  });

  // One stage: the batch is not in the index yet when the shred runs. Two: it is, by keywords (the shred removes it), and its vectors are not attached.
  it.each([
    [1, 0],
    [2, 1],
  ])('a batch being embedded while the process shreds the session does not write it back (%i stages)', async (stages, removedByShred) => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const embedding = new Promise<void>((resolve) => (entered = resolve));
    const slow: EmbeddingModel = {
      info: () => model.info(),
      embed: async (texts) => {
        entered();
        await gate;
        return model.embed(texts);
      },
      close: async () => {},
    };
    const indexer = new MemoryIndexer({
      store: f.store,
      checkpoints: new InMemoryCheckpointStore(),
      index,
      model: slow,
      policies: f.policies,
      twoStage: stages === 2,
    });
    await f.say('secret', 'user', 'The Quixotrella gym locker code is 7741');
    await f.say('kept', 'user', 'The Plumbifora bakery opens at seven in the morning');
    const catchingUp = indexer.catchUp();
    await embedding;
    expect(await indexer.shred({ tenantId: 't1', sessionId: 'secret' })).toBe(removedByShred);
    release();
    await catchingUp;
    expect((await index.listItems()).map((i) => i.text)).toEqual(['The Plumbifora bakery opens at seven in the morning']);
    expect(await index.pendingVectors()).toEqual({ items: 0, oldestPosition: null });
    expect(rawIndexBytes(filename)).not.toContain('Quixotrella');
  });
});
