import type { ReadModelDatabase } from '../read-model-database';
import { READ_MODEL_TABLES, type Row, type TableSpec } from '../schema';
import { quoteIdent, type TableVariant } from '../sql';

/** A table's rows in primary-key order, decoded (booleans, numbers), optionally filtered by column values. */
export async function tableRows(db: ReadModelDatabase, table: TableSpec, where: Record<string, unknown> = {}, variant: TableVariant = 'live'): Promise<Row[]> {
  const d = db.dialect;
  const entries = Object.entries(where);
  const filter = entries.length ? ` WHERE ${entries.map(([c], i) => `${quoteIdent(c)} = ${d.p(i + 1)}`).join(' AND ')}` : '';
  const rows: Row[] = await db.dataSource.query(
    `SELECT * FROM ${d.qualified(table.name, variant)}${filter} ORDER BY ${table.primaryKey.map(quoteIdent).join(', ')}`,
    entries.map(([, v]) => v),
  );
  return rows.map((row) => d.decodeRow(table, row));
}

/** Every read-model table, for comparing two states of the read models. */
export async function snapshotReadModels(db: ReadModelDatabase): Promise<Record<string, Row[]>> {
  const out: Record<string, Row[]> = {};
  for (const table of READ_MODEL_TABLES) out[table.name] = await tableRows(db, table);
  return out;
}
