import { cpus } from 'node:os';

/** CPU time the machine has spent since boot, as the kernel counts it (ms, every core together). */
export interface CpuTimes {
  /** Time spent by work at normal priority (user, system, interrupts): niced work, like the indexer's own thread, is not in it. */
  normal: number;
  total: number;
  cores: number;
}

export function machineCpuTimes(): CpuTimes {
  const all = cpus();
  let normal = 0;
  let total = 0;
  for (const { times } of all) {
    normal += times.user + times.sys + times.irq;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { normal, total, cores: all.length };
}

/**
 * True when, between two readings, work at normal priority left at least one core's worth of
 * the machine idle: a background task at low priority then took only what nothing else wanted.
 */
export function hadSpareCore(before: CpuTimes, after: CpuTimes): boolean {
  const total = after.total - before.total;
  if (total <= 0) return false;
  const spare = 1 - (after.normal - before.normal) / total;
  return spare * after.cores >= 1;
}
