import { createHash, randomBytes } from 'node:crypto';

export type ApiKeyRole = 'admin' | 'agent';

export interface ApiKeyRecord {
  keyId: string;
  tenantId: string;
  name: string;
  role: ApiKeyRole;
  createdAt: string;
}

/** Where API keys live. Only a SHA-256 of each key is stored; the key itself is shown once. */
export interface ApiKeyStore {
  /** The key for a presented secret, or null. */
  authenticate(presentedKey: string): Promise<ApiKeyRecord | null>;
  /** Stores a key's hash; `plaintext` is given when the key is chosen by configuration. */
  create(input: { tenantId: string; name: string; role: ApiKeyRole; plaintext?: string }): Promise<{ key: string; record: ApiKeyRecord }>;
  list(tenantId?: string): Promise<ApiKeyRecord[]>;
  count(): Promise<number>;
  close(): Promise<void>;
}

export const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

export function generateKey(): { keyId: string; key: string } {
  const keyId = randomBytes(6).toString('hex');
  return { keyId, key: `rwd_${keyId}_${randomBytes(24).toString('base64url')}` };
}

/** The key id embedded in a generated key, or a hash prefix for a key chosen by configuration. */
export function keyIdOf(key: string): string {
  const match = /^rwd_([0-9a-f]{12})_/.exec(key);
  return match ? match[1]! : hashKey(key).slice(0, 12);
}
