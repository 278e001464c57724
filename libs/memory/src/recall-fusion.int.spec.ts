import { describe, expect, it } from 'vitest';
import type { EmbeddingModel } from './embedding-model';
import { SqliteVectorIndex } from './sqlite-vec/sqlite-vector-index';
import { axisVector } from './testing';
import { memoryFixture } from './testing/memory-fixture';

const D = 8;

/** Vectors chosen per text: the test says how similar each item is to the question. */
function tableModel(vectors: Record<string, Float32Array>): EmbeddingModel {
  return {
    info: async () => ({ id: 'table-model', dimensions: D }),
    embed: async (texts) => texts.map((t) => vectors[t] ?? axisVector(D, 7)),
    close: async () => {},
  };
}

describe('fused recall', () => {
  it('scores a keyword hit beyond the vector list by its own cosine, not as if it had none', async () => {
    // Two items with the same keyword score; only their vectors tell them apart. Three others,
    // without the keyword, fill the vector list so that neither keyword hit is in it.
    const vectors: Record<string, Float32Array> = {
      'Lisbon?': axisVector(D, 0),
      'Lisbon.': axisVector(D, 0, 1, 1.3), // cosine ~0.6 with the question
      'Lisbon!': axisVector(D, 3), // cosine 0
      'near one': axisVector(D, 0, 2, 0.2),
      'near two': axisVector(D, 0, 2, 0.3),
      'near three': axisVector(D, 0, 2, 0.4),
    };
    const f = memoryFixture(tableModel(vectors), new SqliteVectorIndex({ filename: ':memory:' }), {
      candidates: 3,
      feedback: { hits: 3, weight: 0 },
      neighbourWeight: 0,
    });
    // Each text in a session of its own (no previous turn joins it); the cosine-0 one last, so that a tie would put it first.
    for (const [i, text] of ['Lisbon.', 'near one', 'near two', 'near three', 'Lisbon!'].entries()) {
      await f.sessions.startSession(f.caller(), { sessionId: `s${i}` });
      await f.say(`s${i}`, 'agent', text);
    }
    await f.indexer.catchUp();
    const { hits } = await f.recall.recall({ tenantId: 't1', sessionId: 's0', query: 'Lisbon?', k: 3, scope: 'tenant', rewrite: false });
    const texts = hits.map((h) => h.text);
    expect(texts).toContain('Lisbon.');
    expect(texts.indexOf('Lisbon.')).toBeLessThan(texts.includes('Lisbon!') ? texts.indexOf('Lisbon!') : Infinity);
  });

  it('never ranks an item lower for waiting for its vector: the best keyword hit, not yet embedded, leads a weaker one that has its vector', async () => {
    // The newer Lisbon turn is as close to the question as can be; the older one has no vector yet (stage 1 only; stage 2 embeds newest first).
    const vectors: Record<string, Float32Array> = {
      'Lisbon hotel?': axisVector(D, 0),
      'Lisbon hotel booked': axisVector(D, 0),
      'Lisbon hotel': axisVector(D, 5),
    };
    const f = memoryFixture(tableModel(vectors), new SqliteVectorIndex({ filename: ':memory:' }), { feedback: { hits: 3, weight: 0 }, neighbourWeight: 0 });
    for (const [i, text] of ['Lisbon hotel', 'a quiet morning', 'the weather was fine', 'Lisbon hotel booked'].entries()) {
      await f.sessions.startSession(f.caller(), { sessionId: `s${i}` });
      await f.say(`s${i}`, 'agent', text);
    }
    await f.indexer.catchUp({ vectors: false });
    expect(await f.indexer.embedPending(3)).toBe(3); // newest first: every turn but the oldest has its vector
    const ask = async () =>
      (await f.recall.recall({ tenantId: 't1', sessionId: 's0', query: 'Lisbon hotel?', k: 2, scope: 'tenant', rewrite: false })).hits.map((h) => h.text);
    expect(await ask()).toEqual(['Lisbon hotel', 'Lisbon hotel booked']);
    // Caught up, the vectors decide: the newer turn's cosine 1 against the older one's 0 outweighs its keyword gap.
    await f.indexer.catchUp();
    expect(await ask()).toEqual(['Lisbon hotel booked', 'Lisbon hotel']);
  });

  it('gives a turn part of its neighbour’s score: the question before a strong answer rises above an unrelated turn', async () => {
    // Every turn equally far from the question: only keywords and neighbours tell them apart (without neighbours the two user turns tie).
    const vectors: Record<string, Float32Array> = { 'Porto?': axisVector(D, 0) };
    const f = memoryFixture(tableModel(vectors), new SqliteVectorIndex({ filename: ':memory:' }), {
      feedback: { hits: 3, weight: 0 },
      neighbourWeight: 0.25,
    });
    await f.sessions.startSession(f.caller(), { sessionId: 'trip' });
    await f.say('trip', 'user', 'Something unrelated happened');
    await f.say('trip', 'user', 'Where should we go next?');
    await f.say('trip', 'agent', 'Porto, for the river');
    await f.indexer.catchUp();
    const neighbours = (await f.recall.recall({ tenantId: 't1', sessionId: 'trip', query: 'Porto?', k: 3, rewrite: false })).hits;
    expect(neighbours[0]!.text).toBe('Porto, for the river');
    const score = (text: string) => neighbours.find((h) => h.text === text)?.score ?? 0;
    expect(score('Where should we go next?')).toBeGreaterThan(score('Something unrelated happened'));
  });
});
