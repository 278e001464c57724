/** A canonical lower-case UUID: what `randomUUID()` and PostgreSQL's `uuid::text` write. */
export const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * An event id as SQLite stores it: a canonical UUID as its 16 bytes (a BLOB), any other id as
 * TEXT. A BLOB never equals a TEXT, so the UNIQUE constraint still holds over the ids as strings.
 */
export function encodeEventId(id: string): string | Buffer {
  return id.length === 36 && CANONICAL_UUID.test(id) ? Buffer.from(id.replace(/-/g, ''), 'hex') : id;
}

export function decodeEventId(stored: string | Buffer): string {
  if (typeof stored === 'string') return stored;
  const hex = stored.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
