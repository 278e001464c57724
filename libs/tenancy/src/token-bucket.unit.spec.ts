import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenBuckets } from './token-bucket';

describe('TokenBuckets', () => {
  it('lets a burst through, then refuses with a Retry-After until a token refills', () => {
    let clock = 0;
    const buckets = new TokenBuckets({ perSecond: 2, burst: 3 }, () => clock);
    expect([1, 2, 3].map(() => buckets.take('k').allowed)).toEqual([true, true, true]);
    expect(buckets.take('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(buckets.take('other').allowed).toBe(true);
    clock += 500;
    expect(buckets.take('k').allowed).toBe(true);
    expect(buckets.take('k').allowed).toBe(false);
  });

  it('is off with perSecond 0', () => {
    const buckets = new TokenBuckets({ perSecond: 0, burst: 1 });
    expect(Array.from({ length: 100 }, () => buckets.take('k').allowed).every(Boolean)).toBe(true);
  });

  it('never admits more than burst + rate × elapsed requests, and admits a request when a token is due (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 200 }),
        (perSecond, burst, gaps) => {
          let clock = 0;
          const buckets = new TokenBuckets({ perSecond, burst }, () => clock);
          let admitted = 0;
          for (const gap of gaps) {
            clock += gap;
            const verdict = buckets.take('k');
            if (verdict.allowed) admitted++;
            else expect(verdict.retryAfterSeconds).toBeGreaterThanOrEqual(1);
          }
          expect(admitted).toBeLessThanOrEqual(burst + (clock / 1000) * perSecond + 1e-9);
          // After a long enough pause, a request is always admitted again.
          clock += Math.ceil((burst / perSecond) * 1000);
          expect(buckets.take('k').allowed).toBe(true);
        },
      ),
    );
  });
});
