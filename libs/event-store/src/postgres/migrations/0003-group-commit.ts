import { appendBatch, compactAppendEvents } from './compact-append-events';
import type { Migration } from './migration';

/** Migration 3 (frozen): group commit. */
export const migration3 = (s: string): Migration => ({
  version: 3,
  name: 'group commit: several appends in one transaction',
  sql: `
DROP FUNCTION ${s}.append_events(text, bigint, uuid[], text[], text[], bigint[], json[], json[], bigint, text, text, text);

-- As in migration 2, with the positions of an append placed after those other appends of the
-- same transaction used (they share its id, and so the high part of their positions).
${compactAppendEvents(s, true)}
-- Group commit: appends to several streams in one call and one transaction, in order. Each
-- answers as append_events does; an append that is not appended (conflict, duplicate, reused
-- key) writes nothing and does not stop the others. Events come flattened, p_counts[i] each.
${appendBatch(s)}`,
});
