import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backendsUnderTest, type Fixture } from '@rewind/projections/testing';
import { appendWorkload } from '@rewind/projections/testing';
import { COMMANDS, runCli } from '../cli';
import type { CommandSpec } from '../command';
import { projectionsCommands } from './projections';

// The projection commands, whether or not cli.ts lists them yet.
const commands: CommandSpec[] = [...COMMANDS, ...projectionsCommands.filter((c) => !COMMANDS.some((x) => x.name === c.name))];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function rewind(env: Record<string, string>, argv: string[], options: { tty?: boolean } = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const out = { write: (chunk: string) => (stdout += chunk), ...(options.tty ? { isTTY: true } : {}) };
  const code = await runCli(argv, { stdout: out, stderr: { write: (chunk: string) => (stderr += chunk) }, env }, commands);
  return { code, stdout, stderr };
}

for (const { backend, skip, on } of backendsUnderTest()) {
  describe.skipIf(skip !== null)(`rewind projections … on ${on}`, () => {
    let f: Fixture;
    let events: number;
    beforeEach(async () => {
      f = await backend.open();
      events = (await appendWorkload(f.store, { events: 2500, activeSessions: 20, seed: 31 })).events;
      await f.settle();
    });
    afterEach(() => f.close());
    afterAll(() => backend.dispose());

    it('status shows each projection behind the log; catch-up brings them to its head', async () => {
      const head = await f.settle();
      const inLog = await f.store.countBetween!(0, head);
      const before = await rewind(f.env, ['projections', 'status', '--json']);
      expect(before.code).toBe(0);
      expect(JSON.parse(before.stdout).map((s: { name: string; position: number; head: number; lag: number }) => [s.name, s.position, s.head, s.lag])).toEqual([
        // Lag counts events (on PostgreSQL positions have gaps: the head is a position, not a count).
        ['sessions', 0, head, inLog],
        ['ledger', 0, head, inLog],
        ['audit', 0, head, inLog],
      ]);

      const catchUp = await rewind(f.env, ['projections', 'catch-up', '--projection', 'audit']);
      expect(catchUp).toMatchObject({ code: 0, stderr: '' });
      expect(catchUp.stdout).toContain(`Applied ${events.toLocaleString('en-US')} events; audit at ${head}`);

      const table = await rewind(f.env, ['projections', 'status']);
      expect(table.code).toBe(0);
      const lines = table.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^projection\s+position\s+head\s+lag\s+updated\s+rebuild$/);
      expect(lines.find((l) => l.startsWith('audit'))).toMatch(new RegExp(`^audit\\s+${head}\\s+${head}\\s+0 \\(up to date\\)`));
      expect(lines.find((l) => l.startsWith('sessions'))).toMatch(new RegExp(`^sessions\\s+0\\s+${head}\\s+${inLog}\\s`));
    });

    it('rebuild --verify swaps in identical tables and says so, with progress lines when stdout is not a terminal', async () => {
      expect((await rewind(f.env, ['projections', 'catch-up'])).code).toBe(0);
      const run = await rewind(f.env, ['projections', 'rebuild', '--verify', '--batch-size', '500']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Rebuilding all projections from the event log in');
      expect(run.stdout).toMatch(/^rebuild: 100% [\d,]+ events, [\d,]+ events\/s/m);
      expect(run.stdout).toContain(`Rebuilt sessions, ledger, audit: ${events.toLocaleString('en-US')} events in`);
      expect(run.stdout).toContain('Verified: the live read models (sessions, ledger, audit) match a rebuild from the event log');
      expect(run.stdout).not.toContain('\r');
    });

    it('verify exits 1 naming the tampered rows and swaps nothing; rebuild refuses to swap a differing rebuild unless --force', async () => {
      expect((await rewind(f.env, ['projections', 'catch-up'])).code).toBe(0);
      const d = f.db.dialect;
      await f.db.dataSource.query(`UPDATE ${d.qualified('sessions')} SET status = 'needs_attention' WHERE tenant_id = ${d.p(1)} AND session_id = ${d.p(2)}`, [
        'acme',
        'bench-1',
      ]);
      await f.db.dataSource.query(`DELETE FROM ${d.qualified('tool_call_ledger')} WHERE tenant_id = ${d.p(1)}`, ['globex']);
      const tamperedStatus = async () =>
        (
          await f.db.dataSource.query(`SELECT status FROM ${d.qualified('sessions')} WHERE tenant_id = ${d.p(1)} AND session_id = ${d.p(2)}`, [
            'acme',
            'bench-1',
          ])
        )[0].status;

      const run = await rewind(f.env, ['projections', 'verify', '--projection', 'sessions,ledger']);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('read-only: nothing is swapped');
      expect(run.stdout).toContain('nothing swapped, the live tables are untouched');
      expect(run.stderr).toContain('rewind: verification failed: the live read models do not match the event log');
      expect(run.stderr).toContain('nothing was changed');
      expect(run.stdout).toContain('Verification FAILED: sessions, tool_call_ledger differ from a rebuild from the event log');
      expect(run.stdout).toContain('changed  tenant_id=acme session_id=bench-1: status: live "needs_attention" ≠ rebuilt "active"');
      expect(run.stdout).toMatch(/tool_call_ledger\s+\d+ live rows, \d+ rebuilt rows: 0 changed, 0 only in live, \d+ missing from live/);
      expect(run.stdout).toMatch(/missing from live {2}tenant_id=globex session_id=bench-\d+ started_version=\d+: tool_call_id="call-/);
      expect(run.stdout).toMatch(/… and \d+ more/);
      expect(await tamperedStatus()).toBe('needs_attention');

      const careful = await rewind(f.env, ['projections', 'rebuild', '--projection', 'sessions,ledger']);
      expect(careful.code).toBe(1);
      expect(careful.stderr).toContain('so it was not swapped in');
      expect(careful.stderr).toContain('--force');
      expect(await tamperedStatus()).toBe('needs_attention');

      const forced = await rewind(f.env, ['projections', 'rebuild', '--force', '--verify', '--projection', 'sessions,ledger']);
      expect(forced.code).toBe(1);
      expect(forced.stderr).toContain('they have been replaced by the rebuilt ones (--force)');
      expect(await tamperedStatus()).toBe('active');

      const again = await rewind(f.env, ['projections', 'verify', '--projection', 'sessions,ledger', '--json']);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ projections: ['sessions', 'ledger'], swapped: false, verification: { identical: true } });
    });

    it('draws a progress bar on a terminal', async () => {
      const run = await rewind(f.env, ['projections', 'rebuild', '--projection', 'audit', '--batch-size', '250'], { tty: true });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('\r\x1b[2K[');
      expect(run.stdout).toMatch(/\[█{28}\] 100%/);
      expect(run.stdout).toContain('Rebuilt audit:');
    });

    it('rejects unknown projections and bad options with the usage', async () => {
      const run = await rewind(f.env, ['projections', 'rebuild', '--projection', 'sessions,nope']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--projection: Unknown projection "nope": the projections are sessions, ledger, audit.');
      expect(run.stderr).toContain('Usage: rewind projections rebuild');
      expect((await rewind(f.env, ['projections', 'rebuild', '--batch-size', 'lots'])).stderr).toContain('--batch-size "lots" is not valid');
      const help = await rewind(f.env, ['projections', 'rebuild', '--help']);
      expect(help.stdout).toContain('--verify');
    });
  });
}

describe('rewind projections … when the data is not there', () => {
  let empty = '';
  beforeAll(() => {
    empty = mkdtempSync(join(tmpdir(), 'rewind-proj-cli-'));
  });
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it('says where it looked on SQLite, and what PostgreSQL needs', async () => {
    const none = await rewind({ REWIND_DATA_DIR: empty }, ['projections', 'status']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`no Rewind database at ${join(empty, 'rewind.db')}`);

    const noUrl = await rewind({ REWIND_STORE: 'postgres' }, ['projections', 'status']);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('REWIND_STORE=postgres needs DATABASE_URL');

    const down = await rewind({ REWIND_STORE: 'postgres', DATABASE_URL: 'postgres://rewind:hunter2@127.0.0.1:1/rewind' }, ['projections', 'rebuild']);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('Cannot reach PostgreSQL at postgres://rewind:***@127.0.0.1:1/rewind');
    expect(down.stderr).not.toContain('hunter2');
  });
});
