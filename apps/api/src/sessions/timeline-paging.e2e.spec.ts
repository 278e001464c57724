import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Http } from '../../../../test/support/http-client';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

/** GET /v1/sessions/:id/timeline?from=&limit=: the UI's way through a long session without its megabytes. */
describe('timeline paging', () => {
  let t: TestApp;
  let http: Http;
  const id = 'paged-trip';
  let full: any;

  beforeAll(async () => {
    t = await startTestApp();
    http = t.http;
    const s = `/v1/sessions/${id}`;
    expect((await http('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
    const steps = Array.from({ length: 40 }, (_, i) =>
      i % 2 ? { kind: 'memory', key: `k${i}`, value: i } : { kind: 'message', role: 'user', content: `m${i}` },
    );
    expect((await http('POST', `${s}/steps`, { steps })).status).toBe(201);
    expect((await http('POST', `${s}/rollback`, { toVersion: 20 })).status).toBe(200); // two versions that are not nodes
    expect((await http('POST', `${s}/steps`, { steps: steps.slice(0, 10) })).status).toBe(201); // a second branch, forked at 20
    full = (await http('GET', `${s}/timeline`)).body;
    expect(full.parents).toBeUndefined(); // the unpaged answer is unchanged
    expect(full.branches).toHaveLength(2);
  });
  afterAll(async () => t?.close());

  it('property: a page holds exactly the nodes of its span, as the whole timeline details them, and the whole DAG in parents', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: full.version + 5 }), fc.integer({ min: 1, max: 30 }), async (from, limit) => {
        const res = await http('GET', `/v1/sessions/${id}/timeline?from=${from}&limit=${limit}`);
        expect(res.status).toBe(200);
        expect(res.body.nodes).toEqual(full.nodes.filter((n: any) => n.version >= from && n.version < from + limit));
        expect(res.body.page).toEqual({ from, to: Math.min(from + limit - 1, full.version) });
        const fromParents = (res.body.parents as number[]).flatMap((parent, i) => (parent < 0 ? [] : [[i + 1, parent === 0 ? null : parent]]));
        expect(fromParents).toEqual(full.nodes.map((n: any) => [n.version, n.parentVersion]));
        expect(res.body).toMatchObject({ head: full.head, version: full.version, branches: full.branches, checkpoints: full.checkpoints });
      }),
      { numRuns: 25 },
    );
  });

  it('without from, a page is the newest versions (where the head usually is)', async () => {
    const res = await http('GET', `/v1/sessions/${id}/timeline?limit=5`);
    expect(res.body.page).toEqual({ from: full.version - 4, to: full.version });
    expect(res.body.nodes.map((n: any) => n.version)).toEqual([full.version - 4, full.version - 3, full.version - 2, full.version - 1, full.version]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=5001', 'limit'],
    ['from=0&limit=5', 'from'],
    ['from=abc', 'from'],
  ])('refuses %s in the documented error shape', async (q, field) => {
    const res = await http('GET', `/v1/sessions/${id}/timeline?${q}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});
