import { mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOptional, MissingOptionalPackageError } from './load-optional';

describe('optional packages of @rewind/runtime, loaded when a store kind needs them', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'rewind-runtime-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('a driver that is not installed is refused with what to install and what for, the loader error as cause', async () => {
    const failure = await loadOptional({
      specifier: 'rewind-driver-nobody-installed',
      install: ['rewind-driver-nobody-installed'],
      usedFor: 'the test store',
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MissingOptionalPackageError);
    expect((failure as Error).message).toBe(
      'install rewind-driver-nobody-installed to use the test store: `npm install rewind-driver-nobody-installed` (an optional peer of @rewind/runtime, not installed).',
    );
    expect(((failure as Error).cause as NodeJS.ErrnoException).code).toMatch(/MODULE_NOT_FOUND/);
  });

  // The built packages, in a plain Node process: this one resolves @rewind/* to their sources.
  const runNode = (args: string[], script: string): string =>
    execFileSync(process.execPath, [...args, '-e', script], { cwd: join(__dirname, '..'), env: { ...process.env, NODE_OPTIONS: '' }, encoding: 'utf8' }).trim();
  const OPEN_READ_MODELS = `
    const backend = runtime.openSqliteBackend({ dataDir: process.env.DATA_DIR });
    const readModels = await backend.readModels();
    console.log(JSON.stringify({ esm: readModels instanceof projectionsEsm.ReadModelDatabase, cjs: readModels instanceof projectionsCjs.ReadModelDatabase }));
    await backend.close();`;

  it('the CommonJS build gives the read models of the CommonJS @rewind/projections (one copy of each class per process)', () => {
    process.env.DATA_DIR = dataDir();
    const script = `(async () => {
      const runtime = require('@rewind/runtime');
      const projectionsCjs = require('@rewind/projections');
      const projectionsEsm = await import('@rewind/projections');
      ${OPEN_READ_MODELS}
    })().catch((error) => { console.error(error); process.exit(1); });`;
    expect(JSON.parse(runNode([], script))).toEqual({ esm: false, cjs: true });
  });

  it('the ES module build gives the read models of the ES module @rewind/projections', () => {
    process.env.DATA_DIR = dataDir();
    const script = `
      import { createRequire } from 'node:module';
      const runtime = await import('@rewind/runtime');
      const projectionsCjs = createRequire(process.cwd() + '/')('@rewind/projections');
      const projectionsEsm = await import('@rewind/projections');
      ${OPEN_READ_MODELS}`;
    expect(JSON.parse(runNode(['--input-type=module'], script))).toEqual({ esm: true, cjs: false });
  });
});
