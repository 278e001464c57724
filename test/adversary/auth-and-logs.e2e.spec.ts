import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoggedApp } from '../support/logged-app';

/**
 * Issue 28, item 9 (in part): failed authentications were never throttled, and a key sent by
 * mistake as a query parameter was written to the access log.
 */
describe('failed authentications and secrets in URLs', () => {
  let t: Awaited<ReturnType<typeof startLoggedApp>>;
  beforeAll(async () => {
    t = await startLoggedApp('log', { REWIND_AUTH_FAILURES_BURST: '5', REWIND_AUTH_FAILURES_PER_SECOND: '1' });
  });
  afterAll(() => t?.close());

  const get = (path: string, key: string) => fetch(`${t.base}${path}`, { headers: { authorization: `Bearer ${key}` } });

  it('throttles failed authentications per source with 429 and Retry-After, while a valid key keeps working', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 20; i++) {
      const res = await get('/v1/sessions', `rwd_000000000000_guess${i}`);
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter = res.headers.get('retry-after');
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      }
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await get('/v1/sessions', t.adminKey)).status).toBe(200);
  });

  it('writes no secret from the query string (or a key anywhere in the URL) to the access log', async () => {
    const secret = 'rwd_0123456789ab_SuperSecretKeyMaterial';
    await get(`/v1/sessions?api_key=${secret}&limit=5`, t.adminKey);
    await get(`/v1/sessions?token=plain-token-value&limit=5`, t.adminKey);
    await get(`/v1/sessions/${secret}`, t.adminKey);
    const log = t.raw.join('');
    expect(log).not.toContain('SuperSecretKeyMaterial');
    expect(log).not.toContain('plain-token-value');
    const urls = t
      .lines()
      .map((l) => (l as { req?: { url: string } }).req?.url)
      .filter((u): u is string => u !== undefined);
    expect(urls).toContain('/v1/sessions?api_key=[redacted]&limit=5');
    expect(urls).toContain('/v1/sessions?token=[redacted]&limit=5');
  });
});
