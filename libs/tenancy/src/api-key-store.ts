import { createHash, randomBytes } from 'node:crypto';

/**
 * What a key may do. `operator` (the deployment's) may do everything for every tenant:
 * manage any tenant's keys and see figures across tenants; `admin` (a tenant's) may do
 * everything within its own tenant — its keys, encryption, shredding, retention; `write`
 * records steps and moves heads; `read` reads sessions, tools and read models; `audit` reads
 * everything `read` does plus the audit log.
 */
export const API_KEY_SCOPES = ['operator', 'admin', 'write', 'read', 'audit'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** The scopes of a key created without any: an agent's key. */
export const AGENT_SCOPES: readonly ApiKeyScope[] = ['write', 'read'];

/** Before scopes, keys had a role; `admin` and `agent` still name the two common sets. */
export type ApiKeyRole = 'admin' | 'agent';
export const scopesOfRole = (role: ApiKeyRole): ApiKeyScope[] => (role === 'admin' ? ['admin'] : [...AGENT_SCOPES]);

/** How long the old secret of a rotated key keeps working unless told otherwise: long enough to redeploy agents. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 60 * 60;

export interface ApiKeyRecord {
  keyId: string;
  tenantId: string;
  name: string;
  scopes: ApiKeyScope[];
  createdAt: string;
  /** After this instant the key is refused; null: it never expires. */
  expiresAt: string | null;
  revokedAt: string | null;
  /** When the secret was last replaced; replaced secrets work until their own grace ends, the last of them until `previousSecretValidUntil`. */
  rotatedAt: string | null;
  previousSecretValidUntil: string | null;
}

/** A key that authenticated, and until when the presented secret stays valid (epoch ms; null: no end). */
export interface AuthenticatedKey extends ApiKeyRecord {
  validUntil: number | null;
}

export interface CreateApiKeyInput {
  tenantId: string;
  name: string;
  scopes?: readonly ApiKeyScope[];
  /** @deprecated use scopes; kept for callers written before scopes. */
  role?: ApiKeyRole;
  expiresAt?: string | null;
  /** The secret itself, when it is chosen by configuration (REWIND_ADMIN_KEY). */
  plaintext?: string;
}

/** A lifecycle request that cannot be carried out (unknown key, revoked key, bad expiry). */
export class ApiKeyLifecycleError extends Error {
  constructor(
    readonly reason: 'not_found' | 'revoked' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = 'ApiKeyLifecycleError';
  }
}

/**
 * Where API keys live. Only a SHA-256 of each secret is stored; the secret is shown once.
 * Every change to a key (revocation, rotation, expiry, even a row edited by hand) bumps
 * `changeVersion()`, through the database itself, so that caches in every process can
 * notice it within a fraction of a second.
 */
export interface ApiKeyStore {
  /** The key for a presented secret when it is valid now (not revoked, not expired), or null. */
  authenticate(presentedKey: string): Promise<AuthenticatedKey | null>;
  /**
   * The key a secret belongs to, live or not: by its current hash, or (`replaced`) by the hash of
   * a secret a rotation replaced, whether or not that secret's grace still runs. Null: never known.
   */
  lookup(presentedKey: string): Promise<{ record: ApiKeyRecord; replaced: boolean } | null>;
  /** Stores a key's hash. A configured `plaintext` already known (even revoked) is left as it is. */
  create(input: CreateApiKeyInput): Promise<{ key: string; record: ApiKeyRecord }>;
  get(keyId: string): Promise<ApiKeyRecord | null>;
  /** Refuses the key from now on (idempotent: revoking twice keeps the first instant). */
  revoke(keyId: string): Promise<ApiKeyRecord>;
  /** A new secret for the same key id; the old one works for `graceSeconds` more (0: refused at once). */
  rotate(keyId: string, graceSeconds: number): Promise<{ key: string; record: ApiKeyRecord }>;
  /** Sets or clears the expiry. */
  setExpiry(keyId: string, expiresAt: string | null): Promise<ApiKeyRecord>;
  list(tenantId?: string): Promise<ApiKeyRecord[]>;
  count(): Promise<number>;
  /** A number that changes whenever any key changes; cheap to read. */
  changeVersion(): Promise<number>;
  close(): Promise<void>;
}

