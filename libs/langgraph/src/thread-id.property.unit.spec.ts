import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ID_PATTERN } from '@rewind/engine';
import { escapeThreadId, sessionIdOfThread, threadIdOfSession, unescapeThreadId } from './thread-id';

/** Any string: short and long, ASCII and not, UTF-16 code units alone (lone surrogates, NUL) included. */
const anyThreadId = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('a', '_', '.', '-', ':', '/', ' ', 'l', 'g', 'h', 'é', '\ud800', '\u0000'), maxLength: 140 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), minLength: 20, maxLength: 300 }),
  fc.stringMatching(/^(lg\.|lh\.)?[A-Za-z0-9_.-]{0,130}$/),
);

describe('thread ids map one-to-one onto session ids', () => {
  it('every thread id gets a valid session id, which gives the thread id back (from the id, or from the escaped form a session keeps)', () => {
    fc.assert(
      fc.property(anyThreadId, (threadId) => {
        const sessionId = sessionIdOfThread(threadId);
        expect(sessionId).toMatch(ID_PATTERN);
        const fromId = threadIdOfSession(sessionId);
        if (sessionId.startsWith('lh.')) expect(fromId).toBeUndefined();
        else expect(fromId).toBe(threadId);
        const kept = escapeThreadId(threadId);
        expect(kept).toMatch(/^[A-Za-z0-9_.-]*$/);
        expect(unescapeThreadId(kept)).toBe(threadId);
      }),
      { numRuns: 2000 },
    );
  });

  it('distinct thread ids never share a session id', () => {
    fc.assert(
      fc.property(fc.uniqueArray(anyThreadId, { minLength: 2, maxLength: 30 }), (threadIds) => {
        expect(new Set(threadIds.map(sessionIdOfThread)).size).toBe(threadIds.length);
      }),
      { numRuns: 500 },
    );
  });

  it('a session id names at most one thread: reading one back and mapping it again gives the same session id', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^(lg\.|lh\.)?[A-Za-z0-9_.-]{1,125}$/), (sessionId) => {
        const threadId = threadIdOfSession(sessionId);
        if (threadId !== undefined) expect(sessionIdOfThread(threadId)).toBe(sessionId);
      }),
      { numRuns: 2000 },
    );
  });

  it('ids that already are session ids keep them; the others are spelled out', () => {
    expect(['trip-42', 'user_42', 'a.b', 'Thread-1'].map(sessionIdOfThread)).toEqual(['trip-42', 'user_42', 'a.b', 'Thread-1']);
    expect(sessionIdOfThread('user:42')).toBe('lg.user_003a42');
    expect(sessionIdOfThread('alice@example.com')).toBe('lg.alice_0040example.com');
    expect(sessionIdOfThread('org/acme/t1')).toBe('lg.org_002facme_002ft1');
    expect(sessionIdOfThread('two words')).toBe('lg.two_0020words');
    expect(sessionIdOfThread('lg.x')).toBe('lg.lg.x');
    expect(sessionIdOfThread('.')).toBe('lg..');
    expect(sessionIdOfThread('x'.repeat(129))).toMatch(/^lh\.[A-Za-z0-9_-]{43}$/);
    expect(sessionIdOfThread('x'.repeat(128))).toBe('x'.repeat(128));
  });
});
