/** A canonical lower-case UUID: what `randomUUID()` and PostgreSQL's `uuid::text` write. */
export const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * An event id as SQLite stores it: a canonical UUID as its 16 bytes (a BLOB), any other id as
 * TEXT. A BLOB never equals a TEXT, so the UNIQUE constraint still holds over the ids as strings.
 * The reader has SQLite format a BLOB back into the UUID's text (see the SQLite store).
 */
export function encodeEventId(id: string): string | Buffer {
  return id.length === 36 && CANONICAL_UUID.test(id) ? Buffer.from(id.replace(/-/g, ''), 'hex') : id;
}
