import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ancestry, DomainError, type SessionCommand } from '@rewind/domain';
import { OnnxEmbeddingModel } from './onnx';
import { SqliteVectorIndex } from './sqlite-vec';
import { memoryFixture } from './testing';

const model = new OnnxEmbeddingModel({ model: 'all-minilm-l6-v2-q' });
afterAll(() => model.close());

const FACTS = [
  'hotel in Lisbon',
  'flight to Porto',
  'dinner at eight',
  'budget of 900 euros',
  'museum on Monday',
  'train to Sintra',
  'vegetarian menu',
  'room with a view',
];

type Op =
  | { kind: 'say'; role: 'user' | 'agent'; fact: number; session: number }
  | { kind: 'remember'; key: number; fact: number; session: number }
  | { kind: 'erase'; key: number; session: number }
  | { kind: 'undo'; steps: number; session: number }
  | { kind: 'redo'; session: number }
  | { kind: 'rollback'; back: number; session: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('say' as const),
      role: fc.constantFrom('user' as const, 'agent' as const),
      fact: fc.nat(FACTS.length - 1),
      session: fc.nat(1),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remember' as const), key: fc.nat(2), fact: fc.nat(FACTS.length - 1), session: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('erase' as const), key: fc.nat(2), session: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('undo' as const), steps: fc.integer({ min: 1, max: 3 }), session: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('redo' as const), session: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rollback' as const), back: fc.integer({ min: 1, max: 6 }), session: fc.nat(1) }) },
);

describe('branch-aware recall (property)', () => {
  it('for random timelines with rollbacks, undo and redo, no recalled item lies off its session’s current path', async () => {
    await model.info();
    let counter = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), fc.nat(FACTS.length - 1), fc.boolean(), async (ops, question, tenantWide) => {
        const index = new SqliteVectorIndex({ filename: ':memory:' });
        const f = memoryFixture(model, index);
        const sessions = ['a', 'b'];
        for (const id of sessions) await f.sessions.startSession(f.caller(), { sessionId: id });
        for (const o of ops) {
          const sessionId = sessions[o.session]!;
          const state = await f.sessions.getState(f.caller(), sessionId);
          const command: SessionCommand =
            o.kind === 'say'
              ? { type: 'RecordMessage', role: o.role, content: `${FACTS[o.fact]} (note ${counter++})` }
              : o.kind === 'remember'
                ? { type: 'WriteMemory', key: `k${o.key}`, value: `${FACTS[o.fact]} ${counter++}` }
                : o.kind === 'erase'
                  ? { type: 'EraseMemory', key: `k${o.key}` }
                  : o.kind === 'undo'
                    ? { type: 'MoveHead', kind: 'undo', steps: o.steps }
                    : o.kind === 'redo'
                      ? { type: 'MoveHead', kind: 'redo' }
                      : { type: 'MoveHead', kind: 'rollback', toVersion: Math.max(1, state.head - o.back) };
          try {
            await f.sessions.execute(f.caller(), sessionId, command);
          } catch (error) {
            // A refused command (nothing to undo, erase of a missing key, ...) persists nothing.
            if (!(error instanceof DomainError)) throw error;
          }
          // Index at random moments too, so some items are indexed before the move that abandons them.
          if (counter % 3 === 0) await f.indexer.catchUp();
        }
        await f.indexer.catchUp();
        const result = await f.recall.recall({ tenantId: 't1', sessionId: 'a', query: FACTS[question]!, k: 50, scope: tenantWide ? 'tenant' : 'session' });
        for (const hit of result.hits) {
          const state = await f.sessions.getState(f.caller(), hit.sessionId);
          expect(ancestry(state.timeline, state.head)).toContain(hit.version);
          if (!tenantWide) expect(hit.sessionId).toBe('a');
        }
        // And nothing on the path is lost: every message on session a's path is recallable.
        const a = await f.sessions.getState(f.caller(), 'a');
        const onPath = a.path.turns.flatMap((t) => t.messages).length;
        const all = await f.recall.recall({ tenantId: 't1', sessionId: 'a', query: FACTS[question]!, k: 1000, rewrite: false });
        expect(all.hits.filter((h) => h.role === 'user' || h.role === 'agent')).toHaveLength(onPath);
        await index.close();
      }),
      { numRuns: 40 },
    );
  });
});
