import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { SessionCommand, SessionCommandType, StepCommand } from './commands';
import { decide, type DecideContext, type Decision } from './decide';
import { EFFECT_KINDS, type EffectDescriptor, type EffectKind } from './effects';
import { DomainError } from './errors';
import type { RecordedSessionEvent } from './events';
import { evolveInPlace } from './evolve';
import { foldPath } from './replay';
import { cloneState, initialSessionState, type SessionState } from './state';
import { commandsFor, intentArb, type Intent } from './testing/arbitraries';
import { recordedAt } from './testing/recorded';
import { isRefusalCode, REFUSAL_CODES, REFUSALS } from './testing/refusals';
import { cancelBooking } from './testing/session-fixtures';

// A run here plays 15 to 40 moves, several times the histories of the other domain properties: a quarter of the runs.
const RUNS = Math.max(1, Math.floor(Number(process.env.REWIND_PROPERTY_RUNS ?? 1000) / 4));

/**
 * A probe: any command at all, with ids, keys and labels drawn from what the session has
 * (so that many are valid) mixed with names it lacks, including names Object.prototype has.
 */
interface Probe {
  type: SessionCommandType;
  i: number;
  j: number;
  flag: boolean;
  effect: EffectKind;
}
const COMMAND_TYPES: SessionCommandType[] = [
  'StartSession',
  'RecordMessage',
  'StartToolCall',
  'ProposeToolCall',
  'ApproveToolCall',
  'RejectToolCall',
  'CompleteToolCall',
  'FailToolCall',
  'WriteMemory',
  'EraseMemory',
  'SetContextVariable',
  'PushTask',
  'PopTask',
  'InterruptTurn',
  'RecordThought',
  'CreateCheckpoint',
  'NameBranch',
  'MoveHead',
  'RecordCompensationOutcome',
  'CompleteRollback',
  'RetryCompensation',
  'ResolveCompensation',
  'RecordShredding',
];
const probeArb: fc.Arbitrary<Probe> = fc.record({
  type: fc.constantFrom(...COMMAND_TYPES),
  i: fc.nat({ max: 1000 }),
  j: fc.nat({ max: 1000 }),
  flag: fc.boolean(),
  effect: fc.constantFrom(...EFFECT_KINDS),
});
const STRANGERS = ['x', 'constructor', 'toString', '__proto__'];
const pick = (known: string[], n: number): string => {
  const pool = [...known, ...STRANGERS];
  return pool[n % pool.length]!;
};

function effectOf(kind: EffectKind, n: number): Partial<EffectDescriptor> {
  if (kind === 'none' || kind === 'irreversible') return { kind };
  const variants: Partial<EffectDescriptor>[] = [
    { ...cancelBooking, kind },
    { kind }, // no compensation
    { kind, compensation: { channel: 'inline', target: 'release/{{city}}' } }, // not a template reference
    { kind, compensation: { channel: 'inline', target: 'release/{{input.city}}' } }, // needs the input's city
    { ...cancelBooking, kind, retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 1, timeoutMs: 1 } },
  ];
  return variants[n % variants.length]!;
}

