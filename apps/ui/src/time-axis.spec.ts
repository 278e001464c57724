import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutTimeAxis, stepAt, type AxisPoint } from './time-axis';

const at = (seconds: number) => Date.parse('2026-03-01T09:00:00Z') + seconds * 1000;

describe('the time axis of a branch', () => {
  const steps: AxisPoint[] = [
    { version: 1, at: at(0) },
    { version: 2, at: at(1) },
    { version: 3, at: at(2) },
    { version: 5, at: at(120) }, // two quiet minutes
    { version: 6, at: at(121) },
  ];

  it('places steps by time and shows a long pause as a gap', () => {
    const layout = layoutTimeAxis(steps, 1, null);
    expect(layout.ticks.map((t) => [t.version, Math.round(t.left)])).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
      [5, 99],
      [6, 100],
    ]);
    expect(layout.gaps.map((g) => [g.after, g.before, g.ms])).toEqual([[3, 5, 118_000]]);
  });

  it('shows the pause of a short branch (three steps) as a gap too', () => {
    const short = [
      { version: 1, at: at(0) },
      { version: 2, at: at(0.05) },
      { version: 9, at: at(7.5) },
    ];
    expect(layoutTimeAxis(short, 1, null).gaps.map((g) => [g.after, g.before])).toEqual([[2, 9]]);
  });

  it('zoomed in, shows only the window around the centre, within the branch', () => {
    const layout = layoutTimeAxis(steps, 8, at(1));
    expect(layout.from).toBe(at(0));
    expect(layout.ticks.map((t) => t.version)).toEqual([1, 2, 3]);
    expect(layout.gaps).toHaveLength(1); // the gap starts inside the window
  });

  it('jumps to the step current at a time', () => {
    expect(stepAt(steps, at(60))).toBe(3);
    expect(stepAt(steps, at(120))).toBe(5);
    expect(stepAt(steps, at(-5))).toBe(1);
    expect(stepAt([], at(0))).toBeNull();
  });

  it('property: every tick is inside the axis, and at zoom 1 every step has one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000_000 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 64 }),
        fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: null }),
        (times, zoom, center) => {
          const points = times.map((time, i) => ({ version: i + 1, at: time }));
          for (const tick of layoutTimeAxis(points, zoom, center).ticks) {
            expect(tick.left).toBeGreaterThanOrEqual(-1e-9);
            expect(tick.left).toBeLessThanOrEqual(100 + 1e-9);
          }
          expect(layoutTimeAxis(points, 1, center).ticks).toHaveLength(points.length);
        },
      ),
    );
  });
});
