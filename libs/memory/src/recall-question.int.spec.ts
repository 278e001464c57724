import { describe, expect, it } from 'vitest';
import type { EmbeddingModel } from './embedding-model';
import { asksForInference, asksForList } from './recall-question';
import { SqliteVectorIndex } from './sqlite-vec/sqlite-vector-index';
import { axisVector } from './testing';
import { memoryFixture } from './testing/memory-fixture';

const D = 8;
/** Both questions point where the paraphrase does; the keyword match points elsewhere. */
const vectors: Record<string, Float32Array> = {
  'Would Melanie enjoy a museum?': axisVector(D, 0),
  'Does Melanie enjoy a museum?': axisVector(D, 0),
  'She adores old paintings and galleries': axisVector(D, 0),
  'Melanie skipped the museum queue': axisVector(D, 3),
};
const tableModel: EmbeddingModel = {
  info: async () => ({ id: 'table-model', dimensions: D }),
  embed: async (texts) => texts.map((t) => vectors[t] ?? axisVector(D, 5)),
  close: async () => {},
};

describe('questions asking for an inference', () => {
  it('tells them from questions asking what was said', () => {
    expect(asksForInference('Would Melanie be more interested in a national park or a theme park?')).toBe(true);
    expect(asksForInference('What might John’s financial status be?')).toBe(true);
    expect(asksForInference('What did Melanie paint?')).toBe(false);
    expect(asksForList('What activities does Melanie partake in?')).toBe(true);
    expect(asksForList('What do Jon and Gina both have in common?')).toBe(true);
    expect(asksForList('When did Melanie paint a sunrise?')).toBe(false);
  });

  it('weighs meaning over words for a question asking for an inference, and only for it', async () => {
    const f = memoryFixture(tableModel, new SqliteVectorIndex({ filename: ':memory:' }), {
      inferenceDenseWeight: 0.7,
      feedback: { hits: 3, weight: 0 },
      neighbourWeight: 0,
    });
    // One session each: no neighbour, no previous turn joins a text.
    for (const [i, text] of ['She adores old paintings and galleries', 'Melanie skipped the museum queue', 'Something unrelated'].entries()) {
      await f.sessions.startSession(f.caller(), { sessionId: `s${i}` });
      await f.say(`s${i}`, 'agent', text);
    }
    await f.indexer.catchUp();
    const first = async (query: string) =>
      (await f.recall.recall({ tenantId: 't1', sessionId: 's0', query, k: 2, scope: 'tenant', rewrite: false })).hits[0]!.text;
    expect(await first('Would Melanie enjoy a museum?')).toBe('She adores old paintings and galleries');
    expect(await first('Does Melanie enjoy a museum?')).toBe('Melanie skipped the museum queue');
  });
});
