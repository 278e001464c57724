import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/** For each test of the calling suite, a fresh index file's path (in a temporary directory removed after the test). */
export function useTempIndexFile(): { readonly filename: string } {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rewind-memory-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return {
    get filename() {
      return join(dir, 'rewind.memory.db');
    },
  };
}