export const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

export const newKeyId = () => randomBytes(6).toString('hex');

export function generateKey(keyId = newKeyId()): { keyId: string; key: string } {
  return { keyId, key: `rwd_${keyId}_${randomBytes(24).toString('base64url')}` };
}

/**
 * The key id embedded in a generated key; a fresh random id for a key chosen by
 * configuration — never anything derived from the secret, since the id is the actor
 * every event records and anyone reading the audit log sees it.
 */
export function keyIdOf(key: string): string {
  const match = /^rwd_([0-9a-f]{12})_/.exec(key);
  return match ? match[1]! : newKeyId();
}

export function scopesOf(input: Pick<CreateApiKeyInput, 'scopes' | 'role'>): ApiKeyScope[] {
  const scopes = input.scopes ?? (input.role ? scopesOfRole(input.role) : AGENT_SCOPES);
  const unknown = scopes.filter((s) => !(API_KEY_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new ApiKeyLifecycleError('invalid', `Unknown scope(s) ${unknown.join(', ')}: use ${API_KEY_SCOPES.join(', ')}.`);
  if (scopes.length === 0) throw new ApiKeyLifecycleError('invalid', `A key needs at least one scope: ${API_KEY_SCOPES.join(', ')}.`);
  return API_KEY_SCOPES.filter((s) => scopes.includes(s));
}

/** The record of a key just created: active, never rotated. */
export function newKeyRecord(
  input: Pick<CreateApiKeyInput, 'tenantId' | 'name'>,
  keyId: string,
  scopes: ApiKeyScope[],
  expiresAt: string | null,
): ApiKeyRecord {
  return {
    keyId,
    tenantId: input.tenantId,
    name: input.name,
    scopes,
    createdAt: new Date().toISOString(),
    expiresAt,
    revokedAt: null,
    rotatedAt: null,
    previousSecretValidUntil: null,
  };
}

export function checkExpiry(expiresAt: string | null | undefined): string | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) throw new ApiKeyLifecycleError('invalid', `Expiry "${expiresAt}" is not a date: use ISO 8601, e.g. 2027-01-31T00:00:00Z.`);
  return new Date(at).toISOString();
}

export function checkGrace(graceSeconds: number): number {
  if (!Number.isSafeInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > 30 * 24 * 3600) {
    throw new ApiKeyLifecycleError('invalid', `Grace period ${graceSeconds} s is not valid: use whole seconds from 0 to 2592000 (30 days).`);
  }
  return graceSeconds;
}

export const notFound = (keyId: string) => new ApiKeyLifecycleError('not_found', `No API key "${keyId}": list them with \`rewind keys list\` or GET /v1/keys.`);
export const alreadyRevoked = (keyId: string) =>
  new ApiKeyLifecycleError('revoked', `API key "${keyId}" is revoked: a revoked key cannot be rotated or changed; create a new one.`);

/**
 * Whether a stored key accepts a secret now: `viaPrevious` tells that the secret matched
 * the one replaced by the last rotation. Shared by every adapter so they decide alike.
 */
export function acceptance(record: ApiKeyRecord, viaPrevious: boolean, now = Date.now()): AuthenticatedKey | null {
  if (record.revokedAt !== null) return null;
  const ends = [record.expiresAt, viaPrevious ? record.previousSecretValidUntil : null].filter((t): t is string => t !== null).map(Date.parse);
  if (viaPrevious && record.previousSecretValidUntil === null) return null;
  const validUntil = ends.length > 0 ? Math.min(...ends) : null;
  if (validUntil !== null && validUntil <= now) return null;
  return { ...record, validUntil };
}

/** Whether a key's scopes grant what a route needs (`operator` grants all, `admin` all but `operator`; `audit` includes `read`). */
export function grants(scopes: readonly ApiKeyScope[], needed: ApiKeyScope): boolean {
  if (scopes.includes('operator')) return true;
  if (needed === 'operator') return false;
  return scopes.includes('admin') || scopes.includes(needed) || (needed === 'read' && scopes.includes('audit'));
}
