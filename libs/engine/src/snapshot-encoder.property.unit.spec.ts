import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DomainError, replay, type RecordedSessionEvent, type SessionCommand, type SessionState } from '@rewind/domain';
import { commandsFor, intentArb, type Intent } from '@rewind/domain/testing';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository } from './session-repository';
import { SessionService } from './session-service';
import { encodeSnapshot, nameSegments, SegmentCache, SnapshotEncoder } from './snapshot-segments';
import { sessionStreamId } from './stream-id';

const RUNS = Math.max(1, Math.floor(Number(process.env.REWIND_PROPERTY_RUNS ?? 1000) / 4));
const caller = { tenantId: 't', actor: 'tester' };
const streamId = sessionStreamId('t', 's');
/** Tiny segments, so that short sessions seal many chunks and change items inside sealed ones. */
const segmentSizes = { turns: 2, toolCalls: 2, timeline: 4 };
const HEAD_MOVES = ['rollback', 'fork', 'toCheckpoint', 'undo', 'redo'];

/**
 * What a session goes through: the generated intents (head moves among them), and what they do
 * not do: changes to old turns and tool calls (late answers, interrupts, finishing or retrying an
 * old call), batches of steps (several new keys in one fold), tool-call ids that look like array
 * indexes (listed first in a record, whatever their order), and a restart (a restored state that
 * shares frozen items with the segment cache).
 */
type Op =
  | { kind: 'intent'; intent: Intent }
  | { kind: 'late'; action: 'complete' | 'fail' | 'retry' | 'answer' | 'interrupt'; pick: number }
  | { kind: 'batch'; intents: Intent[] }
  | { kind: 'indexLikeCall'; n: number }
  | { kind: 'restart' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: intentArb.map((intent) => ({ kind: 'intent' as const, intent })) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('late' as const),
      action: fc.constantFrom('complete' as const, 'fail' as const, 'retry' as const, 'answer' as const, 'interrupt' as const),
      pick: fc.nat(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('batch' as const),
      intents: fc.array(
        intentArb.filter((i) => !HEAD_MOVES.includes(i.kind)),
        { minLength: 2, maxLength: 6 },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('indexLikeCall' as const), n: fc.nat({ max: 30 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

const pick = <T>(items: readonly T[], n: number): T | undefined => (items.length ? items[n % items.length] : undefined);

function lateCommand(action: Extract<Op, { kind: 'late' }>['action'], n: number, state: SessionState): SessionCommand | undefined {
  const calls = Object.values(state.path.toolCalls);
  const turn = pick(state.path.turns, n);
  switch (action) {
    case 'complete':
    case 'fail': {
      const call = pick(
        calls.filter((c) => c.status === 'started'),
        n,
      );
      if (!call) return undefined;
      return action === 'complete'
        ? { type: 'CompleteToolCall', toolCallId: call.toolCallId, output: { late: n } }
        : { type: 'FailToolCall', toolCallId: call.toolCallId, error: `late ${n}`, retryable: true };
    }
    case 'retry': {
      const call = pick(
        calls.filter((c) => c.status === 'failed'),
        n,
      );
      return call && { type: 'StartToolCall', toolCallId: call.toolCallId, tool: 'search', input: { retry: n } };
    }
    case 'answer':
      return turn && { type: 'RecordMessage', role: 'agent', content: `late ${n}`, turnId: turn.turnId };
    case 'interrupt':
      return turn && { type: 'InterruptTurn', turnId: turn.turnId, partialContent: n % 2 ? `cut ${n}` : '' };
  }
}

/** A snapshot as written: its version and its state (a segmented head, or a whole state). */
interface Written {
  version: number;
  json: string;
}

/**
 * Drives a session through `ops`, with a snapshot after every `stride` events, and checks each
 * snapshot the repository wrote (encoded incrementally, from the state it keeps changing in place)
 * against one encoded from scratch from a replay of the events up to its version.
 */
async function snapshotsMatchScratch(ops: readonly Op[], stride: number): Promise<void> {
  const store = new InMemoryEventStore();
  const written: Written[] = [];
  const save = store.saveSnapshot.bind(store);
  store.saveSnapshot = (snapshot, segments = []) => {
    written.push({ version: snapshot.version, json: JSON.stringify(snapshot.state) });
    return save(snapshot, segments);
  };
  const repository = () => new SessionRepository(store, { snapshotEvery: stride, segmentSizes, segmentCache: new SegmentCache() });
  let service = new SessionService(repository());
  await service.startSession(caller, { sessionId: 's' });
  const run = async (command: SessionCommand | SessionCommand[] | undefined) => {
    if (command === undefined) return false;
    try {
      if (Array.isArray(command)) await service.executeSteps(caller, 's', command);
      else await service.execute(caller, 's', command);
      return true;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return false;
    }
  };
  for (const op of ops) {
    const state = await service.getState(caller, 's');
    switch (op.kind) {
      case 'intent':
        for (const command of commandsFor(op.intent, state)) if (!(await run(command))) break;
        break;
      case 'late':
        await run(lateCommand(op.action, op.pick, state));
        break;
      case 'batch':
        await run(op.intents.flatMap((intent) => commandsFor(intent, state)));
        break;
      case 'indexLikeCall':
        if (await run({ type: 'StartToolCall', toolCallId: String(op.n), tool: 'search', input: { n: op.n } })) {
          await run({ type: 'CompleteToolCall', toolCallId: String(op.n), output: { n: op.n } });
        }
        break;
      case 'restart':
        await service.repository.flushSnapshots();
        service = new SessionService(repository());
        break;
    }
  }
  await service.repository.flushSnapshots();
  const history = (await store.readStream(streamId)) as unknown as RecordedSessionEvent[];
  for (const snapshot of written) {
    const scratch = nameSegments(encodeSnapshot(replay(history, snapshot.version), segmentSizes)).head;
    expect(snapshot.json).toBe(JSON.stringify(scratch));
  }
}

const property = () =>
  fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 45 }), fc.integer({ min: 1, max: 6 }), (ops, stride) => snapshotsMatchScratch(ops, stride));

describe('incremental snapshot encoding (property-based)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('every snapshot written equals one encoded from scratch at its version, after any sequence of events and in-place changes', async () => {
    await fc.assert(property(), { numRuns: RUNS });
  });

  it('fails when the encoder is not told of the events folded (the check catches broken dirty tracking)', async () => {
    vi.spyOn(SnapshotEncoder.prototype, 'folded').mockImplementation(() => undefined);
    const result = await fc.check(property(), { numRuns: RUNS });
    expect(result.failed).toBe(true);
  });

  it('fails when it is told of the changed turns but not of the new or changed tool calls', async () => {
    const folded = SnapshotEncoder.prototype.folded;
    vi.spyOn(SnapshotEncoder.prototype, 'folded').mockImplementation(function (this: SnapshotEncoder, state, events) {
      folded.call(
        this,
        state,
        events.filter((e) => !e.type.startsWith('ToolCall')),
      );
    });
    const result = await fc.check(property(), { numRuns: RUNS });
    expect(result.failed).toBe(true);
  });
});
