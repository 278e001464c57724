import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Written by `npm run bench:locomo` (figures only: the LoCoMo data itself is never committed). */
export const LOCOMO_RESULTS_FILE = 'test/bench/locomo-results.md';
/** What the figures mean and how they were reached (written by hand; the bench never overwrites it). */
export const LOCOMO_NOTES_FILE = 'test/bench/locomo-notes.md';

/** The LoCoMo section of BENCHMARKS.md: the last `npm run bench:locomo` on all ten conversations, then the notes on it. */
export function loadLocomoSection(file = resolve(LOCOMO_RESULTS_FILE), notes = resolve(LOCOMO_NOTES_FILE)): string | null {
  if (!existsSync(file)) return null;
  const parts = [readFileSync(file, 'utf8').trim()];
  if (existsSync(notes)) parts.push(readFileSync(notes, 'utf8').trim());
  return parts.join('\n\n');
}
