import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed command envelopes. A producer signs the exact bytes of the Kafka message value
 * with its tenant's signing secret (HMAC-SHA256) and sends:
 *
 *   rewind-key-id:    <keyId>
 *   rewind-signature: v1=<lowercase hex HMAC-SHA256(secret, value)>
 *
 * The consumer looks the key id up, recomputes the HMAC over the value it received and
 * compares in constant time. The key belongs to one tenant: an envelope naming another
 * tenant is refused. Replaying a captured message is harmless: commandId dedupes it.
 */
export const KEY_ID_HEADER = 'rewind-key-id';
export const SIGNATURE_HEADER = 'rewind-signature';

export interface SigningKey {
  keyId: string;
  secret: string;
}

/** `v1=<hex>` for a message value (UTF-8). */
export function signValue(value: string, secret: string): string {
  return `v1=${createHmac('sha256', secret).update(value, 'utf8').digest('hex')}`;
}

/** True when `header` is a valid v1 signature of `value` under `secret` (constant-time compare). */
export function verifySignature(value: string, header: string | undefined, secret: string): boolean {
  if (header === undefined) return false;
  const match = /^v1=([0-9a-f]{64})$/.exec(header.trim());
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(value, 'utf8').digest();
  return timingSafeEqual(Buffer.from(match[1]!, 'hex'), expected);
}

/** The two headers a producer adds to a command message. */
export function signatureHeaders(value: string, key: SigningKey): Record<string, string> {
  return { [KEY_ID_HEADER]: key.keyId, [SIGNATURE_HEADER]: signValue(value, key.secret) };
}
