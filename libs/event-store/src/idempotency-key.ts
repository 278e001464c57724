import { createHash } from 'node:crypto';

/**
 * What a store keeps of an Idempotency-Key: its SHA-256, never the key itself. Clients
 * sometimes build keys from request content (an order number, an e-mail), and the table
 * outlives the requests; the hash is enough to recognise a retry.
 */
export const storedIdempotencyKey = (key: string): string => `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