function probeCommand(p: Probe, state: SessionState): SessionCommand {
  const path = state.path;
  const calls = Object.keys(path.toolCalls);
  const turns = path.turns.map((t) => t.turnId);
  const rollbackIds = Object.keys(state.rollbacks);
  const planned = Object.values(state.rollbacks).flatMap((r) => r.plan);
  const rollbackId = state.activeRollbackId !== null && p.i % 3 ? state.activeRollbackId : pick(rollbackIds, p.i);
  switch (p.type) {
    case 'StartSession':
      return { type: 'StartSession', sessionId: 's' };
    case 'RecordMessage':
      return { type: 'RecordMessage', role: p.flag ? 'user' : 'agent', content: 'm', ...(p.j % 3 ? { turnId: pick(turns, p.i) } : {}) };
    case 'StartToolCall': {
      const toolCallId = pick([...calls, ...Object.keys(path.proposals)], p.i);
      // A proposed call, started as proposed (or not: other input), once approved or before.
      if (Object.hasOwn(path.proposals, toolCallId) && p.j % 2) return { type: 'StartToolCall', toolCallId, tool: 'charge_card', input: { n: p.j % 3 } };
      return {
        type: 'StartToolCall',
        toolCallId,
        tool: 'book_hotel',
        input: p.j % 4 ? { city: 'Lisbon' } : {},
        effect: effectOf(p.effect, p.j),
        confirmed: p.flag,
        ...(p.j % 5 === 0 ? { turnId: pick(turns, p.i) } : {}),
      };
    }
    case 'ProposeToolCall':
      return {
        type: 'ProposeToolCall',
        toolCallId: pick([...calls, ...Object.keys(path.proposals)], p.i),
        tool: 'charge_card',
        input: { n: p.j % 3 },
        effect: { kind: p.effect === 'none' ? 'irreversible' : p.effect, ...(p.flag ? { approval: 'required' } : {}) },
      };
    case 'ApproveToolCall':
      return { type: 'ApproveToolCall', toolCallId: pick(Object.keys(path.proposals), p.i) };
    case 'RejectToolCall':
      return { type: 'RejectToolCall', toolCallId: pick(Object.keys(path.proposals), p.i), reason: 'no' };
    case 'CompleteToolCall':
      return { type: 'CompleteToolCall', toolCallId: pick(calls, p.i), output: p.flag ? { bookingId: `B${p.j}` } : {} };
    case 'FailToolCall':
      return { type: 'FailToolCall', toolCallId: pick(calls, p.i), error: 'boom', retryable: p.flag };
    case 'WriteMemory':
      return { type: 'WriteMemory', key: pick(Object.keys(path.memory), p.i), value: p.j };
    case 'EraseMemory':
      return { type: 'EraseMemory', key: pick(Object.keys(path.memory), p.i) };
    case 'SetContextVariable':
      return { type: 'SetContextVariable', name: pick(Object.keys(path.contextVars), p.i), value: p.j };
    case 'PushTask':
      return { type: 'PushTask', title: 't' };
    case 'PopTask':
      return { type: 'PopTask' };
    case 'InterruptTurn':
      return { type: 'InterruptTurn', turnId: pick(turns, p.i), partialContent: 'par' };
    case 'RecordThought':
      return { type: 'RecordThought', content: p.flag ? 'weigh the options' : '', ...(p.j % 3 === 0 ? { turnId: pick(turns, p.i) } : {}) };
    case 'CreateCheckpoint':
      return { type: 'CreateCheckpoint', label: pick(Object.keys(state.checkpoints), p.i) };
    case 'NameBranch':
      return { type: 'NameBranch', version: p.i % (state.version + 2), name: p.flag ? 'plan B' : '' };
    case 'MoveHead': {
      const kind = (['rollback', 'rollback', 'undo', 'redo'] as const)[p.j % 4]!;
      const target = p.i % 4 ? { toVersion: p.i % (state.version + 2) } : p.i % 8 ? { toCheckpoint: pick(Object.keys(state.checkpoints), p.j) } : {};
      // A fork now and then: a rollback with steps (some refused on the target: a key it lacks, a tool call, an undo with steps).
      const forks: SessionCommand[][] = [
        [{ type: 'RecordMessage', role: 'user', content: 'what if' }],
        [{ type: 'EraseMemory', key: pick(Object.keys(path.memory), p.j) }],
        [{ type: 'StartToolCall', toolCallId: 'fc', tool: 'search', input: {} }],
      ];
      const fork = p.j % 5 === 0 ? { then: forks[p.i % 3] as StepCommand[], ...(p.flag ? { branchName: 'plan B' } : {}) } : {};
      return { type: 'MoveHead', kind, ...target, steps: 1 + (p.j % 3), acknowledgeIrreversible: p.flag, ...fork };
    }
    case 'RecordCompensationOutcome': {
      const startedVersion = planned.length > 0 && p.j % 4 ? planned[p.j % planned.length]!.startedVersion : p.j % (state.version + 1);
      const outcomes = [
        { status: 'applied', attempts: 1, response: null },
        { status: 'attempt_failed', attempt: 1, error: 'timeout', retryInMs: 10 },
        { status: 'failed', attempts: 3, error: 'HTTP 500' },
      ] as const;
      return { type: 'RecordCompensationOutcome', rollbackId, startedVersion, outcome: outcomes[p.i % 3]! };
    }
    case 'CompleteRollback':
      return { type: 'CompleteRollback', rollbackId };
    case 'RetryCompensation':
    case 'ResolveCompensation': {
      const toolCallId = pick(
        planned.map((e) => e.toolCallId),
        p.j,
      );
      return p.type === 'RetryCompensation' ? { type: p.type, rollbackId, toolCallId } : { type: p.type, rollbackId, toolCallId, note: 'by hand' };
    }
    case 'RecordShredding':
      return { type: 'RecordShredding', keyIds: [`dk_${p.i}`], reason: 'test' };
  }
}

