import {
  acceptance,
  alreadyRevoked,
  checkExpiry,
  checkGrace,
  generateKey,
  hashKey,
  keyIdOf,
  newKeyRecord,
  notFound,
  scopesOf,
  type ApiKeyRecord,
  type ApiKeyStore,
  type AuthenticatedKey,
  type CreateApiKeyInput,
} from './api-key-store';

interface Entry {
  record: ApiKeyRecord;
  hash: string;
  /** Every replaced secret's hash with the end of its own grace (ISO). */
  previous: Map<string, string>;
}

/** API keys in memory, for library mode and unit tests; decides exactly as the stored adapters do. */
export class InMemoryApiKeyStore implements ApiKeyStore {
  private readonly byId = new Map<string, Entry>();
  private version = 0;

  private find(hash: string): Entry | undefined {
    return [...this.byId.values()].find((e) => e.hash === hash || e.previous.has(hash));
  }

  async lookup(presentedKey: string): Promise<{ record: ApiKeyRecord; replaced: boolean } | null> {
    const hash = hashKey(presentedKey);
    const entry = this.find(hash);
    return entry ? { record: { ...entry.record }, replaced: entry.hash !== hash } : null;
  }

  async authenticate(presentedKey: string): Promise<AuthenticatedKey | null> {
    const hash = hashKey(presentedKey);
    const entry = this.find(hash);
    if (!entry) return null;
    if (entry.hash === hash) return acceptance({ ...entry.record }, false);
    return acceptance({ ...entry.record, previousSecretValidUntil: entry.previous.get(hash)! }, true);
  }

  async create(input: CreateApiKeyInput) {
    const scopes = scopesOf(input);
    const expiresAt = checkExpiry(input.expiresAt);
    const { key, keyId } = input.plaintext !== undefined ? { key: input.plaintext, keyId: keyIdOf(input.plaintext) } : generateKey();
    const existing = this.find(hashKey(key));
    if (existing) return { key, record: { ...existing.record } };
    const record = newKeyRecord(input, keyId, scopes, expiresAt);
    this.byId.set(keyId, { record, hash: hashKey(key), previous: new Map() });
    this.version++;
    return { key, record: { ...record } };
  }

  async get(keyId: string) {
    const entry = this.byId.get(keyId);
    return entry ? { ...entry.record } : null;
  }

  private require(keyId: string, live: boolean): Entry {
    const entry = this.byId.get(keyId);
    if (!entry) throw notFound(keyId);
    if (live && entry.record.revokedAt !== null) throw alreadyRevoked(keyId);
    return entry;
  }

  async revoke(keyId: string) {
    const entry = this.require(keyId, false);
    entry.record.revokedAt ??= new Date().toISOString();
    this.version++;
    return { ...entry.record };
  }

  async rotate(keyId: string, graceSeconds: number) {
    checkGrace(graceSeconds);
    const entry = this.require(keyId, true);
    const { key } = generateKey(keyId);
    const now = Date.now();
    // The replaced secret keeps its own grace, beside those of earlier rotations. Ended ones stay (they
    // authenticate no more): a replaced secret configured again (REWIND_ADMIN_KEY) is then still known as replaced.
    entry.previous.set(entry.hash, new Date(now + graceSeconds * 1000).toISOString());
    entry.hash = hashKey(key);
    entry.record.rotatedAt = new Date(now).toISOString();
    entry.record.previousSecretValidUntil = [...entry.previous.values()].sort().at(-1)!;
    this.version++;
    return { key, record: { ...entry.record } };
  }

  async setExpiry(keyId: string, expiresAt: string | null) {
    const at = checkExpiry(expiresAt);
    const entry = this.require(keyId, true);
    entry.record.expiresAt = at;
    this.version++;
    return { ...entry.record };
  }

  async list(tenantId?: string) {
    return [...this.byId.values()].map((e) => ({ ...e.record })).filter((r) => tenantId === undefined || r.tenantId === tenantId);
  }

  async count() {
    return this.byId.size;
  }

  async changeVersion() {
    return this.version;
  }

  async close() {}
}
