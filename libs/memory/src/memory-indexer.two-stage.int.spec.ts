import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryCheckpointStore } from '@rewind/event-store/subscriptions';
import type { EmbeddingModel, EmbedOptions } from './embedding-model';
import { LanguageRoutedEmbeddingModel, LanguageSpacesIndex } from './language';
import { MemoryIndexer } from './memory-indexer';
import { SqliteVectorIndex } from './sqlite-vec';
import { axisVector, memoryFixture, memoryItem, rawIndexBytes, useTempIndexFile } from './testing';

const D = 32;

/**
 * A stand-in model: each text's words hashed into D dimensions (unit length), no ONNX. It counts
 * the passages it embeds, per text, and can be held (a gate on passages; questions pass) to play
 * a model slower than the writes.
 */
class CountingModel implements EmbeddingModel {
  readonly embedded = new Map<string, number>();
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  private reached: (() => void) | undefined;

  constructor(
    private readonly id = 'counting-model',
    private readonly dimensions = D,
  ) {}

  /** Holds passages until release(); resolves when one is held. */
  hold(): Promise<void> {
    this.gate = new Promise((resolve) => (this.open = resolve));
    return new Promise((resolve) => (this.reached = resolve));
  }

  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  async info() {
    return { id: this.id, dimensions: this.dimensions };
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const passages = options.kind !== 'query';
    if (passages && this.gate) {
      this.reached?.();
      await this.gate;
    }
    return texts.map((text) => {
      if (passages) this.embedded.set(text, (this.embedded.get(text) ?? 0) + 1);
      const v = new Float32Array(this.dimensions);
      for (const word of text.toLowerCase().match(/[a-z0-9]+|[^\sa-z0-9\p{P}]/gu) ?? [])
        v[[...word].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % this.dimensions]! += 1;
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    });
  }

  async close(): Promise<void> {}
}

/** A word no other turn has, so that a keyword search for it finds exactly its turn. */
const marker = (i: number) => `zork${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}q`;
const turn = (i: number) => `Turn ${i} mentions the ${marker(i)} harbour`;

