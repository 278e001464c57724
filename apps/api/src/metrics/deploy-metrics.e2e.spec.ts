import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SessionService } from '@rewind/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

const DEPLOY = join(process.cwd(), 'deploy');
const SOURCES = ['prometheus/rewind-alerts.yml', 'grafana/rewind-dashboard.json'];

/** Every metric name an expression in the file refers to. */
function metricNames(text: string): string[] {
  return [...new Set(text.match(/\b(?:rewind|process|nodejs)_[a-z0-9_]+/g) ?? [])];
}

describe('the dashboard and the alert rules under deploy/', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REWIND_SNAPSHOT_EVERY: '1' });
    // Make every seed 001 series exist: a write, a snapshot, a rebuild of a past version.
    await t.http('POST', '/v1/sessions', { sessionId: 'deploy', title: 'x' });
    await t.http('PUT', '/v1/sessions/deploy/memory/k', { value: 1 });
    await t.http('GET', '/v1/sessions/deploy/state?at=1');
    await t.app.get(SessionService).repository.flushSnapshots();
  });
  afterAll(() => t.close());

  it.each(SOURCES)('%s refers only to metrics the API exports (or, for the DLQ, the worker)', async (file) => {
    const scrape = await (await fetch(`${t.baseUrl}/metrics`)).text();
    // The DLQ counter lives in the worker (the Kafka command consumer); the rest the API exports too.
    const names = metricNames(readFileSync(join(DEPLOY, file), 'utf8')).filter((name) => name !== 'rewind_dlq_messages_total');
    expect(names.length).toBeGreaterThan(3);
    // Exported: a sample, or at least its TYPE line (a labelled counter has no sample before its first event).
    const missing = names.filter((name) => !new RegExp(`^(${name}(_bucket|_count|_sum)?[{ ]|# TYPE ${name} )`, 'm').test(scrape));
    expect(missing).toEqual([]);
  });

  it('the dashboard is Grafana JSON with the alarm lines of seed 001', () => {
    const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'grafana/rewind-dashboard.json'), 'utf8')) as {
      panels: { title: string; fieldConfig?: { defaults: { thresholds?: { steps: { value: number | null }[] } } } }[];
    };
    const line = (title: RegExp) => dashboard.panels.find((p) => title.test(p.title))?.fieldConfig?.defaults.thresholds?.steps.at(-1)?.value;
    expect(line(/write p99/)).toBe(0.05);
    expect(line(/Snapshot success/)).toBe(0.999);
    expect(dashboard.panels.map((p) => p.title)).toEqual(expect.arrayContaining(['Session restore time distribution', 'Storage growth rate']));
  });
});
