import { LRUCache } from 'lru-cache';

/** A request refused by the rate limit, and when the next one would be accepted. */
export interface RateLimitVerdict {
  allowed: boolean;
  /** Seconds until one token is available again (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimitOptions {
  /** Tokens added per second; 0 disables the limit. */
  perSecond: number;
  /** The bucket's size: how many requests may come at once after a quiet spell. */
  burst: number;
  /** Buckets kept at most (the least recently used are forgotten: they were full anyway, or soon will be). */
  maxBuckets?: number;
}

/**
 * One token bucket per key, in this process. A bucket starts full with `burst` tokens, refills
 * at `perSecond`, and each request takes one. (Behind N API processes a key gets up to N times
 * the rate: the limit protects each process from one runaway key, it is not a billing meter.)
 */
export class TokenBuckets {
  private readonly buckets: LRUCache<string, { tokens: number; at: number }>;

  constructor(
    private readonly options: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {
    if (!(options.perSecond >= 0) || !(options.burst >= 1))
      throw new Error(`Rate limit needs perSecond >= 0 and burst >= 1 (got ${options.perSecond}, ${options.burst}).`);
    this.buckets = new LRUCache({ max: options.maxBuckets ?? 100_000 });
  }

  get enabled(): boolean {
    return this.options.perSecond > 0;
  }

  take(key: string): RateLimitVerdict {
    if (!this.enabled) return { allowed: true, retryAfterSeconds: 0 };
    const now = this.now();
    const { perSecond, burst } = this.options;
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    return { allowed, retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)) };
  }
}
