import { describe, expect, it } from 'vitest';
import { checkReadiness, migrationsApplied, storeReachable, subscribersMoving } from './readiness';
import { SubscriberStallWatch } from './stall-watch';

describe('checkReadiness', () => {
  it('is ready when every check holds, and reports each one', async () => {
    const readiness = await checkReadiness([storeReachable(async () => 42), migrationsApplied(async () => [])], 1_000);
    expect(readiness).toEqual({
      ready: true,
      checks: [
        { name: 'store', ok: true, detail: 'reachable (head at global position 42)' },
        { name: 'migrations', ok: true, detail: 'all applied' },
      ],
    });
  });

  it('is not ready when one check fails, and says what to do', async () => {
    const readiness = await checkReadiness(
      [
        storeReachable(async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        }),
        migrationsApplied(async () => ['rewind 4 snapshot segments']),
      ],
      1_000,
    );
    expect(readiness.ready).toBe(false);
    expect(readiness.checks[0]).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/event store does not answer \(connect ECONNREFUSED.*check that the database is up/),
    });
    expect(readiness.checks[1]).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/migrations not applied: rewind 4 snapshot segments; .*migrations job/),
    });
  });

  it('fails a check that never answers instead of hanging the probe', async () => {
    const readiness = await checkReadiness([{ name: 'hung', run: () => new Promise<string>(() => undefined) }], 20);
    expect(readiness).toEqual({ ready: false, checks: [{ name: 'hung', ok: false, detail: 'no answer within 20 ms' }] });
  });

  it('names the stalled subscribers', async () => {
    let now = 0;
    const watch = new SubscriberStallWatch(1_000, () => now);
    const check = subscribersMoving(watch, async () => [
      { name: 'projection:audit_log', position: 7, lag: 3 },
      { name: 'relay:rewind.events', position: 10, lag: 0 },
    ]);
    expect(await check.run()).toBe('projection:audit_log: 3 behind, relay:rewind.events: 0 behind');
    now = 5_000;
    await expect(check.run()).rejects.toThrow('stalled past 1 s: projection:audit_log (3 behind, stuck at 7 for 5 s)');
  });
});
