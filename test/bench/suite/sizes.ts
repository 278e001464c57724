/** How much work each workload does, in full and in quick (CI smoke test) mode. */
export interface Sizes {
  quick: boolean;
  /** W7 (and the data W1 restores): 20-turn sessions written through the live path. */
  storageSessions: number;
  /** W1 restores measured (and warm-up restores). */
  restoreRuns: number;
  restoreWarmup: number;
  /** W2: turns in the long session (5 events each, plus SessionStarted). */
  longTurns: number;
  timeTravelRuns: number;
  /** W2 runs for the slow ones: Emmett and Rewind without snapshots (replays), LangGraph (full-state checkpoints). */
  timeTravelReplayRuns: number;
  /** W3: sessions written step by step, and turns per session (buckets at 1-20, middle, last 20). */
  appendSessions: number;
  appendTurns: number;
  /** W3 HTTP: the same through the API. */
  httpAppendSessions: number;
  /** LangGraph's W3 thread (its checkpoints are W2's data too). */
  langgraphTurns: number;
  /** W4: concurrent sessions, measured steps per session, warm-up steps per session. */
  concurrentSessions: number;
  throughputSteps: number;
  throughputWarmup: number;
  /** HTTP path (client in its own process): measured requests per operation, and warm-up requests. */
  httpPathRuns: number;
  httpPathWarmup: number;
  /** W5: events in the log to rebuild from. */
  rebuildTurns: number;
  rebuildSessions: number;
  /** W6 rollbacks measured (plus 3 warm-up). */
  rollbackRuns: number;
  /** DB ceiling: seconds per configuration. */
  ceilingSeconds: number;
  /** The soak (`--soak`): minutes of load, and concurrent writers (a turn per request). */
  soakMinutes: number;
  soakSessions: number;
}

export function sizesFor(quick: boolean): Sizes {
  return quick
    ? {
        quick,
        storageSessions: 10,
        restoreRuns: 500,
        restoreWarmup: 100,
        longTurns: 1000,
        timeTravelRuns: 200,
        timeTravelReplayRuns: 20,
        appendSessions: 1,
        appendTurns: 200,
        httpAppendSessions: 1,
        langgraphTurns: 100,
        concurrentSessions: 100,
        throughputSteps: 10,
        throughputWarmup: 2,
        httpPathRuns: 200,
        httpPathWarmup: 50,
        rebuildTurns: 20,
        rebuildSessions: 50,
        rollbackRuns: 10,
        ceilingSeconds: 1,
        soakMinutes: 2,
        soakSessions: 32,
      }
    : {
        quick,
        storageSessions: 50,
        restoreRuns: 5000,
        restoreWarmup: 500,
        longTurns: 2000,
        timeTravelRuns: 2000,
        timeTravelReplayRuns: 200,
        appendSessions: 3,
        appendTurns: 300,
        httpAppendSessions: 2,
        langgraphTurns: 300,
        concurrentSessions: 100,
        throughputSteps: 100,
        throughputWarmup: 10,
        httpPathRuns: 3000,
        httpPathWarmup: 300,
        rebuildTurns: 20,
        rebuildSessions: 1000,
        rollbackRuns: 200,
        ceilingSeconds: 8,
        soakMinutes: 10,
        soakSessions: 32,
      };
}

/** W3 buckets: the first 20 turns, 20 in the middle, the last 20. */
export function appendBuckets(turns: number): { label: string; from: number; to: number }[] {
  const mid = Math.max(21, Math.floor(turns / 2) - 9);
  return [
    { label: `turns 1–20`, from: 1, to: Math.min(20, turns) },
    { label: `turns ${mid}–${mid + 19}`, from: mid, to: mid + 19 },
    { label: `turns ${turns - 19}–${turns}`, from: turns - 19, to: turns },
  ];
}
