/**
 * Latency recording for the benchmark suite: every sample is kept (exact percentiles by nearest
 * rank on the sorted samples), and a compact HDR-style log-linear histogram is derived for the
 * JSON output (bucket upper bounds grow by ~2 %, so any reported value is within 2 % of a sample).
 */
import { performance } from 'node:perf_hooks';

export interface LatencySummary {
  n: number;
  /** All in milliseconds. */
  min: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/** [upper bound in ms, count] pairs, ascending; empty buckets are left out. */
export type Histogram = [number, number][];

const GROWTH = 1.02;
const FLOOR_MS = 0.001;

export class LatencyRecorder {
  private samples = new Float64Array(1024);
  private count = 0;

  record(ms: number): void {
    if (this.count === this.samples.length) {
      const bigger = new Float64Array(this.samples.length * 2);
      bigger.set(this.samples);
      this.samples = bigger;
    }
    this.samples[this.count++] = ms;
  }

  /** Times one call of `fn` and records it; returns its result. */
  async time<T>(fn: () => Promise<T> | T): Promise<T> {
    const start = performance.now();
    const result = await fn();
    this.record(performance.now() - start);
    return result;
  }

  get size(): number {
    return this.count;
  }

  values(): Float64Array {
    return this.samples.subarray(0, this.count);
  }

  summary(): LatencySummary {
    return summarizeSamples(this.values());
  }

  histogram(): Histogram {
    return histogramOf(this.values());
  }
}

export function summarizeSamples(values: ArrayLike<number>): LatencySummary {
  const n = values.length;
  if (n === 0) return { n: 0, min: NaN, p50: NaN, p90: NaN, p95: NaN, p99: NaN, p999: NaN, max: NaN, mean: NaN };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i]!;
  return { n, min: sorted[0]!, p50: at(0.5), p90: at(0.9), p95: at(0.95), p99: at(0.99), p999: at(0.999), max: sorted[n - 1]!, mean: sum / n };
}

export function histogramOf(values: ArrayLike<number>): Histogram {
  const buckets = new Map<number, number>();
  const logGrowth = Math.log(GROWTH);
  for (let i = 0; i < values.length; i++) {
    const v = Math.max(values[i]!, FLOOR_MS);
    const index = Math.ceil(Math.log(v / FLOOR_MS) / logGrowth);
    buckets.set(index, (buckets.get(index) ?? 0) + 1);
  }
  return [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([index, count]) => [round(FLOOR_MS * GROWTH ** index, 4), count]);
}

/**
 * Runs `fn` `warmup` times unmeasured, then `runs` times measured, one at a time.
 * `fn` receives the iteration number (warm-up iterations are negative).
 */
export async function measureSerial(fn: (i: number) => Promise<unknown> | unknown, runs: number, warmup: number): Promise<LatencyRecorder> {
  for (let i = -warmup; i < 0; i++) await fn(i);
  const recorder = new LatencyRecorder();
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn(i);
    recorder.record(performance.now() - start);
  }
  return recorder;
}

export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export const fmtMs = (ms: number): string =>
  !Number.isFinite(ms) ? '–' : ms < 1 ? ms.toFixed(3) : ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0);

export const fmtLatency = (s: LatencySummary): string => `p50 ${fmtMs(s.p50)} ms  p95 ${fmtMs(s.p95)} ms  p99 ${fmtMs(s.p99)} ms  (n=${s.n})`;

/** A row's store, for people. */
export function storeLabel(store: 'postgres' | 'sqlite' | 'none'): string {
  return { postgres: 'PostgreSQL', sqlite: 'SQLite', none: '–' }[store];
}

export function fmtCount(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return Math.round(value).toLocaleString('en-US');
}

export function fmtBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '–';
  if (Math.abs(bytes) < 1024) return `${Math.round(bytes)} B`;
  if (Math.abs(bytes) < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A uniformly random integer in [min, max]. */
export function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}
