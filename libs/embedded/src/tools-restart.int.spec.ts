import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Rewind, ToolCallError } from './index';

const BUILT = join(process.cwd(), 'libs/embedded/dist/index.js');

/**
 * The child books three hotels, then rolls back to the start. Undoing the newest booking
 * works; undoing the second one announces itself and hangs, and the test kills the child
 * there: a process that died in the middle of a rollback.
 */
const CHILD = `
const { appendFileSync } = require('node:fs');
const { Rewind } = require(process.env.EMBEDDED);
const log = (line) => appendFileSync(process.env.UNDO_LOG, line + '\\n');
(async () => {
  const rewind = Rewind.open({ dataDir: process.env.DATA_DIR });
  rewind.tool('book_hotel', {
    run: ({ hotel }) => ({ bookingId: 'b-' + hotel }),
    undo: async ({ output }) => {
      if (output.bookingId === 'b-2') { process.stdout.write('undoing b-2\\n'); return new Promise(() => {}); }
      log('cancelled ' + output.bookingId);
    },
  });
  const session = await rewind.startSession('trip');
  const start = await session.checkpoint('start');
  for (const hotel of ['1', '2', '3']) await session.call('book_hotel', { hotel });
  process.stdout.write('booked\\n');
  await session.rollbackTo(start);
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('tools registered by name survive a restart in the middle of a rollback', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('a process killed during a rollback: reopen, register the tools again, the rollback completes and each undo ran once', async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run "npm run build" first (npm test does).`);
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-restart-'));
    dirs.push(dataDir);
    const undoLog = join(dataDir, 'undos.log');
    const child = spawn(process.execPath, ['-e', CHILD], {
      env: { ...process.env, EMBEDDED: BUILT, DATA_DIR: dataDir, UNDO_LOG: undoLog },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        output += d;
        if (output.includes('undoing b-2')) resolve();
      });
      child.stderr.on('data', (d) => (output += d));
      void exited.then(() => reject(new Error(`the child exited before the rollback reached b-2:\n${output}`)));
    });
    child.kill('SIGKILL');
    await exited;
    expect(readFileSync(undoLog, 'utf8')).toBe('cancelled b-3\n');

    const reopened = Rewind.open({ dataDir });
    expect((await reopened.session('trip').state()).status).toBe('rolling_back');
    reopened.tool<{ hotel: string }, { bookingId: string }>('book_hotel', {
      run: () => {
        throw new ToolCallError('not called after the restart', false);
      },
      undo: ({ output }) => appendFileSync(undoLog, `cancelled ${output!.bookingId}\n`),
    });
    expect(await reopened.resumeRollbacks()).toBe(1);
    const state = await reopened.session('trip').state();
    expect(state.status).toBe('active');
    expect(state.toolCalls).toEqual([]);
    expect(readFileSync(undoLog, 'utf8').trim().split('\n')).toEqual(['cancelled b-3', 'cancelled b-2', 'cancelled b-1']);
    const applied = (await reopened.session('trip').events()).filter((e) => e.type === 'CompensationApplied');
    expect(applied).toHaveLength(3);
    await reopened.close();
  });
});
