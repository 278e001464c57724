import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFUSAL_CODES, REFUSALS } from './testing/refusals';

/** The domain's own sources (not its specs, not its test helpers, not errors.ts where the factories are defined). */
function domainSources(): { file: string; text: string }[] {
  return readdirSync(__dirname)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && file !== 'errors.ts')
    .map((file) => ({ file, text: readFileSync(join(__dirname, file), 'utf8') }));
}

const FACTORY_CALL = /\b(?:conflict|notFound|invalid)\(/g;
const FACTORY_CODE = /\b(?:conflict|notFound|invalid)\(\s*'([a-z_]+)'/g;
const CONSTRUCTOR_CALL = /new DomainError\(/g;
const CONSTRUCTOR_CODE = /new DomainError\(\s*'[a-z_]+',\s*'([a-z_]+)'/g;

describe('the refusal catalogue (testing/refusals.ts)', () => {
  it('names exactly the codes the domain can refuse with', () => {
    const sources = domainSources();
    expect(sources.map((s) => s.file)).toContain('decide.ts');
    const thrown = new Set<string>();
    for (const { file, text } of sources) {
      const codes = [...text.matchAll(FACTORY_CODE), ...text.matchAll(CONSTRUCTOR_CODE)].map((m) => m[1]!);
      // A code that is not a literal would escape this check: there is none.
      const calls = [...text.matchAll(FACTORY_CALL)].length + [...text.matchAll(CONSTRUCTOR_CALL)].length;
      expect(codes.length, `${file}: every DomainError is built with a literal code`).toBe(calls);
      codes.forEach((code) => thrown.add(code));
    }
    expect([...thrown].sort()).toEqual([...REFUSAL_CODES].sort());
  });

  it('says when each code is used', () => {
    for (const code of REFUSAL_CODES) expect(REFUSALS[code].when.length, code).toBeGreaterThan(10);
  });
});
