import { generateKey, hashKey, keyIdOf, type ApiKeyRecord, type ApiKeyRole, type ApiKeyStore } from './api-key-store';

export class InMemoryApiKeyStore implements ApiKeyStore {
  private readonly byHash = new Map<string, ApiKeyRecord>();

  async authenticate(presentedKey: string) {
    return this.byHash.get(hashKey(presentedKey)) ?? null;
  }

  async create(input: { tenantId: string; name: string; role: ApiKeyRole; plaintext?: string }) {
    const key = input.plaintext ?? generateKey().key;
    const record: ApiKeyRecord = { keyId: keyIdOf(key), tenantId: input.tenantId, name: input.name, role: input.role, createdAt: new Date().toISOString() };
    if (!this.byHash.has(hashKey(key))) this.byHash.set(hashKey(key), record);
    return { key, record };
  }

  async list(tenantId?: string) {
    return [...this.byHash.values()].filter((r) => tenantId === undefined || r.tenantId === tenantId);
  }

  async count() {
    return this.byHash.size;
  }

  async close() {}
}
