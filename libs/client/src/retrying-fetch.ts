import { DelegateBackoff, fullJitterGenerator, handleWhen, retry, type IRetryBackoffContext } from 'cockatiel';

export interface RetryPolicy {
  /** Tries in all, the first included (default 5; 1 = never retry). */
  attempts: number;
  /** Backoff ceiling of the first retry; doubles each time, with full jitter (default 100 ms). */
  baseDelayMs: number;
  /** Largest backoff (default 5 s). */
  maxDelayMs: number;
  /** Longest Retry-After honoured; a longer one ends the retries with the answer as it is (default 60 s). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 5_000, maxRetryAfterMs: 60_000 };

/** Statuses that say "not now, try again": the request was not applied. */
const RETRYABLE_STATUSES = new Set([429, 503]);

export interface RetryingFetchOptions {
  policy: RetryPolicy;
  /** One key per logical write; its retries reuse it, so the server applies the write once. */
  newIdempotencyKey?: () => string;
  fetch?: typeof fetch;
}

/**
 * A fetch that gives every write an Idempotency-Key (unless the caller set one) and retries
 * 429, 503 and network failures with the same key, waiting what Retry-After says or an
 * exponential backoff with full jitter. A write whose answer was lost is therefore safe to
 * send again: the server answers the first result (duplicate: true) and writes nothing twice.
 */
export function retryingFetch(options: RetryingFetchOptions): (input: Request) => Promise<Response> {
  const base = options.fetch ?? globalThis.fetch;
  // Web Crypto (Node and browsers alike): the client bundles for the browser without Node built-ins.
  const newKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const { policy } = options;
  const retrying = retry(
    handleWhen((error) => !isAbort(error)).orWhenResult((response) => isRetryable(response as Response, policy)),
    { maxAttempts: Math.max(0, policy.attempts - 1), backoff: new DelegateBackoff((context: IRetryBackoffContext<unknown>) => waitBefore(policy, context)) },
  );
  // The answer we do not return is not read: free its connection before waiting.
  retrying.onRetry((outcome) => void ('value' in outcome ? (outcome.value as Response).body?.cancel() : undefined));
  return (input) => {
    const request = input.method === 'GET' || input.headers.has('idempotency-key') ? input : withHeader(input, 'Idempotency-Key', newKey());
    return retrying.execute(({ attempt }) => base(attempt + 1 >= policy.attempts ? request : request.clone()));
  };
}

/** 429 and 503 say "not now"; a Retry-After longer than we accept ends the retries with the answer as it is. */
function isRetryable(response: Response, policy: RetryPolicy): boolean {
  if (!RETRYABLE_STATUSES.has(response.status)) return false;
  return (retryAfterMs(response.headers.get('retry-after')) ?? 0) <= policy.maxRetryAfterMs;
}

/** What Retry-After says, else exponential backoff with full jitter (seed 004). */
function waitBefore(policy: RetryPolicy, { attempt, result }: IRetryBackoffContext<unknown>): number {
  const retryAfter = 'value' in result ? retryAfterMs((result.value as Response).headers.get('retry-after')) : undefined;
  return (
    retryAfter ??
    fullJitterGenerator(attempt - 1, { initialDelay: policy.baseDelayMs, maxDelay: policy.maxDelayMs, exponent: 2, generator: fullJitterGenerator })[0]
  );
}

function withHeader(request: Request, name: string, value: string): Request {
  const headers = new Headers(request.headers);
  headers.set(name, value);
  return new Request(request, { headers });
}

function isAbort(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'AbortError';
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
