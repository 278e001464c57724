import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DomainError, lazyPartOf, type SessionCommand, type SessionState } from '@rewind/domain';
import { commandsFor, intentArb, type Intent } from '@rewind/domain/testing';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SealedHistoryLoader } from './sealed-history-loader';
import { SessionRepository } from './session-repository';
import { SessionService } from './session-service';
import { SegmentCache } from './snapshot-segments';
import { sessionStreamId } from './stream-id';

const RUNS = Math.max(1, Math.floor(Number(process.env.REWIND_PROPERTY_RUNS ?? 1000) / 4));
const caller = { tenantId: 't', actor: 'tester' };
const streamId = sessionStreamId('t', 's');
/** Tiny segments: short sessions seal many, and old turns and tool calls are in sealed ones. */
const segmentSizes = { turns: 2, toolCalls: 2, timeline: 4 };
const HEAD_MOVES = ['rollback', 'fork', 'toCheckpoint', 'undo', 'redo'];

/**
 * What a session goes through: generated intents (head moves among them), commands naming old
 * turns and tool calls (late answers, interrupts, finishing or retrying an old call), batches,
 * tool-call ids that look like array indexes, and the state dropped from the cache (the next
 * write restores it over its snapshot's segments).
 */
type Op =
  | { kind: 'intent'; intent: Intent }
  | { kind: 'late'; action: 'complete' | 'fail' | 'retry' | 'answer' | 'interrupt' | 'thought' | 'unknownTurn'; pick: number }
  | { kind: 'batch'; intents: Intent[] }
  | { kind: 'indexLikeCall'; n: number }
  | { kind: 'evict' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: intentArb.map((intent) => ({ kind: 'intent' as const, intent })) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('late' as const),
      action: fc.constantFrom(
        'complete' as const,
        'fail' as const,
        'retry' as const,
        'answer' as const,
        'interrupt' as const,
        'thought' as const,
        'unknownTurn' as const,
      ),
      pick: fc.nat(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('batch' as const),
      intents: fc.array(
        intentArb.filter((intent) => !HEAD_MOVES.includes(intent.kind)),
        { minLength: 2, maxLength: 5 },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('indexLikeCall' as const), n: fc.nat({ max: 30 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'evict' as const }) },
);

const pick = <T>(items: readonly T[], n: number): T | undefined => (items.length ? items[n % items.length] : undefined);

function lateCommands(action: Extract<Op, { kind: 'late' }>['action'], n: number, state: SessionState): SessionCommand[] {
  const calls = Object.values(state.path.toolCalls);
  const turn = pick(state.path.turns, n);
  switch (action) {
    case 'complete':
    case 'fail': {
      const call = pick(
        calls.filter((c) => c.status === 'started'),
        n,
      );
      if (!call) return [];
      return action === 'complete'
        ? [{ type: 'CompleteToolCall', toolCallId: call.toolCallId, output: { late: n } }]
        : [{ type: 'FailToolCall', toolCallId: call.toolCallId, error: `late ${n}`, retryable: true }];
    }
    case 'retry': {
      const call = pick(
        calls.filter((c) => c.status === 'failed'),
        n,
      );
      // An old call started again, and one that exists (refused unless it failed).
      const any = pick(calls, n);
      return [
        ...(call ? [{ type: 'StartToolCall' as const, toolCallId: call.toolCallId, tool: 'search', input: { retry: n } }] : []),
        ...(any ? [{ type: 'StartToolCall' as const, toolCallId: any.toolCallId, tool: 'search', input: { again: n } }] : []),
      ];
    }
    case 'answer':
      return turn ? [{ type: 'RecordMessage', role: 'agent', content: `late ${n}`, turnId: turn.turnId }] : [];
    case 'interrupt':
      return turn ? [{ type: 'InterruptTurn', turnId: turn.turnId, partialContent: n % 2 ? `cut ${n}` : '' }] : [];
    case 'thought':
      return turn ? [{ type: 'RecordThought', turnId: turn.turnId, content: `about ${n}` }] : [];
    case 'unknownTurn':
      return [{ type: 'RecordMessage', role: 'agent', content: 'lost', turnId: `no-such-turn-${n}` }];
  }
}

/**
 * Generated ids renamed in order of first appearance: the services' (`id-N`: a decision retried after loading draws
 * ids again) and the generated tool calls' (`call-N`: commandsFor numbers them across calls, once per service).
 */
function normalised(value: unknown): string {
  const names = new Map<string, string>();
  return JSON.stringify(value).replace(/(?:id|call)-\d+/g, (id) => {
    if (!names.has(id)) names.set(id, `#${names.size}`);
    return names.get(id)!;
  });
}

type Outcome = { ok: true; events: string[] } | { ok: false; code: string };

async function outcome(write: () => Promise<{ events: { type: string }[] }>): Promise<Outcome> {
  try {
    return { ok: true, events: (await write()).events.map((event) => event.type) };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { ok: false, code: error.code };
  }
}

function service(store: InMemoryEventStore, repository: (store: InMemoryEventStore) => SessionRepository): SessionService {
  let n = 0;
  return new SessionService(repository(store), { newId: () => `id-${++n}`, now: () => new Date('2026-11-29T10:00:00Z') });
}

/**
 * The same commands on two services: one deciding on whole states (no snapshots), one whose
 * states keep their sealed history in snapshot segments, with a segment cache that keeps nothing
 * (every segment a decision or a fold reads is loaded for it) and its state dropped now and then.
 * Every decision (accepted with the same events, or refused with the same code) and every state
 * after it must be the same.
 */
async function sameAsWholeStates(ops: readonly Op[], stride: number, viewsFromEvents?: number): Promise<void> {
  const options = { snapshotEvery: stride, segmentSizes, ...(viewsFromEvents !== undefined ? { viewsFromEvents } : {}) };
  const whole = service(new InMemoryEventStore(), (store) => new SessionRepository(store, { snapshotEvery: 0 }));
  const subjectStore = new InMemoryEventStore();
  const subject = service(subjectStore, (store) => new SessionRepository(store, { ...options, segmentCache: new SegmentCache(1) }));
  const both = async (run: (s: SessionService) => Promise<{ events: { type: string }[] }>) => {
    const expected = await outcome(() => run(whole));
    expect(await outcome(() => run(subject))).toEqual(expected);
    return expected.ok;
  };
  // Each service's commands come from its own state: the same up to the generated ids (a decision retried after
  // loading draws ids again, so the two number them differently).
  const commands = async (s: SessionService, of: (state: SessionState) => SessionCommand[]) => of(await s.getState(caller, 's'));
  const run = async (of: (state: SessionState) => SessionCommand[]) => {
    const [forWhole, forSubject] = [await commands(whole, of), await commands(subject, of)];
    for (let i = 0; i < forWhole.length; i++) {
      if (!(await both((s) => s.execute(caller, 's', (s === whole ? forWhole : forSubject)[i]!)))) break;
    }
  };
  await both((s) => s.startSession(caller, { sessionId: 's' }));
  for (const op of ops) {
    switch (op.kind) {
      case 'intent':
        await run((state) => commandsFor(op.intent, state));
        break;
      case 'late':
        await run((state) => lateCommands(op.action, op.pick, state));
        break;
      case 'batch': {
        const of = (state: SessionState) => op.intents.flatMap((intent) => commandsFor(intent, state));
        const [forWhole, forSubject] = [await commands(whole, of), await commands(subject, of)];
        if (forWhole.length > 0) await both((s) => s.executeSteps(caller, 's', s === whole ? forWhole : forSubject));
        break;
      }
      case 'indexLikeCall':
        await run(() => [
          { type: 'StartToolCall', toolCallId: String(op.n), tool: 'search', input: { n: op.n } },
          { type: 'CompleteToolCall', toolCallId: String(op.n), output: { n: op.n } },
        ]);
        break;
      case 'evict':
        await subject.repository.flushSnapshots();
        subject.repository.forget(streamId);
        break;
    }
    expect(normalised(await subject.getState(caller, 's'))).toBe(normalised(await whole.getState(caller, 's')));
  }
  await subject.repository.flushSnapshots();
  // And a restart: a new repository restores the state over the snapshots this one wrote.
  const restarted = service(subjectStore, (store) => new SessionRepository(store, { ...options, segmentCache: new SegmentCache(1) }));
  expect(normalised(await restarted.getState(caller, 's'))).toBe(normalised(await whole.getState(caller, 's')));
}

describe('a state whose sealed history stays in snapshot segments (property-based, issue 40)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('decides and folds exactly as a whole state, for commands naming old turns and tool calls after their segments were evicted, and head moves', async () => {
    const prepared = vi.spyOn(SessionRepository.prototype, 'prepare');
    const retried = vi.spyOn(SessionRepository.prototype, 'loadHistory');
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 40 }), fc.integer({ min: 1, max: 6 }), (ops, stride) => sameAsWholeStates(ops, stride)),
      { numRuns: RUNS },
    );
    // The runs did decide on such states, loading segments before deciding and after a decision found one missing.
    expect(prepared.mock.calls.filter(([state]) => lazyPartOf(state.timeline) !== undefined).length).toBeGreaterThan(RUNS);
    expect(prepared.mock.results.some((result) => result.value !== undefined)).toBe(true);
    expect(retried).toHaveBeenCalled();
  });

  it('decides and folds exactly as a whole state when a cached whole state becomes one at its snapshot (viewsFromEvents), with its segments written after it', async () => {
    const became = vi.spyOn(SealedHistoryLoader.prototype, 'viewOf');
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 5, maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 40 }),
        (ops, stride, viewsFromEvents) => sameAsWholeStates(ops, stride, viewsFromEvents),
      ),
      { numRuns: RUNS },
    );
    // Whole states did become views in place (not only by being restored), reading segments not yet written.
    expect(became.mock.calls.length).toBeGreaterThan(RUNS / 10);
    expect(became.mock.calls.some(([, , , unstored]) => unstored.length > 0)).toBe(true);
  });
});
