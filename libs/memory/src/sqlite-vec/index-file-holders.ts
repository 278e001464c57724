import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** A process that has an embedded memory index file open (the API, a worker), as its marker says. */
export interface IndexFileHolder {
  process: string;
  pid: number;
  host: string;
  since: string;
  /** How long ago the holder last said it is alive, in ms. */
  seenMsAgo: number;
}

/** How often a holder touches its marker; a marker untouched for three times as long is a crashed holder's. */
export const HOLDER_REFRESH_MS = 5_000;
const STALE_MS = 3 * HOLDER_REFRESH_MS;

const holdersDir = (indexFile: string) => `${indexFile}.holders`;

/**
 * Marks `indexFile` as held by this process until `release()`: a marker file per process in
 * `<index>.holders/`, touched every few seconds, so that `rewind memory rebuild` can refuse to
 * replace the file under a live API or worker (on this host or another sharing the folder). A
 * crashed holder's marker goes stale and stops counting.
 */
export function holdIndexFile(indexFile: string, processName: string): { release(): void } {
  const dir = holdersDir(indexFile);
  mkdirSync(dir, { recursive: true });
  const marker = join(dir, `${hostname()}-${process.pid}.json`);
  writeFileSync(marker, JSON.stringify({ process: processName, pid: process.pid, host: hostname(), since: new Date().toISOString() }));
  const timer = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(marker, now, now);
    } catch {
      // Removed by hand or by a rebuild's cleanup: write it again.
      mkdirSync(dir, { recursive: true });
      writeFileSync(marker, JSON.stringify({ process: processName, pid: process.pid, host: hostname(), since: new Date().toISOString() }));
    }
  }, HOLDER_REFRESH_MS);
  timer.unref();
  return {
    release() {
      clearInterval(timer);
      rmSync(marker, { force: true });
    },
  };
}

/** The live holders of `indexFile`: markers touched within the last 15 s. */
export function indexFileHolders(indexFile: string, now = Date.now()): IndexFileHolder[] {
  const dir = holdersDir(indexFile);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const holders: IndexFileHolder[] = [];
  for (const name of names) {
    try {
      const path = join(dir, name);
      const seenMsAgo = now - statSync(path).mtimeMs;
      const marker = JSON.parse(readFileSync(path, 'utf8')) as Omit<IndexFileHolder, 'seenMsAgo'>;
      if (seenMsAgo > STALE_MS) continue;
      holders.push({ ...marker, seenMsAgo: Math.max(0, Math.round(seenMsAgo)) });
    } catch {
      // A marker being written or removed right now: the next look sees it whole or not at all.
    }
  }
  return holders;
}
