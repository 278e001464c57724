/** Machine-wide CPU use between two points (from /proc/stat), to see whether a run was CPU-bound. */
import { readFileSync } from 'node:fs';

export interface CpuTimes {
  busy: number;
  total: number;
}

export function cpuTimes(): CpuTimes | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** Fraction (0..1) of all cores' time that was busy since `from`. */
export function busySince(from: CpuTimes | null): number | null {
  const to = cpuTimes();
  if (!from || !to || to.total === from.total) return null;
  return (to.busy - from.busy) / (to.total - from.total);
}
