import { describe, expect, it } from 'vitest';
import type { EmbeddingModel } from './embedding-model';
import { SqliteVectorIndex } from './sqlite-vec/sqlite-vector-index';
import { axisVector } from './testing';
import { memoryFixture } from './testing/memory-fixture';

/** Every text the same vector: only keywords (and the "when" stage) order the hits. */
const flatModel: EmbeddingModel = {
  info: async () => ({ id: 'flat-model', dimensions: 8 }),
  embed: async (texts) => texts.map(() => axisVector(8, 0)),
  close: async () => {},
};

async function pottery(whenWeight: number) {
  const f = memoryFixture(flatModel, new SqliteVectorIndex({ filename: ':memory:' }), { whenWeight, feedback: { hits: 3, weight: 0 }, neighbourWeight: 0 });
  await f.sessions.startSession(f.caller(), { sessionId: 'mel' });
  // The shorter turn wins on BM25 alone; only the second says when.
  await f.say('mel', 'agent', 'I took the kids to a pottery workshop last Friday, we all made pots');
  await f.say('mel', 'agent', 'Pottery workshop: so calming');
  await f.say('mel', 'agent', 'Something else entirely');
  await f.indexer.catchUp();
  const ask = async (query: string) => (await f.recall.recall({ tenantId: 't1', sessionId: 'mel', query, k: 2, rewrite: false })).hits.map((h) => h.text);
  return ask;
}

describe('recall of a question asking when', () => {
  it('puts the turn that says when first, only for a question asking when', async () => {
    const ask = await pottery(0.2);
    expect((await ask('When did Melanie go to the pottery workshop?'))[0]).toContain('last Friday');
    expect((await ask('Which pottery workshop does Melanie like?'))[0]).toBe('Pottery workshop: so calming');
  });

  it('leaves the keyword order alone when the weight is 0', async () => {
    const ask = await pottery(0);
    expect((await ask('When did Melanie go to the pottery workshop?'))[0]).toBe('Pottery workshop: so calming');
  });
});