let bookings = 0;

/** A hotel booked (a reversible effect): finished, failed, or left running. */
function bookCommands(finish: 'succeed' | 'fail' | 'leave'): SessionCommand[] {
  const toolCallId = `book-${++bookings}`;
  const start: SessionCommand = { type: 'StartToolCall', toolCallId, tool: 'book_hotel', input: { city: 'Lisbon' }, effect: cancelBooking };
  if (finish === 'leave') return [start];
  if (finish === 'fail') return [start, { type: 'FailToolCall', toolCallId, error: 'sold out' }];
  return [start, { type: 'CompleteToolCall', toolCallId, output: { bookingId: `B${bookings}` } }];
}

/** What the saga or an operator does next about the active rollback, if there is one. */
function sagaCommand(state: SessionState, n: number): SessionCommand | null {
  const rollback = state.activeRollbackId === null ? undefined : state.rollbacks[state.activeRollbackId];
  if (!rollback) return null;
  const rollbackId = rollback.rollbackId;
  const item = rollback.plan.filter((e) => e.action === 'compensate').find((e) => state.effectOutcomes[e.startedVersion]?.status !== 'compensated');
  const outcome = item && state.effectOutcomes[item.startedVersion];
  if (!item || !outcome) return { type: 'CompleteRollback', rollbackId };
  if (outcome.status === 'failed') {
    const { toolCallId } = item;
    return n % 2 ? { type: 'RetryCompensation', rollbackId, toolCallId } : { type: 'ResolveCompensation', rollbackId, toolCallId, note: 'by hand' };
  }
  const outcomes = [
    { status: 'applied', attempts: 1, response: { cancelled: true } },
    { status: 'applied', attempts: 2, response: null },
    { status: 'attempt_failed', attempt: 1, error: 'timeout', retryInMs: 10 },
    { status: 'failed', attempts: 3, error: 'HTTP 500' },
  ] as const;
  return { type: 'RecordCompensationOutcome', rollbackId, startedVersion: item.startedVersion, outcome: outcomes[n % outcomes.length]! };
}

type Move = { intent: Intent } | { probe: Probe } | { book: 'succeed' | 'fail' | 'leave' } | { saga: number };
const moveArb: fc.Arbitrary<Move> = fc.oneof(
  { weight: 6, arbitrary: intentArb.map((intent) => ({ intent })) },
  { weight: 4, arbitrary: probeArb.map((probe) => ({ probe })) },
  { weight: 2, arbitrary: fc.constantFrom('succeed' as const, 'succeed' as const, 'fail' as const, 'leave' as const).map((book) => ({ book })) },
  { weight: 2, arbitrary: fc.nat({ max: 100 }).map((saga) => ({ saga })) },
);
interface Run {
  /** One run in ten sends commands to a session that was never started. */
  unstarted: boolean;
  compensationEnabled: boolean;
  moves: Move[];
  last: Probe;
}
const runArb: fc.Arbitrary<Run> = fc.record({
  unstarted: fc.nat({ max: 9 }).map((n) => n === 0),
  compensationEnabled: fc.boolean(),
  moves: fc.array(moveArb, { minLength: 15, maxLength: 40 }),
  last: probeArb,
});

interface Attempt {
  command: SessionCommand;
  /** The state decide was given (the live one: read it in `observe`, not later). */
  state: SessionState;
  ctx: DecideContext;
  decision?: Decision;
  error?: unknown;
}

/**
 * Plays a run as the service would (decide, then fold what was accepted), calling `observe`
 * with every attempt, the state it was decided on and what decide made of it.
 */
