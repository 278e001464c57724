import { describe, expect, it } from 'vitest';
import type { EmbeddingModel } from './embedding-model';
import { SqliteVectorIndex } from './sqlite-vec/sqlite-vector-index';
import { axisVector } from './testing';
import { memoryFixture } from './testing/memory-fixture';

/** Every text the same vector: only keywords (and the speaker stage) order the hits. */
const flatModel: EmbeddingModel = {
  info: async () => ({ id: 'flat-model', dimensions: 8 }),
  embed: async (texts) => texts.map(() => axisVector(8, 0)),
  close: async () => {},
};

async function transcript(speakerWeight: number, listSpeakerWeight?: number) {
  const f = memoryFixture(flatModel, new SqliteVectorIndex({ filename: ':memory:' }), {
    speakerWeight,
    ...(listSpeakerWeight === undefined ? {} : { listSpeakerWeight }),
    feedback: { hits: 3, weight: 0 },
    neighbourWeight: 0,
  });
  // One session per message: no previous turn joins a text.
  const lines = [
    '[8 May 2023] Caroline: Melanie, the concert! Melanie, concert tickets!',
    '[9 May 2023] Melanie: Matt Patterson sang at a concert in town last night, what a wonderful voice he has',
    '[9 May 2023] Melanie: Something else entirely',
  ];
  for (const [i, line] of lines.entries()) {
    await f.sessions.startSession(f.caller(), { sessionId: `s${i}` });
    await f.say(`s${i}`, i === 0 ? 'user' : 'agent', line);
  }
  await f.indexer.catchUp();
  return async (query: string) =>
    (await f.recall.recall({ tenantId: 't1', sessionId: 's0', query, k: 2, scope: 'tenant', rewrite: false })).hits.map((h) => h.text);
}

describe('recall of a question naming a speaker', () => {
  it("puts the named speaker's message first, only when the question names the speaker", async () => {
    const ask = await transcript(1);
    expect((await ask('Which concert has Melanie seen?'))[0]).toContain('Melanie: Matt Patterson');
    expect((await ask('Which concert tickets?'))[0]).toContain('Caroline:');
  });

  it('leaves the keyword order alone when the weight is 0', async () => {
    const ask = await transcript(0);
    expect((await ask('Which concert has Melanie seen?'))[0]).toContain('Caroline:');
  });

  it('weighs the named speaker more for a question asking for several things', async () => {
    const ask = await transcript(0.01, 1);
    expect((await ask('Which concert has Melanie seen?'))[0]).toContain('Caroline:');
    expect((await ask('Which bands at a concert has Melanie seen?'))[0]).toContain('Melanie: Matt Patterson');
  });

  it('gives list questions no speaker focus when speaker focus is off', async () => {
    const ask = await transcript(0, 1);
    expect((await ask('Which bands at a concert has Melanie seen?'))[0]).toContain('Caroline:');
  });
});
