import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionCommand } from './commands';
import { decide } from './decide';
import { DomainError } from './errors';
import type { RecordedSessionEvent } from './events';
import { evolveInPlace } from './evolve';
import { foldPath, replay } from './replay';
import { initialSessionState } from './state';
import { describeStateChanges } from './state-diff';
import { commandsFor, intentArb, type Intent } from './testing/arbitraries';
import { recordedAt } from './testing/recorded';

const RUNS = Number(process.env.REWIND_PROPERTY_RUNS ?? 200);

/** A session recorded command by command as the service does; `at(v)` is its state at stream version v. */
function recorder() {
  const events: RecordedSessionEvent[] = [];
  const state = initialSessionState();
  let ids = 0;
  const record = (command: SessionCommand) => {
    const decision = decide(state, command, { newId: () => `id-${++ids}`, actor: 'ana', pathAt: (v) => foldPath(events, v) });
    for (const pending of decision.events) {
      const recorded = recordedAt(pending, events.length + 1);
      events.push(recorded);
      evolveInPlace(state, recorded, (v) => foldPath(events, v));
    }
    return state.version;
  };
  return { record, state, events, at: (v: number) => replay(events, v) };
}

const summaries = (changes: ReturnType<typeof describeStateChanges>) => changes.map((c) => `${c.kind} ${c.op}: ${c.summary}`);

describe('describeStateChanges: what changed between two steps, in words', () => {
  it('says two proposals, an approval and a rejection (not "the same state")', () => {
    const s = recorder();
    const from = s.record({ type: 'StartSession', sessionId: 's' });
    s.record({ type: 'ProposeToolCall', toolCallId: 'pay', tool: 'charge_card', input: { amount: 750, currency: 'EUR' }, effect: { kind: 'irreversible' } });
    s.record({ type: 'ProposeToolCall', toolCallId: 'mail', tool: 'send_mail', input: { to: 'bob' } });
    s.record({ type: 'ApproveToolCall', toolCallId: 'pay', note: 'ok for 750' });
    const to = s.record({ type: 'RejectToolCall', toolCallId: 'mail', reason: 'not now' });

    expect(summaries(describeStateChanges(s.at(from), s.at(to)))).toEqual([
      `proposal added: tester proposed 'charge_card' (pay) with {"amount":750,"currency":"EUR"}, effect irreversible: it waits for a person`,
      `proposal added: tester proposed 'send_mail' (mail) with {"to":"bob"}, effect none: it waits for a person`,
      `decision added: ana approved 'charge_card' (pay) with the note 'ok for 750'`,
      `decision added: ana rejected 'send_mail' (mail): 'not now'`,
    ]);
  });

  it('says every message of an added turn, the thoughts and the tool call with its answer', () => {
    const s = recorder();
    const from = s.record({ type: 'StartSession', sessionId: 's' });
    s.record({ type: 'RecordMessage', role: 'user', content: 'Book me a table' });
    s.record({ type: 'RecordThought', content: 'A table for two is likely', steps: ['ask size', 'search'] });
    s.record({ type: 'StartToolCall', toolCallId: 'b1', tool: 'book', input: { people: 2 }, effect: { kind: 'none' } });
    s.record({ type: 'CompleteToolCall', toolCallId: 'b1', output: { table: 7 } });
    s.record({ type: 'RecordMessage', role: 'agent', content: 'Booked table 7.' });
    s.record({ type: 'RecordMessage', role: 'agent', content: 'Anything else?' });
    s.record({ type: 'WriteMemory', key: 'table', value: 7 });
    const to = s.record({ type: 'SetContextVariable', name: 'city', value: 'Lyon' });

    const changes = describeStateChanges(s.at(from), s.at(to));
    expect(summaries(changes)).toEqual([
      `message added: the user said 'Book me a table' (turn 1)`,
      `thought added: the agent thought 'A table for two is likely' (2 steps: 'ask size', 'search')`,
      `tool_call added: called 'book' (b1) with {"people":2}, effect none`,
      `tool_output added: 'book' (b1) answered {"table":7}`,
      `message added: the agent said 'Booked table 7.' (turn 1)`,
      `message added: the agent said 'Anything else?' (turn 1)`,
      `memory added: memory 'table' set to 7`,
      `context_variable added: context variable 'city' set to 'Lyon'`,
    ]);
    // The raw item is there for whoever asks for it.
    expect(changes.find((c) => c.kind === 'tool_output')?.after).toMatchObject({ toolCallId: 'b1', output: { table: 7 }, status: 'succeeded' });
  });

  it('names only the checkpoints of the path arrived at, with the step they mark', () => {
    const s = recorder();
    s.record({ type: 'StartSession', sessionId: 's' });
    const fork = s.record({ type: 'RecordMessage', role: 'user', content: 'one' });
    const marked = s.record({ type: 'RecordMessage', role: 'agent', content: 'two' });
    s.record({ type: 'CreateCheckpoint', label: 'old-branch' });
    // A fork from `fork`: the new step's parent is `fork`, many events (and a checkpoint of the other branch) before it.
    s.record({ type: 'MoveHead', kind: 'rollback', toVersion: fork, acknowledgeIrreversible: true });
    const step = s.record({ type: 'RecordMessage', role: 'agent', content: 'three' });
    s.record({ type: 'CreateCheckpoint', label: 'here' });
    const next = s.record({ type: 'WriteMemory', key: 'k', value: 1 });

    const atFork = describeStateChanges(s.at(fork), s.at(step));
    expect(atFork.filter((c) => c.kind === 'checkpoint')).toEqual([]);
    expect(summaries(atFork)).toEqual([`message added: the agent said 'three' (turn 1)`]);
    expect(summaries(describeStateChanges(s.at(step), s.at(next))).filter((t) => t.startsWith('checkpoint'))).toEqual([
      `checkpoint added: checkpoint 'here' created at event ${step + 1}, marking step ${step}`,
    ]);
    expect(marked).toBeLessThan(step);
  });

  it('says what left the path when going back, and a failure with its reason', () => {
    const s = recorder();
    s.record({ type: 'StartSession', sessionId: 's' });
    const before = s.record({ type: 'RecordMessage', role: 'user', content: 'hi' });
    s.record({ type: 'StartToolCall', toolCallId: 'x', tool: 'lookup', input: null, effect: { kind: 'none' } });
    const after = s.record({ type: 'FailToolCall', toolCallId: 'x', error: 'timeout' });
    expect(summaries(describeStateChanges(s.at(before), s.at(after)))).toContain(`tool_output added: 'lookup' (x) failed: timeout`);
    expect(summaries(describeStateChanges(s.at(after), s.at(before)))).toEqual([`tool_call removed: the call of 'lookup' (x) is no longer on the path`]);
  });
});

