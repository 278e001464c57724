import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { runCli } from '@rewind/cli';

/** REWIND_RUN_PROJECTIONS=false: the API leaves the runners to another process and still serves the queries. */
describe('API with REWIND_RUN_PROJECTIONS=false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REWIND_RUN_PROJECTIONS: 'false' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('runs no projection itself, and answers from what another process projects', async () => {
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'left-to-worker', title: 'Lisbon' })).status).toBe(201);
    const status = (await t.http('GET', '/v1/projections')).body.projections as { name: string; state: string; lag: number }[];
    expect(status.length).toBeGreaterThan(0);
    for (const p of status) {
      expect(p.state).toBe('stopped');
      expect(p.lag).toBeGreaterThan(0);
    }

    // Another process (here the CLI, as a worker would) catches the projections up.
    const quiet = { write: () => true };
    expect(await runCli(['projections', 'catch-up'], { stdout: quiet, stderr: quiet, env: { REWIND_DATA_DIR: t.dataDir } })).toBe(0);
    const sessions = (await t.http('GET', '/v1/sessions')).body;
    expect(JSON.stringify(sessions)).toContain('left-to-worker');
  });
});
