import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { DataKeyStore, ShreddedKey } from './data-key-store';
import type { KeyProvider } from './key-provider';

/** An encrypted value, wherever it sits in a payload: a string, so any field can hold it. */
export const ENCRYPTED_PREFIX = 'rwd:enc:v1:';
/** What a read returns for a value whose data key was shredded. */
export const SHREDDED_VALUE = '[shredded]';

/** A request for encryption that cannot be honoured. */
export class FieldEncryptionError extends Error {
  constructor(
    readonly reason: 'invalid' | 'shredded',
    message: string,
  ) {
    super(message);
    this.name = 'FieldEncryptionError';
  }
}

const MARKER = /^rwd:enc:v1:(dk_[0-9a-f]{24}):([A-Za-z0-9_-]+)$/;

/**
 * Field-level encryption with per-session data keys (AES-256-GCM), wrapped by a KeyProvider.
 * Values are encrypted before they reach the command pipeline, so events, snapshots, read
 * models and everything derived from them hold only ciphertext; reads decrypt on the way out.
 * Unwrapped keys are kept at most `cacheMs`: a shred reaches every process within that time.
 */
export class FieldEncryption {
  private readonly cache = new Map<string, { key: Buffer | null; tenantId: string; until: number }>();

  constructor(
    private readonly store: DataKeyStore,
    private readonly provider: KeyProvider,
    private readonly cacheMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Replaces the values at `paths` (dotted, e.g. `input.ssn`) of `body` by ciphertext under the
   * session's key. A path in `paths` that the body lacks is an error (the caller named it); one in
   * `ifPresent` (declared by a policy, e.g. an optional tool input) is skipped.
   */
  async encryptPaths(tenantId: string, sessionId: string, body: unknown, paths: readonly string[], ifPresent: readonly string[] = []): Promise<unknown> {
    const copy = structuredClone(body) as Record<string, unknown>;
    const targets: { parent: Record<string, unknown>; last: string }[] = [];
    for (const [path, required] of [...paths.map((p) => [p, true] as const), ...ifPresent.map((p) => [p, false] as const)]) {
      const parts = path.split('.');
      let parent: unknown = copy;
      for (const part of parts.slice(0, -1)) parent = parent && typeof parent === 'object' ? (parent as Record<string, unknown>)[part] : undefined;
      const last = parts[parts.length - 1]!;
      if (!parent || typeof parent !== 'object' || !Object.hasOwn(parent, last) || parts.some((p) => p === '' || p === '__proto__')) {
        if (!required) continue;
        throw new FieldEncryptionError(
          'invalid',
          `Rewind-Encrypt names "${path}", which the request body does not have: name fields as dotted paths, e.g. input.ssn.`,
        );
      }
      targets.push({ parent: parent as Record<string, unknown>, last });
    }
    if (targets.length === 0) return body;
    const { keyId, key } = await this.sessionKey(tenantId, sessionId);
    for (const { parent, last } of targets) {
      const value = parent[last];
      if (typeof value === 'string' && value.startsWith(ENCRYPTED_PREFIX)) continue;
      parent[last] = encrypt(keyId, key, value);
    }
    return copy;
  }

  /** Decrypts every encrypted value in `value` that belongs to `tenantId`; shredded ones read as SHREDDED_VALUE. */
  async decryptDeep<T>(tenantId: string, value: T): Promise<T> {
    const keyIds = new Set<string>();
    collect(value, keyIds);
    if (keyIds.size === 0) return value;
    const keys = new Map<string, Buffer | null>();
    for (const keyId of keyIds) keys.set(keyId, await this.keyById(tenantId, keyId));
    return replace(value, (text) => {
      const match = MARKER.exec(text)!;
      const key = keys.get(match[1]!);
      if (!key) return SHREDDED_VALUE;
      try {
        return decrypt(match[1]!, key, match[2]!);
      } catch {
        return SHREDDED_VALUE;
      }
    }) as T;
  }

  /** Destroys the data keys of a session, or of every session of a tenant. */
  async shred(tenantId: string, sessionId: string | null, actor: string): Promise<ShreddedKey[]> {
    const shredded = await this.store.shred(tenantId, sessionId, actor);
    for (const [keyId, entry] of this.cache) if (entry.tenantId === tenantId) this.cache.delete(keyId);
    return shredded;
  }

  /** Shreds a session whether or not it ever had a key (a destroyed key then marks it retired); [] when it already was. */
  async retire(tenantId: string, sessionId: string, actor: string): Promise<ShreddedKey[]> {
    const existing = await this.store.forSession(tenantId, sessionId);
    if (existing?.wrapped === null) return [];
    if (!existing) await this.sessionKey(tenantId, sessionId);
    return this.shred(tenantId, sessionId, actor);
  }

  private async sessionKey(tenantId: string, sessionId: string): Promise<{ keyId: string; key: Buffer }> {
    let stored = await this.store.forSession(tenantId, sessionId);
    if (!stored) {
      const keyId = `dk_${randomBytes(12).toString('hex')}`;
      const key = randomBytes(32);
      stored = await this.store.create({ keyId, tenantId, sessionId, wrapped: await this.provider.wrap(key, keyId) });
    }
    if (stored.wrapped === null) {
      throw new FieldEncryptionError(
        'shredded',
        `Session "${sessionId}" was shredded at ${stored.shreddedAt}: its data key is destroyed, so nothing more can be encrypted for it. Start a new session.`,
      );
    }
    return { keyId: stored.keyId, key: await this.unwrapCached(stored.keyId, tenantId, stored.wrapped) };
  }

  private async keyById(tenantId: string, keyId: string): Promise<Buffer | null> {
    const hit = this.cache.get(keyId);
    if (hit && hit.until > this.now()) return hit.tenantId === tenantId ? hit.key : null;
    const stored = await this.store.byId(keyId);
    if (!stored || stored.tenantId !== tenantId) return null;
    if (stored.wrapped === null) {
      this.cache.set(keyId, { key: null, tenantId, until: this.now() + this.cacheMs });
      return null;
    }
    return this.unwrapCached(keyId, tenantId, stored.wrapped);
  }

  private async unwrapCached(keyId: string, tenantId: string, wrapped: string): Promise<Buffer> {
    const hit = this.cache.get(keyId);
    if (hit?.key && hit.until > this.now()) return hit.key;
    const key = await this.provider.unwrap(wrapped, keyId);
    this.cache.set(keyId, { key, tenantId, until: this.now() + this.cacheMs });
    return key;
  }
}

function encrypt(keyId: string, key: Buffer, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(keyId, 'utf8'));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(value ?? null), 'utf8'), cipher.final()]);
  return `${ENCRYPTED_PREFIX}${keyId}:${Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url')}`;
}

function decrypt(keyId: string, key: Buffer, payload: string): unknown {
  const bytes = Buffer.from(payload, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12)).setAAD(Buffer.from(keyId, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8'));
}

function collect(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    if (value.startsWith(ENCRYPTED_PREFIX)) {
      const match = MARKER.exec(value);
      if (match) into.add(match[1]!);
    }
  } else if (Array.isArray(value)) for (const item of value) collect(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) collect(item, into);
}

function replace(value: unknown, decryptText: (text: string) => unknown): unknown {
  if (typeof value === 'string') return value.startsWith(ENCRYPTED_PREFIX) && MARKER.test(value) ? decryptText(value) : value;
  if (Array.isArray(value)) return value.map((item) => replace(item, decryptText));
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v, decryptText)]));
  }
  return value;
}
