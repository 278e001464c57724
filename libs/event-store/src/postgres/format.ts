/**
 * The storage format shared by the migrations, the statements and the adapter.
 *
 * Global positions encode the appending transaction: `(xid8 - origin) * 2^16 + ordinal`, where
 * `origin` is the xid of the transaction that created the schema and `ordinal` (1..65535) is
 * the event's place in its batch. See PostgresEventStore's comment for why this gives holes-free reads.
 */
export const POSITION_SHIFT = 65_536;
/** Events per append: the ordinal must fit below POSITION_SHIFT. */
export const MAX_EVENTS_PER_APPEND = POSITION_SHIFT - 1;

/** Event ids stored as uuid (migration 2): exactly what `uuid::text` gives back. */
export const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