describe('describeStateChanges (property-based)', () => {
  const sessionOf = (intents: Intent[]) => {
    const s = recorder();
    s.record({ type: 'StartSession', sessionId: 's' });
    for (const intent of intents)
      for (const command of commandsFor(intent, s.state)) {
        try {
          s.record(command);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          break;
        }
      }
    return s;
  };

  it('every message, thought, tool call and memory key of one step and not the other is said, both ways; a step against itself says nothing', () => {
    fc.assert(
      fc.property(fc.array(intentArb, { maxLength: 25 }), fc.nat(), fc.nat(), (intents, i, j) => {
        const s = sessionOf(intents);
        const a = s.at(1 + (i % s.state.version));
        const b = s.at(1 + (j % s.state.version));
        const forward = describeStateChanges(a, b);
        const backward = describeStateChanges(b, a);
        expect(describeStateChanges(b, b)).toEqual([]);
        const messages = (st: typeof a) => st.path.turns.flatMap((t) => t.messages.map((m) => `${m.messageId}@${m.version}`));
        const thoughts = (st: typeof a) => st.path.thoughts.map((t) => `${t.thoughtId}@${t.version}`);
        const only = (x: string[], y: string[]) => x.filter((k) => !y.includes(k)).sort();
        const refs = (changes: typeof forward, kind: string, op: string) =>
          changes
            .filter((c) => c.kind === kind && c.op === op)
            .map((c) => c.ref)
            .sort();
        expect(refs(forward, 'message', 'added')).toEqual(only(messages(b), messages(a)));
        expect(refs(forward, 'message', 'removed')).toEqual(only(messages(a), messages(b)));
        expect(refs(forward, 'thought', 'added')).toEqual(only(thoughts(b), thoughts(a)));
        expect(refs(backward, 'thought', 'added')).toEqual(only(thoughts(a), thoughts(b)));
        expect(refs(forward, 'tool_call', 'added')).toEqual(only(Object.keys(b.path.toolCalls), Object.keys(a.path.toolCalls)));
        const memory = (changes: typeof forward) =>
          changes
            .filter((c) => c.kind === 'memory')
            .map((c) => c.ref)
            .sort();
        const differing = [...new Set([...Object.keys(a.path.memory), ...Object.keys(b.path.memory)])]
          .filter((k) => JSON.stringify(a.path.memory[k]) !== JSON.stringify(b.path.memory[k]))
          .sort();
        expect(memory(forward)).toEqual(differing);
        expect(memory(backward)).toEqual(differing);
        for (const change of forward) expect(change.summary.length).toBeGreaterThan(0);
      }),
      { numRuns: RUNS },
    );
  });
});
