import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

/** Prometheus's own checker (Debian: apt-get install prometheus). CI installs it; elsewhere the spec says it is missing. */
const PROMTOOL = ['/usr/bin/promtool', 'promtool'].find((bin) => spawnSync(bin, ['--version']).status === 0);

describe('/metrics by the exposition format', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    // Series of every kind: an HTTP request, appended events, a past state rebuilt.
    await t.http('POST', '/v1/sessions', { sessionId: 'promtool' });
    await t.http('PUT', '/v1/sessions/promtool/memory/k', { value: 1 });
    await t.http('GET', '/v1/sessions/promtool/state?at=1');
  });
  afterAll(() => t.close());

  const runs = PROMTOOL !== undefined || !!process.env.CI;
  const name = runs
    ? 'passes `promtool check metrics` with nothing to report'
    : 'passes `promtool check metrics` with nothing to report [skipped: no promtool here — apt-get install prometheus; CI fails instead of skipping]';
  it.runIf(runs)(name, async () => {
    expect(PROMTOOL, 'promtool is not installed (apt-get install prometheus)').toBeDefined();
    const scrape = await (await fetch(`${t.baseUrl}/metrics`)).text();
    const check = spawnSync(PROMTOOL!, ['check', 'metrics'], { input: scrape, encoding: 'utf8' });
    expect({ status: check.status, output: `${check.stdout}${check.stderr}`.trim() }).toEqual({ status: 0, output: '' });
  });

  it('exports no gauge ending in _total (only counters may)', async () => {
    const scrape = await (await fetch(`${t.baseUrl}/metrics`)).text();
    const types = [...scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name: name!, type: type! }));
    expect(types.length).toBeGreaterThan(20);
    expect(types.filter(({ name, type }) => name.endsWith('_total') && type !== 'counter')).toEqual([]);
  });
});
