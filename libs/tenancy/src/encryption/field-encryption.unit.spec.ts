import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DataKeyStore, StoredDataKey } from './data-key-store';
import { ENCRYPTED_PREFIX, FieldEncryption, SHREDDED_VALUE } from './field-encryption';
import { MasterKeyProvider } from './key-provider';

/** The port's behaviour, in memory (the SQLite and PostgreSQL adapters are exercised end to end). */
class MemoryDataKeys implements DataKeyStore {
  readonly keys: StoredDataKey[] = [];
  async byId(keyId: string) {
    return this.keys.find((k) => k.keyId === keyId) ?? null;
  }
  async forSession(tenantId: string, sessionId: string) {
    return this.keys.find((k) => k.tenantId === tenantId && k.sessionId === sessionId) ?? null;
  }
  async create(key: Omit<StoredDataKey, 'shreddedAt' | 'shreddedBy' | 'createdAt'>) {
    const existing = await this.forSession(key.tenantId, key.sessionId);
    if (existing) return existing;
    const stored = { ...key, createdAt: new Date().toISOString(), shreddedAt: null, shreddedBy: null };
    this.keys.push(stored);
    return stored;
  }
  async shred(tenantId: string, sessionId: string | null, actor: string) {
    const hit = this.keys.filter((k) => k.tenantId === tenantId && (sessionId === null || k.sessionId === sessionId) && k.wrapped !== null);
    for (const k of hit) Object.assign(k, { wrapped: null, shreddedAt: new Date().toISOString(), shreddedBy: actor });
    return hit.map((k) => ({ keyId: k.keyId, sessionId: k.sessionId }));
  }
  async close() {}
}

describe('FieldEncryption', () => {
  it('round-trips any JSON value, leaves nothing of it in the ciphertext, and reads it as shredded once the key is gone (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const encryption = new FieldEncryption(new MemoryDataKeys(), new MasterKeyProvider(randomBytes(32)), 0);
        const body = await encryption.encryptPaths('t', 's', { secret: value, plain: 1 }, ['secret']);
        const stored = (body as { secret: string }).secret;
        expect(stored.startsWith(ENCRYPTED_PREFIX)).toBe(true);
        expect(await encryption.decryptDeep('t', body)).toEqual({ secret: JSON.parse(JSON.stringify(value)), plain: 1 });
        expect(await encryption.decryptDeep('another-tenant', body)).toEqual({ secret: SHREDDED_VALUE, plain: 1 });
        await encryption.shred('t', 's', 'test');
        expect(await encryption.decryptDeep('t', body)).toEqual({ secret: SHREDDED_VALUE, plain: 1 });
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a path the body does not have, a shredded session, and a master key that did not wrap the data key', async () => {
    const keys = new MemoryDataKeys();
    const encryption = new FieldEncryption(keys, new MasterKeyProvider(randomBytes(32)), 0);
    await expect(encryption.encryptPaths('t', 's', { a: { b: 1 } }, ['a.c'])).rejects.toThrow(/"a.c", which the request body does not have/);
    const body = await encryption.encryptPaths('t', 's', { a: { b: 1 } }, ['a.b']);
    await encryption.shred('t', null, 'test');
    await expect(encryption.encryptPaths('t', 's', { a: 1 }, ['a'])).rejects.toThrow(/was shredded/);
    expect(await encryption.decryptDeep('t', body)).toEqual({ a: { b: SHREDDED_VALUE } });
    const other = new MasterKeyProvider(randomBytes(32));
    const wrapped = await new MasterKeyProvider(randomBytes(32)).wrap(randomBytes(32), 'dk_1');
    await expect(other.unwrap(wrapped, 'dk_1')).rejects.toThrow(/not the one the data was written with/);
  });
});
