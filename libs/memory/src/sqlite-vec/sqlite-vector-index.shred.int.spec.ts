import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { axisVector, memoryItem, rawIndexBytes, useTempIndexFile } from '../testing';
import { SqliteVectorIndex } from './sqlite-vector-index';

describe('SqliteVectorIndex.shredScope on a file', () => {
  const file = useTempIndexFile();

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
      const index = new SqliteVectorIndex({ filename: file.filename });
      await index.open({ id: model, dimensions: D });
      await index.upsert(filler(model).slice(0, 200));
      await index.upsert(secrets(model));
      await index.upsert(filler(model).slice(200));
      // Written twice (an indexer redelivers): the first copy's rows are freed, not kept.
      await index.upsert(secrets(model));
      await index.close();
    }
    expect(rawIndexBytes(file.filename)).toContain('Quixotrella');
    expect(rawIndexBytes(file.filename)).toContain('quixotrella');

    const index = new SqliteVectorIndex({ filename: file.filename });
    expect(await index.shredScope({ tenantId: 't1', sessionId: 'secret' })).toBe(4);
    const bytes = rawIndexBytes(file.filename);
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
    expect(rawIndexBytes(file.filename)).not.toContain('Plumbifora');
    await index.close();
  });

  it('removes exactly the scope: every item of it, in every model, and nothing else (property)', async () => {
    const D = 8;
    const item = fc.record({ tenant: fc.constantFrom('t1', 't2'), session: fc.constantFrom('a', 'b', 'c'), model: fc.constantFrom('m1', 'm2') });
    const scope = fc.record({ tenantId: fc.constantFrom('t1', 't2'), sessionId: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }) });
    await fc.assert(
      fc.asyncProperty(fc.array(item, { maxLength: 30 }), scope, async (items, target) => {
        const index = new SqliteVectorIndex({ filename: ':memory:' });
        try {
          for (const model of ['m1', 'm2']) {
            await index.open({ id: model, dimensions: D });
            await index.upsert(
              items
                .map((it, i) => ({ ...it, i }))
                .filter((it) => it.model === model)
                .map((it) => ({
                  item: memoryItem({ id: `e${it.i}:0`, text: `word${it.i} note`, tenantId: it.tenant, sessionId: it.session }),
                  vector: axisVector(D, it.i),
                })),
            );
          }
          const inTarget = (it: { tenant: string; session: string }) =>
            it.tenant === target.tenantId && (target.sessionId === undefined || it.session === target.sessionId);
          expect(await index.shredScope(target)).toBe(items.filter(inTarget).length);
          for (const model of ['m1', 'm2']) {
            await index.open({ id: model, dimensions: D });
            const left = (await index.listItems()).map((i) => i.id).sort();
            const expected = items
              .map((it, i) => ({ ...it, id: `e${i}:0` }))
              .filter((it) => it.model === model && !inTarget(it))
              .map((it) => it.id)
              .sort();
            expect(left).toEqual(expected);
            expect(await index.searchText('note', target, 50)).toEqual([]);
          }
        } finally {
          await index.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
