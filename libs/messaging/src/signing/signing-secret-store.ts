import { randomBytes } from 'node:crypto';
import { ID_PATTERN } from '@rewind/engine';

export interface SigningSecretRecord {
  keyId: string;
  /** The one tenant this key may send commands for. */
  tenantId: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
  /** After this instant messages signed with the key are refused; null: never. */
  expiresAt: string | null;
  /** Set by a rotation: until then the last replaced secret still verifies (each replaced secret keeps its own grace). */
  previousSecretValidUntil: string | null;
}

export interface SigningSecret extends SigningSecretRecord {
  secret: string;
  /**
   * The secrets rotations replaced whose own grace period still runs, the longest-lasting first:
   * a second rotation does not cut the first one's grace short.
   */
  previousSecrets: string[];
}

/** A secret a rotation replaced, and when its grace period ends (ISO 8601). */
export interface ReplacedSecret {
  secret: string;
  validUntil: string;
}

/** How long a rotated signing secret keeps verifying unless told otherwise: time to redeploy producers. */
export const DEFAULT_SIGNING_ROTATION_GRACE_SECONDS = 24 * 60 * 60;

/**
 * Per-tenant secrets for signed Kafka command envelopes. Unlike API keys (stored as a
 * hash), an HMAC secret must be readable to verify a signature, so the store holds it as
 * given: protect the data file like the keys themselves.
 */
export interface KafkaSigningSecretStore {
  /** The secret for a key id; null when unknown, revoked or expired (`previousSecrets`: the replaced secrets whose own grace still runs). */
  find(keyId: string): Promise<SigningSecret | null>;
  /** Creates a key for a tenant; `secret` is generated unless given (at least 32 characters). */
  create(input: { tenantId: string; name?: string; secret?: string; expiresAt?: string | null }): Promise<SigningSecret>;
  /** A new secret for the key (same id); the old one verifies for `graceSeconds` more, earlier replaced ones for their own grace. Null when unknown or revoked. */
  rotate(keyId: string, graceSeconds: number): Promise<SigningSecret | null>;
  /** Revokes a key at once: later messages signed with it go to the DLQ. False when unknown. */
  revoke(keyId: string): Promise<boolean>;
  list(tenantId?: string): Promise<SigningSecretRecord[]>;
  close(): Promise<void>;
}

export class SigningKeyInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningKeyInputError';
  }
}

/** Checks the input and fills in a generated key id and secret. */
export function newSigningSecret(input: { tenantId: string; name?: string; secret?: string; expiresAt?: string | null }): SigningSecret {
  if (!ID_PATTERN.test(input.tenantId))
    throw new SigningKeyInputError(`"${input.tenantId}" is not a valid tenant id: use 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone).`);
  if (input.secret !== undefined && input.secret.length < 32) {
    throw new SigningKeyInputError('A signing secret must have at least 32 characters (e.g. `openssl rand -hex 32`); leave it out to have one generated.');
  }
  if (input.expiresAt && Number.isNaN(Date.parse(input.expiresAt))) {
    throw new SigningKeyInputError(`Expiry "${input.expiresAt}" is not a date: use ISO 8601, e.g. 2027-01-31T00:00:00Z.`);
  }
  return {
    keyId: `sk_${randomBytes(6).toString('hex')}`,
    tenantId: input.tenantId,
    name: input.name ?? 'kafka producer',
    secret: input.secret ?? newSecretText(),
    createdAt: new Date().toISOString(),
    revokedAt: null,
    expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
    previousSecrets: [],
    previousSecretValidUntil: null,
  };
}

export const newSecretText = () => `rss_${randomBytes(32).toString('base64url')}`;

export function checkSigningGrace(graceSeconds: number): number {
  if (!Number.isSafeInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > 30 * 24 * 3600) {
    throw new SigningKeyInputError(`Grace period ${graceSeconds} s is not valid: use whole seconds from 0 to 2592000 (30 days).`);
  }
  return graceSeconds;
}

/** A stored key with the replaced secrets whose grace still runs at `now`. */
export function withReplaced(key: Omit<SigningSecret, 'previousSecrets'>, replaced: readonly ReplacedSecret[], now = Date.now()): SigningSecret {
  const running = replaced.filter((r) => Date.parse(r.validUntil) > now).sort((a, b) => Date.parse(b.validUntil) - Date.parse(a.validUntil));
  return { ...key, previousSecrets: running.map((r) => r.secret) };
}

/** What `find` answers for a stored key now: null when revoked or expired; replaced secrets only within their own grace. */
export function usableNow(key: Omit<SigningSecret, 'previousSecrets'>, replaced: readonly ReplacedSecret[], now = Date.now()): SigningSecret | null {
  if (key.revokedAt !== null || (key.expiresAt !== null && Date.parse(key.expiresAt) <= now)) return null;
  return withReplaced(key, replaced, now);
}

export const withoutSecret = ({ secret: _secret, previousSecrets: _previous, ...record }: SigningSecret): SigningSecretRecord => record;
