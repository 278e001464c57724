import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * BENCHMARKS.md's account of the missed targets (where the time goes, what it would take):
 * written by people after reading the profiles, kept in `test/bench/analysis.md` so that every
 * `npm run bench` renders it again instead of dropping it.
 */
export const ANALYSIS_FILE = 'test/bench/analysis.md';

export function loadAnalysis(file = resolve(ANALYSIS_FILE)): string | null {
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
}
