import type { RetryPolicy } from '@rewind/domain';

/** Retry-After is honoured, but never beyond this. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * Exponential backoff with full jitter: a random delay in [0, min(max, base * 2^(n-1))).
 * Full jitter spreads many concurrent rollbacks hitting one compensator, instead of
 * having them retry in lockstep.
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
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
