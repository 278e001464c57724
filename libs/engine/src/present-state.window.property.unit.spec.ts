import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { windowOfTurns, type SessionView } from './present-state';

/** A view with `turns` turns, each started at increasing versions, and tool calls at versions in between. */
const views = fc
  .tuple(fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 30 }), fc.array(fc.integer({ min: 1, max: 200 }), { maxLength: 30 }))
  .map(([gaps, callVersions]) => {
    let version = 1;
    const turns = gaps.map((gap, i) => ({ turnId: `t${i}`, status: 'complete', startedVersion: (version += gap), messages: [] }));
    const toolCalls = [...new Set(callVersions)].sort((a, b) => a - b).map((v) => ({ toolCallId: `c${v}`, startedVersion: v }));
    const thoughts = [...new Set(callVersions)].map((v) => ({ thoughtId: `th${v}`, version: v + 1 }));
    return { sessionId: 's', memory: { a: 1 }, conversation: { turns }, toolCalls, thoughts } as unknown as SessionView;
  });

describe('windowOfTurns (property)', () => {
  it('keeps exactly the last N turns and the calls started since the first of them; the rest and the totals are the whole view’s', () => {
    fc.assert(
      fc.property(views, fc.integer({ min: 1, max: 40 }), (view, n) => {
        const windowed = windowOfTurns(view, n);
        const turns = view.conversation.turns;
        expect(windowed.conversation.turns).toEqual(turns.slice(Math.max(0, turns.length - n)));
        const from = windowed.window.fromVersion;
        expect(from).toBe(n >= turns.length ? 1 : turns[turns.length - n]!.startedVersion);
        expect(windowed.toolCalls).toEqual(view.toolCalls.filter((c) => c.startedVersion >= from));
        expect(windowed.window).toEqual({ lastTurns: n, totalTurns: turns.length, totalToolCalls: view.toolCalls.length, fromVersion: from });
        expect(windowed.memory).toBe(view.memory);
        // A window as wide as the conversation is the whole view.
        if (n >= turns.length) expect({ ...windowed, window: undefined }).toEqual({ ...view, window: undefined });
      }),
      { numRuns: 300 },
    );
  });
});
