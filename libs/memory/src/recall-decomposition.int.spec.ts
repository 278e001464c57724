import { describe, expect, it } from 'vitest';
import { DeterministicRewriter } from './deterministic-rewriter';
import type { EmbeddingModel } from './embedding-model';
import { EngineSessionPaths } from './engine-session-paths';
import type { QueryDecomposer } from './query-decomposer';
import { MemoryRecall, type MemoryRecallOptions } from './recall';
import { SqliteVectorIndex } from './sqlite-vec/sqlite-vector-index';
import { axisVector } from './testing';
import { memoryFixture } from './testing/memory-fixture';

/** Every text the same vector: only keywords (and the sub-questions) order the hits. */
const flatModel: EmbeddingModel = {
  info: async () => ({ id: 'flat-model', dimensions: 8 }),
  embed: async (texts) => texts.map(() => axisVector(8, 0)),
  close: async () => {},
};

const base: MemoryRecallOptions = { speakerWeight: 0, feedback: { hits: 3, weight: 0 }, neighbourWeight: 0 };

/** One person's cooking said over and over, the other's said once: the question's own list is crowded by the first. */
async function transcript(options: MemoryRecallOptions, decomposer?: QueryDecomposer) {
  const index = new SqliteVectorIndex({ filename: ':memory:' });
  const f = memoryFixture(flatModel, index, { ...base, ...options });
  const lines = [
    '[3 Mar 2024] Priya: I cook lentil curry every day, Priya cooks, Priya loves to cook',
    "[4 Mar 2024] Priya: cooking curry again with Priya's mum, we cook together",
    '[5 Mar 2024] Tomasz: pierogi tonight, my grandmother taught me',
    '[6 Mar 2024] Ines: the weather is lovely',
    '[7 Mar 2024] Ines: the train was late again',
    '[8 Mar 2024] Ines: I finished the book',
  ];
  // One session per message: no previous turn joins a text.
  for (const [i, line] of lines.entries()) {
    await f.sessions.startSession(f.caller(), { sessionId: `s${i}` });
    await f.say(`s${i}`, 'agent', line);
  }
  await f.indexer.catchUp();
  const recall = decomposer
    ? new MemoryRecall(
        { index, model: flatModel, paths: new EngineSessionPaths(f.sessions), rewriter: new DeterministicRewriter(), policies: f.policies, decomposer },
        { ...base, ...options },
      )
    : f.recall;
  return async (query: string) =>
    (await recall.recall({ tenantId: 't1', sessionId: 's0', query, k: 2, scope: 'tenant', rewrite: false })).hits.map((h) => h.text);
}

describe('recall of a question decomposed into sub-questions', () => {
  const question = 'What do Priya and Tomasz both cook?';

  it('leaves the part with the most matching words in front when decomposition is off', async () => {
    const ask = await transcript({ decomposition: { weight: 0 } });
    expect((await ask(question)).every((text) => text.includes('Priya:'))).toBe(true);
  });

  it("brings each named person's evidence into the top hits", async () => {
    const ask = await transcript({ decomposition: { weight: 1, by: 'rank' } });
    const hits = await ask(question);
    expect(hits.some((text) => text.includes('Tomasz:'))).toBe(true);
    expect(hits.some((text) => text.includes('Priya:'))).toBe(true);
  });

  it('asks the sub-questions of a decomposer given in its place (an LLM one)', async () => {
    const asked: string[] = [];
    const decomposer: QueryDecomposer = {
      decompose: async (q) => {
        asked.push(q);
        return ['What did Ines finish?'];
      },
    };
    // Its sub-question is about another speaker: kept whoever speaks (namedSpeakerOnly off).
    const ask = await transcript({ decomposition: { weight: 1, by: 'rank', namedSpeakerOnly: false } }, decomposer);
    expect(await ask('What has Priya cooked?')).toContain('[8 Mar 2024] Ines: I finished the book');
    expect(asked).toEqual(['What has Priya cooked?']);
  });
});
