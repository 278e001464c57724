import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '../../..');

describe('the generated client types', () => {
  it('are what openapi-typescript makes of the committed docs/openapi.json today (run `npm run client:generate` after `npm run openapi`)', () => {
    const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['client:generate']!;
    const [command, ...args] = script.split(/\s+/);
    expect(command).toBe('openapi-typescript');
    const dir = mkdtempSync(join(tmpdir(), 'rewind-client-gen-'));
    try {
      const out = join(dir, 'openapi.ts');
      const outIndex = args.indexOf('-o');
      args[outIndex + 1] = out;
      execFileSync(join(root, 'node_modules/.bin/openapi-typescript'), args, { cwd: root, stdio: 'pipe' });
      expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(root, 'libs/client/src/generated/openapi.ts'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
