/** What each job reports back to the orchestrator (serialized as JSON between processes). */
import type { Histogram, LatencyRecorder, LatencySummary } from './recorder';

/** 'http': the null server (HTTP alone); 'floor': the durable floor (HTTP and one INSERT of the body). */
export type SystemName = 'rewind' | 'emmett' | 'langgraph' | 'postgres' | 'sqlite' | 'http' | 'floor';
export type StoreName = 'sqlite' | 'postgres';
/** Where a row's data lives ('none': the HTTP reference stores nothing). */
export type RowStore = StoreName | 'none';
export type WorkloadId = 'W1' | 'W2' | 'W3' | 'W4' | 'W5' | 'W6' | 'W7' | 'HTTP' | 'DB' | 'MEM' | 'SOAK';

export interface Row {
  workload: WorkloadId;
  /**
   * Rows with the same key measure the same thing on different systems; the row of system
   * "rewind" with that key is the reference for the ratios.
   */
  key: string;
  /** What was measured, for people. */
  label: string;
  system: SystemName;
  store: RowStore;
  /** library | http | sql */
  path: string;
  latency?: LatencySummary;
  histogram?: Histogram;
  /** events/s (or commits/s for the DB ceiling). */
  throughput?: number;
  /** bytes on disk per 20-turn session, and how they split. */
  bytesPerSession?: number;
  bytesBreakdown?: Record<string, number>;
  /** Anything else worth keeping in the raw figures. */
  extra?: Record<string, unknown>;
  notes?: string[];
  /** Set when the workload could not be measured (the row is kept). */
  notMeasured?: string;
}

export interface JobResult {
  job: string;
  startedAt: string;
  durationMs: number;
  rows: Row[];
  /** Facts the job learnt about its environment (e.g. the server's settings). */
  facts?: Record<string, unknown>;
  error?: string;
}

export function latencyRow(base: Omit<Row, 'latency' | 'histogram'>, recorder: LatencyRecorder): Row {
  return { ...base, latency: recorder.summary(), histogram: recorder.histogram() };
}
