import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS } from '@rewind/sagas';
import { Rewind } from './rewind';
import { ToolCallError } from './tools';

/** A clock that never waits but remembers every wait asked of it. */
function recordingSleep(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return { waits, sleep: (ms) => (waits.push(ms), Promise.resolve()) };
}

describe('tools registered by name (seed 000 @rollback_step)', () => {
  it('calls a tool by name and undoes it by name on rollback, with a stable idempotency key', async () => {
    const rewind = Rewind.inMemory();
    const world: string[] = [];
    const keys: string[] = [];
    rewind.tool<{ hotel: string }, { bookingId: string }>('book_hotel', {
      run: ({ hotel }) => (world.push(`booked ${hotel}`), { bookingId: `b-${hotel}` }),
      undo: ({ output, idempotencyKey }) => (keys.push(idempotencyKey), world.push(`cancelled ${output!.bookingId}`)),
    });
    rewind.tool<{ q: string }, string[]>('search', { run: ({ q }) => [q] });
    const session = await rewind.startSession('trip');
    const start = await session.checkpoint('start');
    expect(await session.call('search', { q: 'Lisbon' })).toEqual(['Lisbon']);
    expect(await session.call('book_hotel', { hotel: 'Ritz' })).toEqual({ bookingId: 'b-Ritz' });

    const state = await session.rollbackTo(start);
    expect(world).toEqual(['booked Ritz', 'cancelled b-Ritz']);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^rewind:/);
    expect(state.toolCalls).toEqual([]);
    const effects = (await session.state(state.head)).toolCalls;
    expect(effects).toEqual([]);
    await rewind.close();
  });

  it('refuses an unregistered tool with a message saying what to do, and records nothing', async () => {
    const rewind = Rewind.inMemory();
    const session = await rewind.startSession();
    const before = (await session.events()).length;
    await expect(session.call('nope', {})).rejects.toThrow('register it with rewind.tool("nope"');
    expect(await session.events()).toHaveLength(before);
    await rewind.close();
  });

  it('declares the effect kind of the tool: irreversible calls need confirmation', async () => {
    const rewind = Rewind.inMemory();
    rewind.tool('charge_card', { kind: 'irreversible', run: () => ({ ok: true }) });
    const session = await rewind.startSession();
    await expect(session.call('charge_card', { eur: 5 })).rejects.toMatchObject({ code: 'confirmation_required' });
    await expect(session.call('charge_card', { eur: 5 }, { confirmed: true })).resolves.toEqual({ ok: true });
    await rewind.close();
  });
});

describe('forward retries (seed 004 retry_operation)', () => {
  const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 };

  it('retries a failing run with backoff and records each failed attempt in the state and the audit trail', async () => {
    const clock = recordingSleep();
    const rewind = Rewind.inMemory({ sleep: clock.sleep, random: () => 0.5 });
    let calls = 0;
    rewind.tool('book_hotel', {
      retry: policy,
      run: () => {
        calls++;
        if (calls < 3) throw new Error(`upstream 503 (${calls})`);
        return { bookingId: 'b-1' };
      },
      undo: () => undefined,
    });
    const session = await rewind.startSession();
    expect(await session.call('book_hotel', { hotel: 'Ritz' })).toEqual({ bookingId: 'b-1' });
    expect(clock.waits).toEqual([50, 100]); // full jitter at 0.5 of 100, then of 200
    const [call] = (await session.state()).toolCalls;
    expect(call).toMatchObject({ status: 'succeeded', attempts: 3, output: { bookingId: 'b-1' } });
    const failed = (await session.events()).filter((e) => e.type === 'ToolCallFailed').map((e) => e.data);
    expect(failed).toEqual([
      { toolCallId: call!.toolCallId, error: 'attempt 1 failed, retrying in 50 ms: upstream 503 (1)', retryable: true },
      { toolCallId: call!.toolCallId, error: 'attempt 2 failed, retrying in 100 ms: upstream 503 (2)', retryable: true },
    ]);
    await rewind.close();
  });

  it('does not retry a permanent error, and does not retry a tool without a policy', async () => {
    const clock = recordingSleep();
    const rewind = Rewind.inMemory({ sleep: clock.sleep });
    rewind.tool('pay', { retry: policy, run: () => Promise.reject(new ToolCallError('card declined', false)) });
    rewind.tool('flaky', { run: () => Promise.reject(new Error('timeout')) });
    const session = await rewind.startSession();
    await expect(session.call('pay', {})).rejects.toThrow('card declined');
    await expect(session.call('flaky', {})).rejects.toThrow('timeout');
    expect(clock.waits).toEqual([]);
    const calls = (await session.state()).toolCalls;
    expect(calls.map((c) => [c.tool, c.status, c.attempts, c.retryable])).toEqual([
      ['pay', 'failed', 1, false],
      ['flaky', 'failed', 1, false],
    ]);
    await rewind.close();
  });

  it('honours Retry-After over its own backoff, and says it gave up after the last attempt', async () => {
    const clock = recordingSleep();
    const rewind = Rewind.inMemory({ sleep: clock.sleep, random: () => 0 });
    rewind.tool('rate_limited', {
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
      run: () => Promise.reject(new ToolCallError('429', true, { retryAfter: '2' })),
    });
    const session = await rewind.startSession();
    await expect(session.call('rate_limited', {})).rejects.toThrow('429');
    expect(clock.waits).toEqual([2_000, 2_000]);
    const [call] = (await session.state()).toolCalls;
    expect(call).toMatchObject({ status: 'failed', attempts: 3, error: 'rate_limited gave up after 3 attempts: 429', retryable: false });
    await rewind.close();
  });

  it('never tries more than maxAttempts, never waits beyond the cap (or Retry-After, bounded), and ends in the truthful status', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          maxAttempts: fc.integer({ min: 1, max: 6 }),
          baseDelayMs: fc.integer({ min: 1, max: 500 }),
          maxDelayMs: fc.integer({ min: 1, max: 2_000 }),
        }),
        fc.array(fc.oneof(fc.constant('ok' as const), fc.constant('retryable' as const), fc.constant('permanent' as const), fc.nat(10 * 60_000)), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        async (policy, outcomes, jitter) => {
          const clock = recordingSleep();
          const rewind = Rewind.inMemory({ sleep: clock.sleep, random: () => jitter });
          let attempt = 0;
          rewind.tool('t', {
            retry: policy,
            run: () => {
              const outcome = outcomes[attempt++ % outcomes.length]!;
              if (outcome === 'ok') return 'done';
              if (outcome === 'permanent') throw new ToolCallError('no', false);
              if (outcome === 'retryable') throw new Error('again');
              throw new ToolCallError('later', true, { retryAfterMs: outcome });
            },
          });
          const session = await rewind.startSession();
          const result = await session.call('t', null).catch(() => 'threw');
          const [call] = (await session.state()).toolCalls;
          expect(attempt).toBeLessThanOrEqual(policy.maxAttempts);
          expect(call!.attempts).toBe(attempt);
          expect(call!.status).toBe(result === 'done' ? 'succeeded' : 'failed');
          expect(clock.waits).toHaveLength(attempt - 1);
          clock.waits.forEach((wait, i) => {
            const outcome = outcomes[i % outcomes.length]!;
            if (typeof outcome === 'number') expect(wait).toBe(Math.min(outcome, MAX_RETRY_AFTER_MS));
            else expect(wait).toBeLessThanOrEqual(policy.maxDelayMs);
          });
          await rewind.close();
        },
      ),
      { numRuns: 60 },
    );
  });
});
