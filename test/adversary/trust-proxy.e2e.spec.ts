import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@rewind/config';
import { startLoggedApp } from '../support/logged-app';

/**
 * Issue 28, item 7 (failed authentication throttled per source), behind a proxy: every request
 * then comes from the proxy's address, so one key guesser locked out every client. With
 * REWIND_TRUST_PROXY naming the proxy, X-Forwarded-For names the client; without it, the header
 * is a client's own word and changes nothing.
 */
const guess = (base: string, forwardedFor: string, i: number) =>
  fetch(`${base}/v1/sessions`, { headers: { authorization: `Bearer rwd_000000000000_guess${i}`, 'x-forwarded-for': forwardedFor } });

async function statusesOf(base: string, forwardedFor: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await guess(base, forwardedFor, i)).status);
  return statuses;
}

describe('failed-auth throttling behind a trusted proxy (REWIND_TRUST_PROXY)', () => {
  let t: Awaited<ReturnType<typeof startLoggedApp>>;
  beforeAll(async () => {
    t = await startLoggedApp('log', { REWIND_AUTH_FAILURES_BURST: '3', REWIND_AUTH_FAILURES_PER_SECOND: '1', REWIND_TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => t?.close());

  it('throttles the client X-Forwarded-For names, not every client behind the proxy', async () => {
    expect(await statusesOf(t.base, '203.0.113.7', 6)).toEqual([401, 401, 401, 429, 429, 429]);
    // Another client behind the same proxy is not locked out by the first one's guesses.
    expect(await statusesOf(t.base, '198.51.100.9', 3)).toEqual([401, 401, 401]);
    const throttled = await guess(t.base, '203.0.113.7', 99);
    expect(((await throttled.json()) as { error: { message: string } }).error.message).toContain('203.0.113.7');
  });
});

describe("without REWIND_TRUST_PROXY, X-Forwarded-For is a client's own word", () => {
  let t: Awaited<ReturnType<typeof startLoggedApp>>;
  beforeAll(async () => {
    t = await startLoggedApp('log', { REWIND_AUTH_FAILURES_BURST: '3', REWIND_AUTH_FAILURES_PER_SECOND: '1' });
  });
  afterAll(() => t?.close());

  it('a guesser cannot escape the throttle by writing a new X-Forwarded-For on each try', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await guess(t.base, `192.0.2.${i + 1}`, i)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
  });

  it('refuses a setting that would trust every client, and a malformed proxy address, naming the variable', () => {
    expect(() => loadConfig({ REWIND_TRUST_PROXY: 'true' })).toThrow(/REWIND_TRUST_PROXY="true" would believe any client/);
    expect(() => loadConfig({ REWIND_TRUST_PROXY: '10.0.0.0/99' })).toThrow(/REWIND_TRUST_PROXY entry "10.0.0.0\/99" is not valid/);
    expect(loadConfig({ REWIND_TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy).toEqual(['10.0.0.0/8', 'loopback']);
    expect(loadConfig({ REWIND_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({}).trustProxy).toBe(false);
  });
});
