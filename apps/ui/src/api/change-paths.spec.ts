import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffJson } from '@rewind/domain';
import { changedItem, describeChanges } from './sentences';

describe('plain-language sentences for the changes between two states', () => {
  it("says the issue's examples in words", () => {
    const from = { memory: {}, tasks: [{ taskId: 't1', title: 'find flight', data: null, version: 3 }] };
    const to = { memory: { diet: 'vegetarian' }, tasks: [{ taskId: 't2', title: 'book hotel', data: null, version: 5 }] };
    expect(describeChanges(diffJson(from, to))).toEqual(["memory 'diet' set to 'vegetarian'", "task changed from 'find flight' to 'book hotel'"]);
  });

  it('says tool calls, erasures, checkpoints and messages, and leaves out what their sentence already says', () => {
    const call = { toolCallId: 'h1', tool: 'book_hotels', effect: { kind: 'reversible' }, status: 'started', output: null };
    const before = { head: 4, memory: { city: 'Lisbon' }, toolCalls: {}, checkpoints: {}, turns: [] };
    const after = {
      head: 5,
      memory: {},
      toolCalls: { h1: call },
      checkpoints: { 'flight-booked': { label: 'flight-booked', version: 4, createdVersion: 5 } },
      turns: [{ turnId: 'u1', status: 'open', messages: [{ role: 'user', content: 'Book it' }] }],
    };
    expect(describeChanges(diffJson(before, after))).toEqual([
      "memory 'city' erased (was 'Lisbon')",
      "tool call 'book_hotels' (h1) started, effect reversible",
      "checkpoint 'flight-booked' created",
      "user said 'Book it'",
    ]);
    const done = { ...after, toolCalls: { h1: { ...call, status: 'succeeded', output: { bookingId: 'H-1' } } } };
    expect(describeChanges(diffJson(after, done))).toEqual(['tool call h1 succeeded', 'tool call h1 answered {"bookingId":"H-1"}']);
  });

  it('property: each memory key that differs gets exactly one sentence naming it, and equal memories get none', () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/);
    const value = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean());
    fc.assert(
      fc.property(fc.dictionary(key, value), fc.dictionary(key, value), (a, b) => {
        const sentences = describeChanges(diffJson({ memory: a }, { memory: b }));
        const differing = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
        expect(sentences).toHaveLength(differing.length);
        for (const k of differing) expect(sentences.filter((s) => s.startsWith(`memory '${k}' `))).toHaveLength(1);
      }),
    );
  });

  it('property: every change is attributed to the item that holds it, for highlighting', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('memory', 'contextVars', 'toolCalls'),
        fc.stringMatching(/^[a-z]{1,8}$/),
        fc.stringMatching(/^[a-z]{0,8}$/),
        (section, k, rest) => {
          expect(changedItem(`${section}.${k}${rest ? `.${rest}` : ''}`)).toBe(`${section}:${k}`);
        },
      ),
    );
    expect(changedItem('turns[3].messages[0]')).toBe('turns:3');
    expect(changedItem('status')).toBe('status');
  });

  it('says removed messages, changed message text and removed turns, with their words', () => {
    const turn = (messages: { role: string; content: string }[]) => ({ turnId: 'u1', status: 'open', messages });
    const before = {
      turns: [
        turn([
          { role: 'user', content: 'Book Lisbon' },
          { role: 'agent', content: 'Which dates?' },
        ]),
      ],
      contextVars: { locale: 'pt' },
    };
    const after = { turns: [turn([{ role: 'user', content: 'Book Porto' }])], contextVars: {} };
    expect(describeChanges(diffJson(before, after))).toEqual([
      "text of message 1 in turn 1 changed from 'Book Lisbon' to 'Book Porto'",
      "agent's message 'Which dates?' removed from turn 1",
      "context variable 'locale' removed (was 'pt')",
    ]);
    expect(describeChanges(diffJson(before, { turns: [], contextVars: before.contextVars }))).toEqual([
      "turn 1 (user said 'Book Lisbon') is no longer on the path",
    ]);
  });

  it('property: every message added, removed or changed is said with its text', () => {
    const text = fc.stringMatching(/^[A-Za-z]{1,12}$/);
    const messages = fc.array(text, { maxLength: 4 });
    fc.assert(
      fc.property(messages, messages, (a, b) => {
        const turn = (texts: string[]) => [{ turnId: 't', status: 'open', messages: texts.map((content) => ({ role: 'user', content })) }];
        const said = describeChanges(diffJson({ turns: turn(a) }, { turns: turn(b) })).join('\n');
        for (let i = 0; i < Math.max(a.length, b.length); i++) {
          if (a[i] === b[i]) continue;
          if (a[i] !== undefined) expect(said).toContain(`'${a[i]}'`);
          if (b[i] !== undefined) expect(said).toContain(`'${b[i]}'`);
        }
      }),
    );
  });
});
