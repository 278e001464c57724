import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

describe.each(E2E_STORES)('approvals over HTTP on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let http: Http;

  beforeAll(async () => {
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    t = await startTestApp(store.env);
    http = t.http;
    // The policy: charge_card's calls (irreversible) wait for a person.
    expect((await http('PUT', '/v1/tools/charge_card', { kind: 'irreversible', approval: 'required' })).status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await cleanup();
  });

  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await http(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  };
  const session = async () => {
    const id = `approve-${randomUUID().slice(0, 8)}`;
    await ok('POST', '/v1/sessions', { sessionId: id });
    await ok('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'Pay the deposit' });
    return `/v1/sessions/${id}`;
  };

  it('a call of a tool that requires approval is refused until proposed and approved; approved, it starts as approved; who and when are kept', async () => {
    const s = await session();
    const refused = await http('POST', `${s}/tool-calls`, { toolCallId: 'pay1', tool: 'charge_card', input: { amount: 50 }, confirmed: true });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'approval_required', details: [expect.objectContaining({ field: 'toolCallId' })] });
    expect(refused.body.error.message).toContain('propose it');

    const proposed = await ok('POST', `${s}/proposals`, { toolCallId: 'pay1', tool: 'charge_card', input: { amount: 50 } });
    expect(proposed.events.map((e: { type: string }) => e.type)).toEqual(['ToolCallProposed']);
    expect((await ok('GET', s)).proposals).toEqual([
      expect.objectContaining({ toolCallId: 'pay1', status: 'pending', effect: { kind: 'irreversible', approval: 'required' } }),
    ]);
    const pending = await http('POST', `${s}/tool-calls`, { toolCallId: 'pay1', tool: 'charge_card', input: { amount: 50 } });
    expect([pending.status, pending.body.error.code]).toEqual([409, 'approval_required']);

    await ok('POST', `${s}/proposals/pay1/approve`, { note: 'within budget' });
    const [proposal] = (await ok('GET', s)).proposals;
    expect(proposal).toMatchObject({ status: 'approved', note: 'within budget', decidedBy: expect.any(String) });
    expect(Date.parse(proposal.decidedAt)).toBeGreaterThan(Date.now() - 60_000);
    const mismatch = await http('POST', `${s}/tool-calls`, { toolCallId: 'pay1', tool: 'charge_card', input: { amount: 5000 } });
    expect([mismatch.status, mismatch.body.error.code]).toEqual([409, 'proposal_mismatch']);
    await ok('POST', `${s}/tool-calls`, { toolCallId: 'pay1', tool: 'charge_card', input: { amount: 50 } });
    expect((await ok('GET', s)).toolCalls).toEqual([expect.objectContaining({ toolCallId: 'pay1', status: 'started', confirmed: true })]);
    const again = await http('POST', `${s}/proposals/pay1/reject`, { reason: 'too late' });
    expect([again.status, again.body.error.code]).toEqual([409, 'proposal_not_pending']);
  });

  it('a rejected call never runs; undoing past a proposal that never ran compensates nothing', async () => {
    const s = await session();
    await ok('POST', `${s}/proposals`, { toolCallId: 'pay2', tool: 'charge_card', input: { amount: 5000 } });
    await ok('POST', `${s}/proposals/pay2/reject`, { reason: 'too expensive' });
    expect((await ok('GET', s)).proposals).toEqual([expect.objectContaining({ status: 'rejected', note: 'too expensive' })]);
    const refused = await http('POST', `${s}/tool-calls`, { toolCallId: 'pay2', tool: 'charge_card', input: { amount: 5000 } });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'approval_required']);
    expect(refused.body.error.message).toContain('too expensive');

    await ok('POST', `${s}/proposals`, { toolCallId: 'pay3', tool: 'charge_card', input: { amount: 1 } });
    const plan = await ok('POST', `${s}/undo`, { steps: 3, dryRun: true });
    expect(plan.plan.effects).toEqual([]);
    const undone = await ok('POST', `${s}/undo`, { steps: 3 });
    expect(undone.rollbackId === undefined || undone.status === 'active').toBe(true);
    expect((await ok('GET', s)).proposals).toEqual([]);
  });

  it('refuses bad decisions in the documented shape and writes nothing', async () => {
    const s = await session();
    const version = (await ok('GET', s)).version;
    const cases: [string, unknown, number, string][] = [
      ['proposals/nope/approve', {}, 404, 'proposal_not_found'],
      ['proposals/nope/reject', {}, 400, 'validation_failed'],
      ['proposals/nope/reject', { reason: 'x' }, 404, 'proposal_not_found'],
      ['proposals', { tool: 'charge_card' }, 400, 'validation_failed'],
      ['proposals', { toolCallId: 'x', tool: 'charge_card', confirmed: true }, 400, 'validation_failed'],
    ];
    for (const [path, body, status, code] of cases) {
      const res = await http('POST', `${s}/${path}`, body);
      expect([res.status, res.body.error.code], JSON.stringify([path, body])).toEqual([status, code]);
    }
    expect((await ok('GET', s)).version).toBe(version);
    const badPolicy = await http('PUT', '/v1/tools/other', { kind: 'irreversible', approval: 'sometimes' });
    expect([badPolicy.status, badPolicy.body.error.code]).toEqual([400, 'validation_failed']);
  });
});