/** Polls until `done` holds (bounded by rounds, not time). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 2000; i++) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${what} did not happen; last: ${JSON.stringify(last)}`);
}

describe('two-stage memory indexing (SQLite index on a file, a stand-in model)', () => {
  const file = useTempIndexFile();
  let index: SqliteVectorIndex;

  beforeEach(() => {
    index = new SqliteVectorIndex({ filename: file.filename });
  });
  afterEach(async () => {
    await index.close();
  });

  it('a burst the model cannot embed is searchable by keywords once stage 1 has read it; the vectors follow, each item embedded once', async () => {
    const model = new CountingModel();
    const f = memoryFixture(model, index);
    const indexer = new MemoryIndexer({ store: f.store, checkpoints: f.checkpoints, index, model, policies: f.policies, batchSize: 16, vectorBatchSize: 8 });
    await f.sessions.startSession(f.caller(), { sessionId: 's1' });
    const N = 120;
    for (let i = 0; i < N; i++) await f.say('s1', i % 2 ? 'agent' : 'user', turn(i));
    void model.hold();
    indexer.start();
    // Stage 1 reaches the head of the log while the model embeds nothing.
    const admitted = await until(
      () => indexer.status(),
      (s) => s.lag === 0,
      'stage 1 reaching the head',
    );
    expect(admitted).toMatchObject({ stages: 2, items: N, indexedItems: N, pendingVectors: N, embeddedItems: 0 });
    expect(admitted.oldestPendingVectorPosition).toBeGreaterThan(0);
    for (let i = 0; i < N; i++) {
      const hits = await index.searchText(marker(i), { tenantId: 't1', sessionId: 's1' }, 5);
      // Its own turn, and the next one (whose previous turn it is).
      expect(hits.map((h) => h.item.text)).toContain(turn(i));
      expect(hits.every((h) => h.vector === undefined)).toBe(true); // no vector yet: recall scores them by keywords alone
    }
    expect(await index.searchVector((await model.embed([turn(0)], { kind: 'query' }))[0]!, { tenantId: 't1' }, 5)).toEqual([]);
    // Recall answers from keywords meanwhile.
    const meanwhile = await f.recall.recall({ tenantId: 't1', sessionId: 's1', query: `Which turn mentions the ${marker(7)} harbour?` });
    expect(meanwhile.hits.map((h) => h.text)).toContain(turn(7));

    model.release();
    const done = await until(
      () => indexer.status(),
      (s) => s.pendingVectors === 0,
      'stage 2 catching up',
    );
    expect(done).toMatchObject({ items: N, embeddedItems: N, oldestPendingVectorPosition: null, lastError: null });
    await indexer.stop();
    expect([...model.embedded.values()].every((n) => n === 1)).toBe(true);
    expect(model.embedded.size).toBe(N);
    // Every item is now found by similarity too, with its vector.
    const byVector = await index.searchVector((await model.embed([turn(42)], { kind: 'query' }))[0]!, { tenantId: 't1' }, N);
    expect(byVector).toHaveLength(N);
    expect(byVector[0]!.item.text).toBe(turn(42));
    expect((await index.searchText(marker(42), { tenantId: 't1' }, 1))[0]!.vector).toBeInstanceOf(Float32Array);
  });

  it('under a backlog the newest items get their vectors first, and the status reports how fast the backlog fills and drains', async () => {
    const model = new CountingModel();
    const f = memoryFixture(model, index);
    await f.sessions.startSession(f.caller(), { sessionId: 's1' });
    const N = 40;
    for (let i = 0; i < N; i++) await f.say('s1', 'user', turn(i));
    await f.indexer.catchUp({ vectors: false });
    const admitted = await f.indexer.status();
    expect(admitted).toMatchObject({ pendingVectors: N, vectorsPerSecond: 0, pendingVectorsDrainSeconds: null });
    expect(admitted.admittedPerSecond).toBeGreaterThan(0);
    expect(await f.indexer.embedPending(8)).toBe(8);
    // The eight newest turns (the last written) were embedded: they are the ones found by similarity.
    expect(new Set(model.embedded.keys())).toEqual(new Set(Array.from({ length: 8 }, (_, k) => turn(N - 1 - k))));
    const byVector = await index.searchVector((await model.embed([turn(N - 1)], { kind: 'query' }))[0]!, { tenantId: 't1' }, N);
    expect(byVector.map((h) => h.item.text).sort()).toEqual(Array.from({ length: 8 }, (_, k) => turn(N - 1 - k)).sort());
    // The oldest item still waits (its position is reported), and the next batch takes the next newest.
    const draining = await f.indexer.status();
    expect(draining.pendingVectors).toBe(N - 8);
    expect(draining.oldestPendingVectorPosition).toBe(admitted.oldestPendingVectorPosition);
    expect(draining.vectorsPerSecond).toBeGreaterThan(0);
    const shrinking = draining.vectorsPerSecond - draining.admittedPerSecond;
    expect(draining.pendingVectorsDrainSeconds).toBe(shrinking > 0 ? Math.ceil(draining.pendingVectors / shrinking) : null);
    expect((await index.pendingItems(1))[0]!.text).toBe(turn(N - 9));
    await f.indexer.catchUp();
    expect(await f.indexer.status()).toMatchObject({ pendingVectors: 0, oldestPendingVectorPosition: null, pendingVectorsDrainSeconds: null });
  });

  it('shredding removes items still awaiting their vectors, with the previous turn they kept for embedding; stage 2 does not bring them back', async () => {
    const model = new CountingModel();
    const f = memoryFixture(model, index);
    for (const id of ['secret', 'kept']) await f.sessions.startSession(f.caller(), { sessionId: id });
    await f.say('secret', 'user', 'My locker code at the Quixotrella gym is 7741');
    await f.say('secret', 'agent', 'Noted, the locker opens with that code.');
    await f.say('kept', 'user', 'The Plumbifora bakery opens at seven');
    await f.indexer.catchUp({ vectors: false });
    expect((await index.pendingVectors()).items).toBe(3);
    // The agent's turn keeps its previous turn (the user's) for embedding: in the backlog's table.
    expect((await index.pendingItems(10)).find((i) => i.role === 'agent')?.context).toContain('Quixotrella');
    const held = model.hold();
    const embedding = f.indexer.embedPending(10);
    await held;
    expect(await f.indexer.shred({ tenantId: 't1', sessionId: 'secret' })).toBe(2);
    model.release();
    expect(await embedding).toBe(3); // read before the shred: all embedded, only the kept one attached
    expect(await index.pendingVectors()).toEqual({ items: 0, oldestPosition: null });
    expect(await index.count()).toBe(1);
    expect(await index.count({ tenantId: 't1', sessionId: 'secret' })).toBe(0);
    const bytes = rawIndexBytes(file.filename);
    for (const word of ['Quixotrella', 'quixotrella', 'locker']) expect(bytes).not.toContain(word);
    expect(bytes).toContain('Plumbifora');
  });

  it('deleteScope and counts cover items awaiting their vectors', async () => {
    const model = new CountingModel();
    const f = memoryFixture(model, index);
    for (const id of ['a', 'b']) await f.sessions.startSession(f.caller(), { sessionId: id });
    for (let i = 0; i < 6; i++) await f.say(i % 2 ? 'a' : 'b', 'user', turn(i));
    await f.indexer.catchUp({ vectors: false });
    await f.indexer.embedPending(2);
    expect(await index.count()).toBe(6);
    expect((await index.pendingVectors()).items).toBe(4);
    expect(await index.deleteScope({ tenantId: 't1', sessionId: 'a' })).toBe(3);
    expect(await index.count()).toBe(3);
    expect((await f.indexer.status()).pendingVectors).toBeLessThan(4);
    await f.indexer.catchUp();
    expect(await index.pendingVectors()).toEqual({ items: 0, oldestPosition: null });
    expect(await index.count({ tenantId: 't1', sessionId: 'b' })).toBe(3);
  });

  it('vectors attached out of admission order are found by similarity (the codes held in memory are read again)', async () => {
    await index.open({ id: 'axis-model', dimensions: 8 });
    const texts = ['first harbour note', 'second harbour note', 'third harbour note'];
    const admitted = texts.map((text, i) => memoryItem({ id: `e${i}:0`, text, globalPosition: i + 1 }));
    expect(await index.admit(admitted)).toBe(3);
    expect(await index.admit(admitted)).toBe(0); // redelivered: nothing new, nothing reset
    const scope = { tenantId: 't1' };
    expect(await index.attachVectors([{ item: admitted[2]!, vector: axisVector(8, 2) }])).toBe(1);
    expect((await index.searchVector(axisVector(8, 2), scope, 3)).map((h) => h.item.id)).toEqual(['e2:0']);
    expect(await index.attachVectors([{ item: admitted[0]!, vector: axisVector(8, 0) }])).toBe(1);
    expect((await index.searchVector(axisVector(8, 0), scope, 1)).map((h) => h.item.id)).toEqual(['e0:0']);
    expect(await index.attachVectors([{ item: admitted[0]!, vector: axisVector(8, 5) }])).toBe(0); // given already: left alone
    expect(await index.pendingItems(5)).toEqual([expect.objectContaining({ id: 'e1:0' })]);
  });

  type Op = { kind: 'say'; turns: number } | { kind: 'keywords' } | { kind: 'vectors'; limit: number } | { kind: 'restart'; rewind: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('say' as const), turns: fc.integer({ min: 1, max: 6 }) }),
    fc.constant({ kind: 'keywords' as const }),
    fc.record({ kind: fc.constant('vectors' as const), limit: fc.integer({ min: 1, max: 7 }) }),
    // A restart; `rewind` > 0: a crash before the checkpoint was saved, so stage 1 reads that many events again.
    fc.record({ kind: fc.constant('restart' as const), rewind: fc.integer({ min: 0, max: 8 }) }),
  );

  it('restarts between the stages lose nothing and double nothing (property: interleavings of writes, stage-1 and stage-2 batches, restarts)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const filename = `${file.filename}.${run++}`;
        const model = new CountingModel();
        let fileIndex = new SqliteVectorIndex({ filename });
        const f = memoryFixture(model, fileIndex);
        let checkpoints = new InMemoryCheckpointStore();
        const make = () => new MemoryIndexer({ store: f.store, checkpoints, index: fileIndex, model, policies: f.policies, batchSize: 4, vectorBatchSize: 3 });
        let indexer = make();
        await f.sessions.startSession(f.caller(), { sessionId: 's1' });
        let said = 0;
        try {
          for (const step of ops) {
            if (step.kind === 'say') for (let i = 0; i < step.turns; i++) await f.say('s1', 'user', turn(said++));
            else if (step.kind === 'keywords') await indexer.catchUp({ vectors: false });
            else if (step.kind === 'vectors') await indexer.embedPending(step.limit);
            else {
              // (Kept per model: ModelCheckpoints.)
              const key = await indexer.checkpointName();
              await indexer.stop();
              await fileIndex.close();
              // A checkpoint store never moves back: a crash that lost the last saves is a store holding an earlier position.
              const at = await checkpoints.load(key);
              checkpoints = new InMemoryCheckpointStore();
              await checkpoints.save(key, Math.max(0, at - step.rewind));
              fileIndex = new SqliteVectorIndex({ filename });
              indexer = make();
            }
            // Whatever stage 1 has passed is searchable by keywords, with or without a vector.
            const position = await checkpoints.load(await indexer.checkpointName());
            const events = await f.store.readAll({ after: 0, limit: 10_000 });
            const passed = events.filter((e) => e.type === 'UserMessageReceived' && e.globalPosition <= position).length;
            expect(await fileIndex.count()).toBeGreaterThanOrEqual(passed);
            for (let i = 0; i < passed; i++) expect((await fileIndex.searchText(marker(i), { tenantId: 't1' }, 3)).map((h) => h.item.text)).toContain(turn(i));
          }
          await indexer.catchUp();
          // Every turn once, each with its vector, each embedded exactly once.
          expect(await fileIndex.count()).toBe(said);
          expect(await fileIndex.pendingVectors()).toEqual({ items: 0, oldestPosition: null });
          expect([...model.embedded.entries()].filter(([, n]) => n !== 1)).toEqual([]);
          expect(model.embedded.size).toBe(said);
          if (said > 0)
            expect(await fileIndex.searchVector((await model.embed([turn(0)], { kind: 'query' }))[0]!, { tenantId: 't1' }, said + 5)).toHaveLength(said);
        } finally {
          await indexer.stop();
          await fileIndex.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('language routing: an item awaits its vector in its language model’s tables, and gets it there', async () => {
    const english = new CountingModel('en-model', 8);
    const chinese = new CountingModel('zh-model', 16);
    const routed = new LanguageRoutedEmbeddingModel([
      { language: 'en', model: english, id: 'en-model', dimensions: 8 },
      { language: 'zh', model: chinese, id: 'zh-model', dimensions: 16 },
    ]);
    const spaces = new LanguageSpacesIndex(index, () => index.sibling());
    const f = memoryFixture(routed, spaces);
    await f.sessions.startSession(f.caller(), { sessionId: 's1' });
    await f.say('s1', 'user', 'We booked the Hilton in Shanghai');
    await f.say('s1', 'user', '我们在上海订了希尔顿酒店，三晚');
    await f.indexer.catchUp({ vectors: false });
    expect(await spaces.models()).toEqual([
      { id: 'en-model', dimensions: 8, language: 'en', items: 1, pendingVectors: 1 },
      { id: 'zh-model', dimensions: 16, language: 'zh', items: 1, pendingVectors: 1 },
    ]);
    expect((await spaces.pendingVectors!()).items).toBe(2);
    expect((await spaces.searchText('上海', { tenantId: 't1' }, 5)).map((h) => h.item.text)).toEqual(['我们在上海订了希尔顿酒店，三晚']);
    await f.indexer.catchUp();
    expect((await spaces.pendingVectors!()).items).toBe(0);
    expect([english.embedded.size, chinese.embedded.size]).toEqual([1, 1]);
    expect(await spaces.models()).toEqual([
      { id: 'en-model', dimensions: 8, language: 'en', items: 1, pendingVectors: 0 },
      { id: 'zh-model', dimensions: 16, language: 'zh', items: 1, pendingVectors: 0 },
    ]);
    const [zh] = await routed.embed(['上海的酒店'], { kind: 'query', languageOf: ['上海的酒店'] });
    expect((await spaces.searchVector(zh!, { tenantId: 't1' }, 5)).map((h) => h.item.text)).toEqual(['我们在上海订了希尔顿酒店，三晚']);
  });
});
