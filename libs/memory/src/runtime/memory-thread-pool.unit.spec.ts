import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { threadExecArgv } from './memory-thread-pool';

/** Starts a worker thread in a `node --max-old-space-size=512` process, with the given execArgv option (as code), and says how it went. */
function workerUnderV8Flag(execArgvOption: string): string {
  const script = `
    const { Worker } = require('node:worker_threads');
    try {
      new Worker('require("node:worker_threads").parentPort.postMessage("ok")', { eval: true, ${execArgvOption} })
        .on('message', (m) => { console.log(m); process.exit(0); })
        .on('error', (e) => { console.log(e.code); process.exit(0); });
    } catch (e) { console.log(e.code); }`;
  return spawnSync(process.execPath, ['--max-old-space-size=512', '-e', script], { encoding: 'utf8' }).stdout.trim();
}

describe('the memory thread’s Node flags', () => {
  it('inherits this process’s flags (none given) unless the test runner’s source condition must be removed', () => {
    expect(threadExecArgv(['--max-old-space-size=4096', '--enable-source-maps'])).toBeUndefined();
    expect(threadExecArgv([])).toBeUndefined();
    expect(threadExecArgv(['--conditions=@rewind/source', '--enable-source-maps'])).toEqual(['--enable-source-maps']);
    expect(threadExecArgv(['-C', '@rewind/source', '--trace-warnings'])).toEqual(['--trace-warnings']);
    expect(threadExecArgv(['--conditions', 'other', '--inspect'])).toBeUndefined();
  });

  it('a V8 flag on the command line reaches a thread that inherits it, and stops one that is given it (why nothing is given by default)', () => {
    expect(workerUnderV8Flag('')).toBe('ok');
    expect(workerUnderV8Flag('execArgv: process.execArgv')).toBe('ERR_WORKER_INVALID_EXEC_ARGV');
  });
});
