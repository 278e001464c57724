import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAnalysis } from './analysis';

describe("BENCHMARKS.md's account of the missed targets", () => {
  it('is read from its file (trimmed), and absent when there is none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rewind-analysis-'));
    writeFileSync(join(dir, 'analysis.md'), '\n## Why\n\ntext\n\n');
    expect(loadAnalysis(join(dir, 'analysis.md'))).toBe('## Why\n\ntext');
    expect(loadAnalysis(join(dir, 'missing.md'))).toBeNull();
  });

  it('the committed file is a section of its own, so it renders after the generated ones', () => {
    expect(loadAnalysis()).toMatch(/^## /);
  });
});
