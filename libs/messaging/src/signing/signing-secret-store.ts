import { randomBytes } from 'node:crypto';
import { ID_PATTERN } from '@rewind/engine';

export interface SigningSecretRecord {
  keyId: string;
  /** The one tenant this key may send commands for. */
  tenantId: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface SigningSecret extends SigningSecretRecord {
  secret: string;
}

/**
 * Per-tenant secrets for signed Kafka command envelopes. Unlike API keys (stored as a
 * hash), an HMAC secret must be readable to verify a signature, so the store holds it as
 * given: protect the data file like the keys themselves.
 */
export interface KafkaSigningSecretStore {
  /** The secret for a key id; null when unknown or revoked. */
  find(keyId: string): Promise<SigningSecret | null>;
  /** Creates a key for a tenant; `secret` is generated unless given (at least 32 characters). */
  create(input: { tenantId: string; name?: string; secret?: string }): Promise<SigningSecret>;
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
export function newSigningSecret(input: { tenantId: string; name?: string; secret?: string }): SigningSecret {
  if (!ID_PATTERN.test(input.tenantId))
    throw new SigningKeyInputError(`"${input.tenantId}" is not a valid tenant id: use 1-128 letters, digits, "_", "-" or ".".`);
  if (input.secret !== undefined && input.secret.length < 32) {
    throw new SigningKeyInputError('A signing secret must have at least 32 characters (e.g. `openssl rand -hex 32`); leave it out to have one generated.');
  }
  return {
    keyId: `sk_${randomBytes(6).toString('hex')}`,
    tenantId: input.tenantId,
    name: input.name ?? 'kafka producer',
    secret: input.secret ?? `rss_${randomBytes(32).toString('base64url')}`,
    createdAt: new Date().toISOString(),
    revokedAt: null,
  };
}

export const withoutSecret = ({ secret: _secret, ...record }: SigningSecret): SigningSecretRecord => record;
