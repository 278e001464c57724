import { LRUCache } from 'lru-cache';
import { hashKey, type ApiKeyRecord, type ApiKeyStore, type AuthenticatedKey, type CreateApiKeyInput } from './api-key-store';

/** How often, at most, a cache asks the store whether any key changed: well inside the promised second. */
export const KEY_CHANGE_RECHECK_MS = 250;

/**
 * Remembers recently authenticated keys, so that a request does not pay a database round
 * trip just to learn its tenant. Only hashes are held, and only successful lookups.
 *
 * Revocation reaches every process within a second without a cache window: before
 * answering from memory, the cache reads the store's change counter (bumped by a trigger
 * on every change to a key, even a hand edit) if it has not done so for
 * KEY_CHANGE_RECHECK_MS, and forgets everything when it moved. Expiry and the end of a
 * rotation's grace period are checked on every hit.
 */
export class CachedApiKeyStore implements ApiKeyStore {
  private readonly cache: LRUCache<string, AuthenticatedKey>;
  private knownVersion: number | null = null;
  private checkedAt = -Infinity;
  private checking: Promise<void> | null = null;
  /** Bumped whenever the cache is emptied, so a lookup that raced a change is not cached. */
  private generation = 0;

  constructor(
    private readonly inner: ApiKeyStore,
    private readonly recheckMs = KEY_CHANGE_RECHECK_MS,
    maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = new LRUCache({ max: maxEntries });
  }

  /** Not cached: read at startup only. */
  lookup(presentedKey: string): Promise<{ record: ApiKeyRecord; replaced: boolean } | null> {
    return this.inner.lookup(presentedKey);
  }

  async authenticate(presentedKey: string): Promise<AuthenticatedKey | null> {
    await this.freshen();
    const hash = hashKey(presentedKey);
    const hit = this.cache.get(hash);
    if (hit && (hit.validUntil === null || hit.validUntil > this.now())) return hit;
    const generation = this.generation;
    const record = await this.inner.authenticate(presentedKey);
    if (record && generation === this.generation) {
      this.cache.set(hash, record);
    } else {
      this.cache.delete(hash);
    }
    return record;
  }

  private freshen(): Promise<void> {
    if (this.now() - this.checkedAt < this.recheckMs) return Promise.resolve();
    this.checking ??= this.inner
      .changeVersion()
      .then((version) => {
        if (version !== this.knownVersion) this.forget();
        this.knownVersion = version;
        this.checkedAt = this.now();
      })
      .finally(() => (this.checking = null));
    return this.checking;
  }

  private forget(): void {
    this.cache.clear();
    this.generation++;
  }

  /** Changes made through this process are seen at once, without waiting for the next check. */
  private async changed<T>(result: Promise<T>): Promise<T> {
    try {
      return await result;
    } finally {
      this.forget();
    }
  }

  create(input: CreateApiKeyInput) {
    return this.inner.create(input);
  }

  get(keyId: string) {
    return this.inner.get(keyId);
  }

  revoke(keyId: string) {
    return this.changed(this.inner.revoke(keyId));
  }

  rotate(keyId: string, graceSeconds: number) {
    return this.changed(this.inner.rotate(keyId, graceSeconds));
  }

  setExpiry(keyId: string, expiresAt: string | null) {
    return this.changed(this.inner.setExpiry(keyId, expiresAt));
  }

  list(tenantId?: string) {
    return this.inner.list(tenantId);
  }

  count() {
    return this.inner.count();
  }

  changeVersion() {
    return this.inner.changeVersion();
  }

  close() {
    return this.inner.close();
  }
}
