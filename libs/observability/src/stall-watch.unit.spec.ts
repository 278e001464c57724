import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SubscriberStallWatch } from './stall-watch';

describe('SubscriberStallWatch', () => {
  it('calls a subscriber stalled exactly when it is behind and its checkpoint has not moved for longer than the threshold', () => {
    const observation = fc.record({
      advanceMs: fc.integer({ min: 0, max: 5_000 }),
      position: fc.integer({ min: 0, max: 3 }),
      lag: fc.integer({ min: 0, max: 2 }),
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4_000 }), fc.array(observation, { maxLength: 40 }), (threshold, observations) => {
        let now = 0;
        const watch = new SubscriberStallWatch(threshold, () => now);
        // The model: when the subscriber was last seen up to date or moving.
        let since: number | null = null;
        let lastPosition: number | null = null;
        for (const o of observations) {
          now += o.advanceMs;
          const verdict = watch.observe({ name: 'p', position: o.position, lag: o.lag });
          if (o.lag === 0 || lastPosition !== o.position || since === null) since = now;
          lastPosition = o.position;
          expect(verdict.stalled).toBe(o.lag > 0 && now - since > threshold);
          expect(verdict.stuckForMs).toBe(now - since);
        }
      }),
    );
  });

  it('keeps subscribers apart', () => {
    let now = 0;
    const watch = new SubscriberStallWatch(1_000, () => now);
    watch.observe({ name: 'a', position: 1, lag: 5 });
    watch.observe({ name: 'b', position: 1, lag: 5 });
    now = 2_000;
    expect(watch.observe({ name: 'a', position: 1, lag: 5 }).stalled).toBe(true);
    expect(watch.observe({ name: 'b', position: 2, lag: 4 }).stalled).toBe(false);
  });

  it('refuses a threshold that is not positive', () => {
    expect(() => new SubscriberStallWatch(0)).toThrow(/positive/);
  });
});
