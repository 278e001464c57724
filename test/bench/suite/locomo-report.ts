import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Written by `npm run bench:locomo` (figures only: the LoCoMo data itself is never committed). */
export const LOCOMO_RESULTS_FILE = 'test/bench/locomo-results.md';

/** The LoCoMo section of BENCHMARKS.md, as the last `npm run bench:locomo` on all ten conversations wrote it. */
export function loadLocomoSection(file = resolve(LOCOMO_RESULTS_FILE)): string | null {
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
}
