import type { RetryPolicy } from '@rewind/domain';
import { noJitterGenerator } from 'cockatiel';

/** Retry-After is honoured, but never beyond this. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * Exponential backoff with full jitter: a random delay in [0, min(max, base * 2^(n-1))).
 * Full jitter spreads many concurrent rollbacks hitting one compensator, instead of
 * having them retry in lockstep.
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  // cockatiel's fullJitterGenerator is exactly this, but draws from Math.random; the ceiling is its
  // noJitterGenerator, the draw ours so that callers (and tests) can choose the random source.
  const [ceiling] = noJitterGenerator(Math.max(0, attempt - 1), {
    initialDelay: policy.baseDelayMs,
    maxDelay: policy.maxDelayMs,
    exponent: 2,
    generator: noJitterGenerator,
  });
  return Math.floor(random() * ceiling);
}

/** The wait before the next attempt: the compensator's Retry-After wins over our own backoff. */
export function nextDelay(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined, random?: () => number): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), MAX_RETRY_AFTER_MS);
  return backoffDelay(policy, attempt, random);
}

/** Parses a Retry-After header: seconds, or an HTTP date. */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
