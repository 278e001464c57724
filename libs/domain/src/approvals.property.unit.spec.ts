import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionCommand } from './commands';
import { decide } from './decide';
import type { EffectDescriptor } from './effects';
import { DomainError } from './errors';
import type { RecordedSessionEvent } from './events';
import { evolveInPlace } from './evolve';
import { foldPath } from './replay';
import { initialSessionState } from './state';
import { ancestry } from './timeline';

const RUNS = Number(process.env.REWIND_PROPERTY_RUNS ?? 300);

/** charge_card's registered policy: its irreversible calls need a person's approval. */
const CHARGE: EffectDescriptor = { kind: 'irreversible', approval: 'required' };
const ids = ['c1', 'c2', 'c3'];

type Move =
  | { op: 'propose'; id: number; amount: number }
  | { op: 'approve' | 'reject'; id: number }
  | { op: 'start'; id: number; amount: number; confirmed: boolean; asProposed: boolean }
  | { op: 'say' }
  | { op: 'flow'; id: number; amount: number; confirmed: boolean; asProposed: boolean }
  | { op: 'back'; steps: number };

const moveArb: fc.Arbitrary<Move> = fc.oneof(
  fc.record({ op: fc.constant('propose' as const), id: fc.nat(2), amount: fc.nat(2) }),
  fc.record({ op: fc.constantFrom('approve' as const, 'approve' as const, 'reject' as const), id: fc.nat(2) }),
  fc.record({ op: fc.constant('start' as const), id: fc.nat(2), amount: fc.nat(2), confirmed: fc.boolean(), asProposed: fc.boolean() }),
  fc.record({ op: fc.constant('say' as const) }),
  // The usual flow, to make starts frequent: propose, a person approves, the agent starts it (as proposed or not).
  fc.record({ id: fc.nat(2), amount: fc.nat(2), confirmed: fc.boolean(), asProposed: fc.boolean() }).chain((m) => fc.constant({ op: 'flow' as const, ...m })),
  fc.record({ op: fc.constant('back' as const), steps: fc.integer({ min: 1, max: 3 }) }),
);

/** `asProposed`: the start an agent makes once asked to go ahead (the proposal's input, when there is one on the path). */
function commandOf(move: Move, proposals: Record<string, { input: unknown }>): SessionCommand {
  switch (move.op) {
    case 'propose':
      return { type: 'ProposeToolCall', toolCallId: ids[move.id]!, tool: 'charge_card', input: { amount: move.amount } };
    case 'approve':
      return { type: 'ApproveToolCall', toolCallId: ids[move.id]! };
    case 'reject':
      return { type: 'RejectToolCall', toolCallId: ids[move.id]!, reason: 'no' };
    case 'start': {
      const id = ids[move.id]!;
      const input = move.asProposed && Object.hasOwn(proposals, id) ? proposals[id]!.input : { amount: move.amount };
      return { type: 'StartToolCall', toolCallId: id, tool: 'charge_card', input: input as never, confirmed: move.confirmed };
    }
    case 'say':
      return { type: 'RecordMessage', role: 'user', content: 'go on' };
    case 'flow':
      throw new Error('a flow is played as its three moves');
    case 'back':
      return { type: 'MoveHead', kind: 'undo', steps: move.steps, acknowledgeIrreversible: true };
  }
}

function play(moves: Move[]) {
  const events: RecordedSessionEvent[] = [];
  const state = initialSessionState();
  let n = 0;
  const ctx = { newId: () => `id-${++n}`, actor: 'key:ana', pathAt: (v: number) => foldPath(events, v), toolEffect: () => CHARGE };
  const flat = moves.flatMap((m): Move[] =>
    m.op === 'flow'
      ? [
          { op: 'propose', id: m.id, amount: m.amount },
          { op: 'approve', id: m.id },
          { op: 'start', id: m.id, amount: m.amount, confirmed: m.confirmed, asProposed: m.asProposed },
        ]
      : [m],
  );
  for (const move of [null, ...flat]) {
    const command: SessionCommand = move === null ? { type: 'StartSession', sessionId: 's' } : commandOf(move, state.path.proposals);
    try {
      for (const pending of decide(state, command, ctx).events) {
        const recorded = { ...pending, eventId: `e${events.length + 1}`, streamVersion: events.length + 1, globalPosition: 0 } as RecordedSessionEvent;
        recorded.metadata = {
          tenantId: 't',
          sessionId: 's',
          commandId: 'c',
          causationId: null,
          correlationId: 'c',
          actor: 'key:ana',
          occurredAt: 'now',
          schemaVersion: 1,
        };
        events.push(recorded);
        evolveInPlace(state, recorded, (v) => foldPath(events, v));
      }
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }
  return { events, state };
}

describe('approvals (property-based)', () => {
  it('a call of a tool that requires approval only ever starts after an approval of the same call, with the same input, on its path', () => {
    let startedCalls = 0;
    fc.assert(
      fc.property(fc.array(moveArb, { maxLength: 40 }), (moves) => {
        const { events } = play(moves);
        const byVersion = new Map(events.map((e) => [e.streamVersion, e]));
        const parents = events.map((e) => (e.parentVersion === null ? (e.type === 'SessionStarted' ? 0 : -1) : e.parentVersion));
        for (const event of events) {
          if (event.type !== 'ToolCallStarted') continue;
          startedCalls++;
          const path = ancestry(parents, event.streamVersion).map((v) => byVersion.get(v)!);
          const id = event.data.toolCallId;
          const approvedAt = path.findLastIndex((e) => e.type === 'ToolCallApproved' && e.data.toolCallId === id);
          const proposedAt = path.findLastIndex((e) => e.type === 'ToolCallProposed' && e.data.toolCallId === id);
          expect(approvedAt).toBeGreaterThan(proposedAt);
          expect(proposedAt).toBeGreaterThanOrEqual(0);
          const proposal = path[proposedAt]!;
          expect(proposal.type === 'ToolCallProposed' && proposal.data.input).toEqual(event.data.input);
        }
      }),
      { numRuns: RUNS },
    );
    expect(startedCalls).toBeGreaterThan(RUNS / 4);
  });

  it('undoing past proposals that never started compensates nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(moveArb.filter((m) => m.op !== 'start' && m.op !== 'back' && m.op !== 'flow')), { maxLength: 20 }), (moves) => {
        const { events, state } = play([...moves, { op: 'back', steps: 3 }]);
        for (const event of events) if (event.type === 'RollbackRequested') expect(event.data.plan).toEqual([]);
        expect(state.activeRollbackId).toBeNull();
      }),
      { numRuns: RUNS },
    );
  });

  it('records who decided and when, and keeps the proposal with the branch it was made on', () => {
    const { state } = play([
      { op: 'propose', id: 0, amount: 1 },
      { op: 'approve', id: 0 },
      { op: 'propose', id: 1, amount: 2 },
    ]);
    expect(Object.values(state.path.proposals).map((p) => [p.toolCallId, p.status, p.decidedBy, p.decidedAt, p.proposedBy])).toEqual([
      ['c1', 'approved', 'key:ana', 'now', 'key:ana'],
      ['c2', 'pending', null, null, 'key:ana'],
    ]);
    const back = play([
      { op: 'propose', id: 0, amount: 1 },
      { op: 'back', steps: 1 },
    ]);
    expect(back.state.path.proposals).toEqual({});
  });
});
