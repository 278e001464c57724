import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { axisVector, memoryItem, rawIndexBytes } from '../testing';
import { SqliteVectorIndex } from './sqlite-vector-index';

describe('SqliteVectorIndex.shredScope on a file', () => {
  let dir: string;
  let filename: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rewind-memory-shred-'));
    filename = join(dir, 'rewind.memory.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("leaves no byte of a shredded session's text in the file or its WAL, in every model's tables, and keeps the others'", async () => {
    const D = 8;
    const filler = (model: string) =>
      Array.from({ length: 400 }, (_, i) => ({
        item: memoryItem({ id: `${model}-f${i}:0`, text: `ordinary note number ${i} about trains and rivers`, sessionId: `other-${i % 7}` }),
        vector: axisVector(D, i),
      }));
    const secrets = (model: string) => [
      { item: memoryItem({ id: `${model}-s1:0`, text: 'The vault code is Quixotrella 7741', sessionId: 'secret' }), vector: axisVector(D, 1) },
      { item: memoryItem({ id: `${model}-s2:0`, text: 'Quixotrella lives on Zanzibarnik street', sessionId: 'secret' }), vector: axisVector(D, 2) },
      { item: memoryItem({ id: `${model}-k1:0`, text: 'The keeper word is Plumbifora', sessionId: 'kept' }), vector: axisVector(D, 3) },
    ];
    // Two models wrote into the same file (the embedding model was switched once): both hold the text.
    for (const model of ['model-a', 'model-b']) {
      const index = new SqliteVectorIndex({ filename });
      await index.open({ id: model, dimensions: D });
      await index.upsert(filler(model).slice(0, 200));
      await index.upsert(secrets(model));
      await index.upsert(filler(model).slice(200));
      // Written twice (an indexer redelivers): the first copy's rows are freed, not kept.
      await index.upsert(secrets(model));
      await index.close();
    }
    expect(rawIndexBytes(filename)).toContain('Quixotrella');
    expect(rawIndexBytes(filename)).toContain('quixotrella');

    const index = new SqliteVectorIndex({ filename });
    expect(await index.shredScope({ tenantId: 't1', sessionId: 'secret' })).toBe(4);
    const bytes = rawIndexBytes(filename);
    for (const word of ['Quixotrella', 'quixotrella', 'Zanzibarnik', 'zanzibarnik', 'vault code']) expect(bytes).not.toContain(word);
    expect(bytes).toContain('Plumbifora');
    for (const model of ['model-a', 'model-b']) {
      await index.open({ id: model, dimensions: D });
      expect(await index.count({ tenantId: 't1', sessionId: 'secret' })).toBe(0);
      expect(await index.searchText('quixotrella zanzibarnik', { tenantId: 't1' }, 10)).toEqual([]);
      expect((await index.searchText('plumbifora', { tenantId: 't1' }, 10)).map((h) => h.item.id)).toEqual([`${model}-k1:0`]);
      expect(await index.count({ tenantId: 't1' })).toBe(401);
    }
    expect(await index.shredScope({ tenantId: 't1' })).toBe(802);
    expect(rawIndexBytes(filename)).not.toContain('Plumbifora');
    await index.close();
  });
});
