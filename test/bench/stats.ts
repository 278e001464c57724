import { performance } from 'node:perf_hooks';

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samplesMs: number[]): Summary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return {
    n: sorted.length,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted[sorted.length - 1]!,
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

/** Runs `fn` `warmup` times unmeasured, then `runs` times measured (ms each). */
export async function measure(fn: () => Promise<unknown> | unknown, runs: number, warmup = Math.min(50, runs)): Promise<Summary> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return summarize(samples);
}

export const fmt = (s: Summary) => `p50 ${s.p50.toFixed(3)} ms  p95 ${s.p95.toFixed(3)} ms  p99 ${s.p99.toFixed(3)} ms  (n=${s.n})`;
