import type { Pool } from 'pg';
import type { ServedSnapshot } from '../audit/served-snapshot';
import { newSnapshotKeySecret, SnapshotKeyRing, type SnapshotKey } from '../audit/snapshot-keys';
import type { Snapshot, SnapshotCheck, SnapshotSegment } from '../event-store';
import { decodeSegment, encodeSegmentOffThread, encodeSnapshotJsonOffThread } from '../snapshot-codec';
import { checkSnapshots } from './audit-reads';
import { checkedSnapshot, type SnapshotRow } from './snapshot-columns';
import type { Statements } from './statements';

/**
 * The PostgreSQL store's snapshots and their segments, sealed (issue 42): a snapshot is written
 * with a tag keyed by the store's newest snapshot key (derived from REWIND_MASTER_KEY when one is
 * set, snapshot-keys.ts), which the insert binds to the link of the event at the snapshot's
 * version; it is served only while its seal holds under one of the store's keys.
 */
export class PostgresSealedSnapshots {
  /** The store's snapshot keys, as last read (`refresh` them once the schema has its key table). */
  readonly keys: SnapshotKeyRing;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly sql: Statements,
    masterKey: Buffer | undefined,
  ) {
    this.keys = new SnapshotKeyRing(async () => {
      const result = await pool.query<SnapshotKey>(`SELECT key_id AS id, secret FROM "${schema}".snapshot_keys`);
      return result.rows;
    }, masterKey);
  }

  async save(snapshot: Snapshot, segments: readonly SnapshotSegment[]): Promise<void> {
    const json = JSON.stringify(snapshot.state ?? null);
    // Deflated off the event loop (libuv's pool): a snapshot is written after its request was answered.
    const [stored, encodedSegments] = await Promise.all([encodeSnapshotJsonOffThread(json), Promise.all(segments.map((x) => encodeSegmentOffThread(x.data)))]);
    // The seal is computed by the statement, from the link at the snapshot's version and this keyed tag.
    const row = [
      snapshot.streamId,
      snapshot.reducerVersion,
      snapshot.version,
      typeof stored === 'string' ? stored : null,
      typeof stored === 'string' ? null : stored,
      this.keys.tag(snapshot.streamId, snapshot.reducerVersion, snapshot.version, json),
    ];
    if (segments.length === 0) {
      await this.pool.query({ ...this.sql.saveSnapshot, values: row });
      return;
    }
    // One statement: the segments and the snapshot that refers to them commit together.
    await this.pool.query({
      ...this.sql.saveSnapshotWithSegments,
      values: [...row, segments.map((x) => x.id), encodedSegments],
    });
  }

  /** The snapshot in `row` (read with its seal and the link at its version), served only if its seal holds. */
  checked(streamId: string, reducerVersion: number, row: SnapshotRow): Promise<ServedSnapshot> {
    return checkedSnapshot(this.keys, streamId, reducerVersion, row);
  }

  /** The stored segments of a stream among `ids`, by id (ids not stored are absent). */
  async loadSegments(streamId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (ids.length === 0) return found;
    const result = await this.pool.query<[string, Buffer]>({ ...this.sql.loadSnapshotSegments, rowMode: 'array', values: [streamId, ids] });
    for (const [id, data] of result.rows) found.set(id, decodeSegment(data));
    return found;
  }

  async load(streamId: string, reducerVersion: number, atOrBefore: number): Promise<Snapshot | null> {
    const result = await this.pool.query<[number, string | null, Buffer | null, Buffer | null, Buffer | null]>({
      ...this.sql.loadSnapshot,
      rowMode: 'array',
      values: [streamId, reducerVersion, atOrBefore],
    });
    const row = result.rows[0];
    if (!row) return null;
    return (await this.checked(streamId, reducerVersion, { version: row[0], state: row[1], deflated: row[2], seal: row[3], link: row[4] })).snapshot;
  }

  /** A new snapshot key seals from now on (every process learns it at its first seal that holds under no key it knows); earlier keys keep verifying. Returns its id. */
  async rotateKey(): Promise<number> {
    const result = await this.pool.query<{ key_id: number }>(`INSERT INTO "${this.schema}".snapshot_keys (secret) VALUES ($1) RETURNING key_id`, [
      newSnapshotKeySecret(),
    ]);
    await this.keys.refresh();
    return result.rows[0]!.key_id;
  }

  /** Every snapshot of a stream or prefix checked against its seal (`rewind verify`). */
  check(options: { streamPrefix?: string; streamId?: string }): Promise<SnapshotCheck> {
    return checkSnapshots(this.pool, this.schema, this.keys, options);
  }
}
