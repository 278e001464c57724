import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from './error-codes';

const ROOT = join(__dirname, '../../..');
/** Where HTTP refusals are made: the API, and the libraries whose errors it maps. Kafka-only refusals (worker, messaging) are not HTTP codes. */
const SOURCES = ['apps/api/src', 'libs/domain/src', 'libs/engine/src', 'libs/application/src', 'libs/contracts/src', 'libs/tenancy/src', 'libs/sagas/src'];
/** The ways a code is given: a DomainError helper, an ApiError, a status table, an error body literal. */
const PATTERNS = [
  /\b(?:notFound|conflict|invalid)\(\s*'([a-z_]+)'/g,
  /new DomainError\(\s*'[a-z_]+',\s*'([a-z_]+)'/g,
  /new ApiError\(\s*\d{3},\s*'([a-z_]+)'/g,
  /\[\d{3}, '([a-z_]+)'\]/g,
  /^\s*\d{3}: '([a-z_]+)',$/gm,
  /\bcode: '([a-z_]+)'/g,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'dist' || name === 'node_modules' || name === 'testing' ? [] : sourceFiles(path);
    return /\.ts$/.test(name) && !/\.spec\.ts$/.test(name) ? [path] : [];
  });
}

describe('ERROR_CODES', () => {
  it('lists every code the API refuses with (the OpenAPI enum generated clients rely on)', () => {
    const found = new Map<string, string>();
    for (const file of SOURCES.flatMap((dir) => sourceFiles(join(ROOT, dir)))) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of PATTERNS) for (const match of text.matchAll(pattern)) found.set(match[1]!, relative(ROOT, file));
    }
    const missing = [...found].filter(([code]) => !(ERROR_CODES as readonly string[]).includes(code)).map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
    // The scan sees the codes it should (a broken pattern would find nothing and pass).
    expect([...found.keys()]).toEqual(expect.arrayContaining(['session_not_found', 'version_conflict', 'unauthorized', 'invalid_json', 'api_key_not_found']));
  });

  it('has no duplicates', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });
});
