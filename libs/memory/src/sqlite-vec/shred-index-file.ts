import type Database from 'better-sqlite3';
import type { MemoryScope } from '../vector-index';

/**
 * Crypto-shredding's part in an index file: removes every item of the scope from every model's
 * tables (those of models not opened by this process too), with their words, codes and, for items
 * still awaiting their vectors, the backlog's rows (a trigger on the items table removes those,
 * with the previous turn they kept). Freed pages are zeroed (secure_delete), and the WAL is folded
 * into the file and emptied. Tells how many items were removed.
 */
export function shredIndexFile(db: Database.Database, scope: MemoryScope): number {
  const tableExists = (name: string) => db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(name) !== undefined;
  const prefixes = db
    .prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'memory_*_items'`)
    .all()
    .map((t) => t.name.slice(0, -'_items'.length));
  let removed = 0;
  db.transaction(() => {
    for (const p of prefixes) {
      db.prepare(`INSERT INTO ${p}_fts (${p}_fts, rank) VALUES ('secure-delete', 1)`).run();
      const rowids = db
        .prepare<
          [string, string | null, string | null],
          { rowid: number }
        >(`SELECT rowid FROM ${p}_items WHERE tenant_id = ? AND (? IS NULL OR session_id = ?)`)
        .all(scope.tenantId, scope.sessionId ?? null, scope.sessionId ?? null);
      // A model's tables not opened since format 2 still hold their codes in vec0.
      const tables = [...(tableExists(`${p}_vec`) ? [`${p}_vec`] : []), `${p}_fts`, `${p}_items`];
      const deletes = tables.map((table) => db.prepare(`DELETE FROM ${table} WHERE rowid = ?`));
      for (const { rowid } of rowids) for (const statement of deletes) statement.run(BigInt(rowid));
      // Format 1 kept the vectors again per session; format 2 keeps codes.
      for (const table of [`${p}_session_vectors`, `${p}_codes`].filter((t) => tableExists(t))) {
        db.prepare(`DELETE FROM ${table} WHERE tenant_id = ? AND (? IS NULL OR session_id = ?)`).run(
          scope.tenantId,
          scope.sessionId ?? null,
          scope.sessionId ?? null,
        );
      }
      removed += rowids.length;
    }
  })();
  // The WAL still holds the pages as they were written: fold it into the file and empty it.
  if (removed > 0) db.pragma('wal_checkpoint(TRUNCATE)');
  return removed;
}
