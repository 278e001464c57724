import { existsSync, readFileSync } from 'node:fs';

/** Every byte SQLite keeps of an index file: the file and its WAL (latin1, so any byte sequence can be searched). */
export function rawIndexBytes(filename: string): string {
  return ['', '-wal'].map((suffix) => (existsSync(filename + suffix) ? readFileSync(filename + suffix).toString('latin1') : '')).join('');
}