function play(run: Run, observe: (attempt: Attempt, before: SessionState | null) => void, options: { copyBefore?: boolean } = {}): void {
  const events: RecordedSessionEvent[] = [];
  const state = initialSessionState();
  let ids = 0;
  const ctx: DecideContext = { newId: () => `id-${++ids}`, actor: 'tester', pathAt: (v) => foldPath(events, v), compensationEnabled: run.compensationEnabled };
  const attempt = (command: SessionCommand): boolean => {
    const before = options.copyBefore ? cloneState(state) : null;
    let outcome: Attempt;
    try {
      outcome = { command, state, ctx, decision: decide(state, command, ctx) };
    } catch (error) {
      outcome = { command, state, ctx, error };
    }
    observe(outcome, before);
    if (!outcome.decision) return false;
    for (const pending of outcome.decision.events) {
      const recorded = recordedAt(pending, events.length + 1);
      events.push(recorded);
      evolveInPlace(state, recorded, (v) => foldPath(events, v));
    }
    return true;
  };
  if (!run.unstarted) attempt({ type: 'StartSession', sessionId: 's' });
  for (const move of run.moves) {
    if ('probe' in move) attempt(probeCommand(move.probe, state));
    else if ('saga' in move) {
      const command = sagaCommand(state, move.saga);
      if (command) attempt(command);
    } else {
      const commands = 'book' in move ? bookCommands(move.book) : commandsFor(move.intent, state);
      for (const command of commands) if (!attempt(command)) break;
    }
  }
  attempt(probeCommand(run.last, state));
}

describe('decide refusals (property-based)', () => {
  it('decide never changes the state it is given: a refused command leaves no trace, and the same command is refused again the same way', () => {
    let refused = 0;
    let accepted = 0;
    fc.assert(
      fc.property(runArb, (run) => {
        play(
          run,
          (attempt, before) => {
            // isDeepStrictEqual first: toEqual on every attempt would be slow; it is there for its diff.
            if (!isDeepStrictEqual(attempt.state, before)) expect(attempt.state).toEqual(before);
            if (attempt.decision) {
              accepted++;
              return;
            }
            refused++;
            // Nothing hidden changed either: deciding again on a copy gives the same refusal.
            let again: unknown;
            try {
              decide(cloneState(before!), attempt.command, attempt.ctx);
            } catch (error) {
              again = error;
            }
            expect(again).toBeInstanceOf(DomainError);
            expect((again as DomainError).code).toBe((attempt.error as DomainError).code);
          },
          { copyBefore: true },
        );
      }),
      { numRuns: RUNS },
    );
    expect(refused).toBeGreaterThan(RUNS);
    expect(accepted).toBeGreaterThan(RUNS);
  });

  it('every refusal is a DomainError with a catalogued code, of the kind the catalogue gives, with a message and well-formed details', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(runArb, (run) => {
        play(run, ({ command, error, decision }) => {
          if (decision) return;
          if (!(error instanceof DomainError)) throw error; // e.g. a TypeError: not a refusal, a crash
          const documented =
            isRefusalCode(error.code) &&
            error.kind === REFUSALS[error.code].kind &&
            error.message.length > 0 &&
            Array.isArray(error.details) &&
            error.details.every((d) => typeof d.message === 'string');
          // Checked plainly first (expect on every refusal would be slow), then shown in full.
          if (!documented) expect({ command, code: error.code, kind: error.kind, message: error.message, details: error.details }).toBe('a documented refusal');
          seen.add(error.code);
        });
      }),
      { numRuns: RUNS },
    );
    // The runs must reach most refusals, or the above proves little.
    if (RUNS >= 100) expect(seen.size, `reached: ${[...seen].sort().join(', ')}`).toBeGreaterThanOrEqual(REFUSAL_CODES.length - 4);
  });

  it('while a rollback is active, every command but the rollback commands (and the record of a shredding) is refused with rollback_in_progress', () => {
    const ROLLBACK_COMMANDS = ['RecordCompensationOutcome', 'CompleteRollback', 'RetryCompensation', 'ResolveCompensation', 'RecordShredding'];
    let locked = 0;
    fc.assert(
      fc.property(runArb, (run) => {
        play(run, ({ command, state, decision, error }) => {
          if (state.activeRollbackId === null) return;
          locked++;
          const code = decision ? null : (error as DomainError).code;
          if (ROLLBACK_COMMANDS.includes(command.type)) expect(code).not.toBe('rollback_in_progress');
          else expect(code).toBe(command.type === 'StartSession' ? 'session_exists' : 'rollback_in_progress');
        });
      }),
      { numRuns: RUNS },
    );
    expect(locked).toBeGreaterThan(RUNS);
  });
});
