import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

/** Turn t: a user message, a tool call and its result, an agent answer (4 events, 5 with the memory write of every third turn). */
const turn = (t: number) => ({
  steps: [
    { kind: 'message', role: 'user', content: `question ${t}` },
    { kind: 'tool-call', toolCallId: `call-${t}`, tool: 'search', input: { t } },
    { kind: 'tool-result', toolCallId: `call-${t}`, output: { found: t } },
    { kind: 'message', role: 'agent', content: `answer ${t}` },
    ...(t % 3 === 0 ? [{ kind: 'memory', key: `k${t}`, value: t }] : []),
  ],
});

describe.each(E2E_STORES)('GET /v1/sessions/:id/state?turns=last:N on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let http: Http;
  const id = 'windowed';
  const versions: number[] = [];

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    t = await startTestApp(target.env);
    http = t.http;
    expect((await http('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
    for (let i = 0; i < 12; i++) {
      const res = await http('POST', `/v1/sessions/${id}/steps`, turn(i));
      expect(res.status).toBe(201);
      versions.push(res.body.head);
    }
  });
  afterAll(async () => {
    await t.close();
    await cleanup();
  });

  it('keeps the last N turns and the tool calls started during them, everything else whole, at the head and at any version', async () => {
    for (const at of [undefined, versions[3]!, versions[10]!]) {
      const whole = (await http('GET', `/v1/sessions/${id}/state${at ? `?at=${at}` : ''}`)).body;
      expect(whole.window).toBeUndefined();
      for (const n of [1, 2, 5, 12, 50]) {
        const res = await http('GET', `/v1/sessions/${id}/state?turns=last:${n}${at ? `&at=${at}` : ''}`);
        expect(res.status).toBe(200);
        const turns = whole.conversation.turns;
        const kept = turns.slice(-n);
        const fromVersion = n >= turns.length ? 1 : kept[0].startedVersion;
        const { conversation, toolCalls, window, ...rest } = res.body;
        const { conversation: _c, toolCalls: allCalls, ...wholeRest } = whole;
        expect(rest).toEqual(wholeRest);
        expect(conversation.turns).toEqual(kept);
        expect(toolCalls).toEqual(allCalls.filter((c: { startedVersion: number }) => c.startedVersion >= fromVersion));
        expect(toolCalls.map((c: { turnId: string }) => c.turnId)).toEqual(kept.map((k: { turnId: string }) => k.turnId));
        expect(window).toEqual({ lastTurns: n, totalTurns: turns.length, totalToolCalls: allCalls.length, fromVersion });
      }
    }
  });

  it('refuses a window that is not last:N (N from 1 to 1000000) by naming the parameter, and reads nothing', async () => {
    for (const bad of ['last:0', 'last:', 'last:-1', 'last:1.5', 'last:1e3', 'first:3', 'last:1000001', '5', 'last:01']) {
      const res = await http('GET', `/v1/sessions/${id}/state?turns=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details).toEqual([{ field: 'turns', message: 'turns must be last:N with N a whole number from 1 to 1000000, e.g. turns=last:20' }]);
    }
    const repeated = await http('GET', `/v1/sessions/${id}/state?turns=last:1&turns=last:2`);
    expect(repeated.status).toBe(400);
    expect(repeated.body.error.details[0].field).toBe('turns');
  });
});
