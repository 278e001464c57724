import { hashKey, type ApiKeyRecord, type ApiKeyRole, type ApiKeyStore } from './api-key-store';

/**
 * Remembers recently authenticated keys for a short while, so that a request does not
 * pay a database round trip just to learn its tenant. Only hashes are held, and only
 * successful lookups (unknown keys always reach the store).
 */
export class CachedApiKeyStore implements ApiKeyStore {
  private readonly cache = new Map<string, { record: ApiKeyRecord; until: number }>();

  constructor(
    private readonly inner: ApiKeyStore,
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000,
  ) {}

  async authenticate(presentedKey: string): Promise<ApiKeyRecord | null> {
    const hash = hashKey(presentedKey);
    const hit = this.cache.get(hash);
    if (hit && hit.until > Date.now()) return hit.record;
    const record = await this.inner.authenticate(presentedKey);
    if (record) {
      if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(hash, { record, until: Date.now() + this.ttlMs });
    } else {
      this.cache.delete(hash);
    }
    return record;
  }

  create(input: { tenantId: string; name: string; role: ApiKeyRole; plaintext?: string }) {
    return this.inner.create(input);
  }

  list(tenantId?: string) {
    return this.inner.list(tenantId);
  }

  count() {
    return this.inner.count();
  }

  close() {
    return this.inner.close();
  }
}
