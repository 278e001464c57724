import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ItemRate } from './item-rate';

describe('ItemRate', () => {
  const clock = () => {
    let t = 0;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('counts the items of the window over the time since its first batch began', () => {
    const c = clock();
    const rate = new ItemRate(60_000, c.now);
    c.advance(10_000); // idle before any work: not counted
    const started = c.now();
    c.advance(1_000);
    rate.record(started, 100);
    c.advance(1_000);
    rate.record(c.now() - 500, 100);
    // 200 items over the 2 s since the first batch began.
    expect(rate.perSecond()).toBeCloseTo(100, 6);
  });

  it('falls to 0 once a whole window passed without work, and ignores empty batches', () => {
    const c = clock();
    const rate = new ItemRate(1_000, c.now);
    rate.record(c.now(), 0);
    expect(rate.perSecond()).toBe(0);
    c.advance(100);
    rate.record(0, 50);
    expect(rate.perSecond()).toBeGreaterThan(0);
    c.advance(1_001);
    expect(rate.perSecond()).toBe(0);
  });

  it('never exceeds the items of the window over the shortest span they could have taken, nor goes negative', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 5_000 }), took: fc.integer({ min: 1, max: 2_000 }), items: fc.integer({ min: 0, max: 500 }) })),
        (batches) => {
          const c = clock();
          const rate = new ItemRate(10_000, c.now);
          for (const { gap, took, items } of batches) {
            c.advance(gap);
            const started = c.now();
            c.advance(took);
            rate.record(started, items);
          }
          const perSecond = rate.perSecond();
          const inWindow = batches.reduce((n, b) => n + b.items, 0);
          expect(perSecond).toBeGreaterThanOrEqual(0);
          // The window is at most 10 s wide and at least 1 ms (every batch took ≥ 1 ms).
          expect(perSecond).toBeLessThanOrEqual(inWindow * 1000);
          if (batches.length > 0 && batches.every((b) => b.gap === 0 && b.items > 0)) {
            const total = batches.reduce((n, b) => n + b.took, 0);
            if (total <= 10_000) expect(perSecond).toBeCloseTo((inWindow * 1000) / total, 6);
          }
        },
      ),
    );
  });
});
