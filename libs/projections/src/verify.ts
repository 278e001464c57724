import type { Row, TableSpec } from './schema';
import { query, quoteIdent, type Dialect, type Step } from './sql';

export interface ColumnDifference {
  column: string;
  live: unknown;
  rebuilt: unknown;
}

export interface RowDifference {
  /** changed: same key, other values; only_live: the live table has a row the log does not justify; only_rebuilt: the live table lacks a row. */
  kind: 'changed' | 'only_live' | 'only_rebuilt';
  key: Record<string, unknown>;
  /** changed: the differing columns; otherwise every column of the row. */
  columns: ColumnDifference[];
}

export interface TableComparison {
  table: string;
  liveRows: number;
  rebuiltRows: number;
  changed: number;
  onlyLive: number;
  onlyRebuilt: number;
  /** The first differing rows, in key order. */
  samples: RowDifference[];
}

export interface Verification {
  /** The log position both copies were compared at. */
  position: number;
  projections: string[];
  identical: boolean;
  tables: TableComparison[];
}

export function tableIdentical(t: TableComparison): boolean {
  return t.changed === 0 && t.onlyLive === 0 && t.onlyRebuilt === 0 && t.liveRows === t.rebuiltRows;
}

/** Compares a live table with its rebuilt shadow, row by row on the primary key. */
export function* compareTable(d: Dialect, table: TableSpec, sampleLimit: number): Step<TableComparison> {
  const live = d.qualified(table.name);
  const shadow = d.qualified(table.name, 'shadow');
  const join = table.primaryKey.map((c) => `l.${quoteIdent(c)} = s.${quoteIdent(c)}`).join(' AND ');
  const distinct = d.postgres ? 'IS DISTINCT FROM' : 'IS NOT';
  const valueColumns = table.columns.filter((c) => !table.primaryKey.includes(c.name));
  const differs = valueColumns.length === 0 ? 'FALSE' : valueColumns.map((c) => `l.${quoteIdent(c.name)} ${distinct} s.${quoteIdent(c.name)}`).join(' OR ');
  const order = table.primaryKey.map((c) => `l.${quoteIdent(c)}`).join(', ');

  const [counts] = yield* query<{ live: unknown; rebuilt: unknown }>(
    `SELECT (SELECT COUNT(*) FROM ${live}) AS live, (SELECT COUNT(*) FROM ${shadow}) AS rebuilt`,
  );
  const [matches] = yield* query<{ matched: unknown; changed: unknown }>(
    `SELECT COUNT(*) AS matched, COALESCE(SUM(CASE WHEN ${differs} THEN 1 ELSE 0 END), 0) AS changed FROM ${live} l JOIN ${shadow} s ON ${join}`,
  );
  const liveRows = Number(counts!.live);
  const rebuiltRows = Number(counts!.rebuilt);
  const matched = Number(matches!.matched);
  const result: TableComparison = {
    table: table.name,
    liveRows,
    rebuiltRows,
    changed: Number(matches!.changed),
    onlyLive: liveRows - matched,
    onlyRebuilt: rebuiltRows - matched,
    samples: [],
  };
  const keyOf = (row: Row) => Object.fromEntries(table.primaryKey.map((c) => [c, row[c]]));

  if (result.changed > 0) {
    const select = table.columns.flatMap((c) => [
      `l.${quoteIdent(c.name)} AS ${quoteIdent(`l:${c.name}`)}`,
      `s.${quoteIdent(c.name)} AS ${quoteIdent(`s:${c.name}`)}`,
    ]);
    const rows = yield* query(`SELECT ${select.join(', ')} FROM ${live} l JOIN ${shadow} s ON ${join} WHERE ${differs} ORDER BY ${order} LIMIT ${sampleLimit}`);
    for (const raw of rows) {
      const l = d.decodeRow(table, Object.fromEntries(table.columns.map((c) => [c.name, raw[`l:${c.name}`]])));
      const s = d.decodeRow(table, Object.fromEntries(table.columns.map((c) => [c.name, raw[`s:${c.name}`]])));
      result.samples.push({
        kind: 'changed',
        key: keyOf(l),
        columns: valueColumns.filter((c) => l[c.name] !== s[c.name]).map((c) => ({ column: c.name, live: l[c.name], rebuilt: s[c.name] })),
      });
    }
  }
  const orphans = function* (from: string, other: string, kind: 'only_live' | 'only_rebuilt'): Step<void> {
    const rows = yield* query(`SELECT l.* FROM ${from} l WHERE NOT EXISTS (SELECT 1 FROM ${other} s WHERE ${join}) ORDER BY ${order} LIMIT ${sampleLimit}`);
    for (const raw of rows) {
      const row = d.decodeRow(table, raw);
      result.samples.push({
        kind,
        key: keyOf(row),
        columns: valueColumns.map((c) =>
          kind === 'only_live' ? { column: c.name, live: row[c.name], rebuilt: undefined } : { column: c.name, live: undefined, rebuilt: row[c.name] },
        ),
      });
    }
  };
  if (result.onlyLive > 0) yield* orphans(live, shadow, 'only_live');
  if (result.onlyRebuilt > 0) yield* orphans(shadow, live, 'only_rebuilt');
  return result;
}

function show(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function showKey(key: Record<string, unknown>): string {
  return Object.entries(key)
    .map(([column, value]) => `${column}=${typeof value === 'string' ? value : show(value)}`)
    .join(' ');
}

/** A report a person can read: per table, the counts, then the first differing rows. */
export function formatVerification(v: Verification): string {
  const lines: string[] = [];
  const width = Math.max(...v.tables.map((t) => t.table.length));
  if (v.identical) {
    lines.push(`Verified: the live read models (${v.projections.join(', ')}) match a rebuild from the event log at position ${v.position}.`);
  } else {
    const bad = v.tables.filter((t) => !tableIdentical(t)).map((t) => t.table);
    lines.push(`Verification FAILED: ${bad.join(', ')} differ${bad.length === 1 ? 's' : ''} from a rebuild from the event log at position ${v.position}.`);
    lines.push('The rebuilt tables (derived from the log, the source of truth) have replaced the live ones; the differences were:');
  }
  for (const t of v.tables) {
    const name = t.table.padEnd(width);
    if (tableIdentical(t)) {
      lines.push(`  ${name}  identical (${t.liveRows} rows)`);
      continue;
    }
    lines.push(
      `  ${name}  ${t.liveRows} live rows, ${t.rebuiltRows} rebuilt rows: ${t.changed} changed, ${t.onlyLive} only in live, ${t.onlyRebuilt} missing from live`,
    );
    for (const sample of t.samples) {
      if (sample.kind === 'changed') {
        const columns = sample.columns.map((c) => `${c.column}: live ${show(c.live)} ≠ rebuilt ${show(c.rebuilt)}`).join('; ');
        lines.push(`    changed  ${showKey(sample.key)}: ${columns}`);
      } else if (sample.kind === 'only_live') {
        lines.push(`    only in live  ${showKey(sample.key)}: ${sample.columns.map((c) => `${c.column}=${show(c.live)}`).join(' ')}`);
      } else {
        lines.push(`    missing from live  ${showKey(sample.key)}: ${sample.columns.map((c) => `${c.column}=${show(c.rebuilt)}`).join(' ')}`);
      }
    }
    const shown = t.samples.length;
    const total = t.changed + t.onlyLive + t.onlyRebuilt;
    if (total > shown) lines.push(`    … and ${total - shown} more`);
  }
  return lines.join('\n') + '\n';
}
