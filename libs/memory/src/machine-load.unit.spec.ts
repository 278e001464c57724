import { describe, expect, it } from 'vitest';
import { hadSpareCore, machineCpuTimes } from './machine-load';

describe('hadSpareCore', () => {
  const at = (normal: number, total: number, cores = 2) => ({ normal, total, cores });

  it('is true when normal-priority work left a core idle, whatever niced work did with it', () => {
    // 2 cores, 1 000 ms of machine time: 300 ms of normal work, the rest idle or niced.
    expect(hadSpareCore(at(0, 0), at(300, 1000))).toBe(true);
    expect(hadSpareCore(at(1000, 5000), at(1500, 6000))).toBe(true);
  });

  it('is false when normal-priority work kept more than one core of two busy, or no time passed', () => {
    expect(hadSpareCore(at(0, 0), at(600, 1000))).toBe(false);
    expect(hadSpareCore(at(0, 0), at(900, 1000))).toBe(false);
    expect(hadSpareCore(at(10, 10), at(10, 10))).toBe(false);
  });

  it('needs a whole core spare: on 4 cores, 3 busy still leave one', () => {
    expect(hadSpareCore(at(0, 0, 4), at(750, 1000, 4))).toBe(true);
    expect(hadSpareCore(at(0, 0, 4), at(800, 1000, 4))).toBe(false);
  });

  it('reads this machine: the counters only grow, and normal work is part of the total', () => {
    const first = machineCpuTimes();
    const second = machineCpuTimes();
    expect(first.cores).toBeGreaterThan(0);
    expect(second.total).toBeGreaterThanOrEqual(first.total);
    expect(second.normal).toBeLessThanOrEqual(second.total);
  });
});
