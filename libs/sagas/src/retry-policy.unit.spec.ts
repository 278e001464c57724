import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, MAX_RETRY_AFTER_MS, nextDelay, parseRetryAfter } from './retry-policy';

const policy = fc.record({
  maxAttempts: fc.integer({ min: 1, max: 20 }),
  baseDelayMs: fc.integer({ min: 0, max: 10_000 }),
  maxDelayMs: fc.integer({ min: 0, max: 600_000 }),
  timeoutMs: fc.integer({ min: 1, max: 60_000 }),
});

describe('retry policy (exponential backoff, full jitter)', () => {
  it('waits a random time below min(max, base * 2^(attempt-1)), never negative', () => {
    fc.assert(
      fc.property(policy, fc.integer({ min: 1, max: 60 }), fc.double({ min: 0, max: 0.9999999, noNaN: true }), (p, attempt, r) => {
        const delay = backoffDelay(p, attempt, () => r);
        const ceiling = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** (attempt - 1));
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(Math.max(0, ceiling));
        expect(Number.isInteger(delay)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('spreads concurrent retries instead of synchronising them (full jitter)', () => {
    const p = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 10_000, timeoutMs: 1000 };
    const delays = new Set(Array.from({ length: 200 }, () => backoffDelay(p, 4)));
    expect(delays.size).toBeGreaterThan(100);
  });

  it("honours the compensator's Retry-After over its own backoff, capped at 5 minutes", () => {
    const p = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000, timeoutMs: 1000 };
    expect(nextDelay(p, 1, 7_000)).toBe(7_000);
    expect(nextDelay(p, 1, 24 * 3600_000)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
