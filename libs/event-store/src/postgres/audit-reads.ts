import type { Pool } from 'pg';
import { isCacheMiss, type SnapshotKeyRing } from '../audit/snapshot-keys';
import type { ChainEvent, ReadChainOptions, SnapshotCheck } from '../event-store';
import { decodeSnapshotJson } from '../snapshot-codec';
import type { EventTypeCodes } from './event-type-codes';

// What `rewind verify` reads: the hash chain's rows (with or without their content) and every
// snapshot's seal against the link of the event it was taken at. Off the write path: plain
// queries, paged by the caller (chain) or here (snapshots, 500 a page).

/** The events in (after, upTo] of one stream, a stream prefix or the whole log, with their links. */
export async function readChain(pool: Pool, schema: string, types: EventTypeCodes, options: ReadChainOptions): Promise<ChainEvent[]> {
  const s = `"${schema}"`;
  const content = options.content ?? true;
  const streams =
    options.streamId !== undefined
      ? `AND e.stream_key = (SELECT st.id FROM ${s}.streams st WHERE st.stream_id = $4::text)`
      : options.streamPrefix !== undefined
        ? `AND e.stream_key IN (SELECT st.id FROM ${s}.streams st WHERE st.stream_id >= $4::text AND st.stream_id < $5::text)`
        : '';
  const values: unknown[] = [options.after, options.upTo ?? Number.MAX_SAFE_INTEGER, options.limit];
  if (options.streamId !== undefined) values.push(options.streamId);
  else if (options.streamPrefix !== undefined) values.push(options.streamPrefix, options.streamPrefix + '\uffff');
  const result = await pool.query<unknown[]>({
    text: `SELECT e.global_position, (SELECT st.stream_id FROM ${s}.streams st WHERE st.id = e.stream_key), e.stream_version,
                  coalesce(e.event_text, e.event_uuid::text), e.type, e.type_code, e.parent_version,
                  ${content ? 'e.data::text, e.metadata::text' : "'', ''"}, e.link
             FROM ${s}.events e
            WHERE e.global_position > $1::bigint AND e.global_position <= $2::bigint ${streams}
            ORDER BY e.global_position
            LIMIT $3::bigint`,
    rowMode: 'array',
    values,
  });
  await types.learnCodes(result.rows.map((row) => row[5] as number | null));
  return result.rows.map((row) => ({
    position: row[0] as number,
    // An event whose stream key names no stream: reported by verify as not recorded.
    streamId: (row[1] as string | null) ?? `(stream key of position ${String(row[0])})`,
    version: row[2] as number,
    eventId: row[3] as string,
    type: types.typeOf(row[4] as string | null, row[5] as number | null),
    parentVersion: row[6] as number | null,
    data: row[7] as string,
    metadata: row[8] as string,
    link: row[9] as Buffer | null,
  }));
}

/** Every snapshot of a stream or prefix checked against its seal; the rejected ones named. */
export async function checkSnapshots(
  pool: Pool,
  schema: string,
  keys: SnapshotKeyRing,
  options: { streamPrefix?: string; streamId?: string },
): Promise<SnapshotCheck> {
  const s = `"${schema}"`;
  const prefix = options.streamId ?? options.streamPrefix ?? '';
  const check: SnapshotCheck = { checked: 0, rejected: [] };
  for (let after: [string, number] = ['', 0]; ; ) {
    const result = await pool.query<[string, number, string | null, Buffer | null, Buffer | null, Buffer | null, number]>({
      text: `SELECT n.stream_id, n.version, n.state::text, n.state_deflated, n.seal,
                    (SELECT l.link FROM ${s}.events l WHERE l.stream_key = (SELECT st.id FROM ${s}.streams st WHERE st.stream_id = n.stream_id) AND l.stream_version = n.version),
                    n.reducer_version
               FROM ${s}.snapshots n
              WHERE n.stream_id >= $1::text AND n.stream_id < $2::text AND (n.stream_id, n.version) > ($3::text, $4::bigint)
              ORDER BY n.stream_id, n.version
              LIMIT 500`,
      rowMode: 'array',
      values: [prefix, prefix + '\uffff', after[0], after[1]],
    });
    for (const [streamId, version, state, deflated, seal, link, reducerVersion] of result.rows) {
      if (options.streamId !== undefined && streamId !== options.streamId) continue;
      check.checked++;
      const stateJson = deflated === null ? (state ?? 'null') : decodeSnapshotJson(deflated);
      const problem = await keys.problemAfterRefresh({ seal, link, streamId, reducerVersion, version, stateJson });
      if (problem && !isCacheMiss(problem)) check.rejected.push({ streamId, version, problem });
    }
    if (result.rows.length < 500) return check;
    const last = result.rows[result.rows.length - 1]!;
    after = [last[0], last[1]];
  }
}
