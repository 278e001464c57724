import type Database from 'better-sqlite3';
import { snapshotSeal } from '../audit/audit-chain';
import { servedSnapshot, type ServedSnapshot } from '../audit/served-snapshot';
import { isCacheMiss, newSnapshotKeySecret, SnapshotKeyRing, type SealedSnapshot, type SnapshotKey } from '../audit/snapshot-keys';
import type { Snapshot, SnapshotCheck, SnapshotSegment } from '../event-store';
import { decodeSegment, decodeSnapshotJson, encodeSegmentOffThread, encodeSnapshotJsonOffThread } from '../snapshot-codec';

/**
 * Snapshot seals keyed (issue 42): seals made before were a plain hash anyone could recompute over
 * an edited row. Snapshots are caches, so those sealed the old way are dropped when the key table
 * is created (the next snapshot of each session replaces them), and never mistaken for forgeries.
 */
export function addSnapshotKeys(db: Database.Database): void {
  db.transaction(() => {
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'snapshot_keys'").get()) return;
    db.exec('CREATE TABLE snapshot_keys (key_id INTEGER PRIMARY KEY, secret BLOB NOT NULL, created_at TEXT NOT NULL)');
    db.exec('DELETE FROM snapshots');
    db.prepare('INSERT INTO snapshot_keys (secret, created_at) VALUES (?, ?)').run(newSnapshotKeySecret(), new Date().toISOString());
  }).immediate();
}

/** A snapshot as its transaction writes it: the state's text or deflated bytes, the digest its seal covers, deflated segments. */
interface EncodedSnapshotRow {
  state: string | Buffer;
  /** Its keyed tag (see snapshotTag). */
  digest: Buffer;
  segments: readonly { id: string; data: Buffer }[];
}

interface SnapshotRow {
  version: number;
  state: string | Buffer;
  seal: Buffer | null;
  link: Buffer | null;
}

/**
 * The SQLite store's snapshots and their segments, sealed (issue 42): a snapshot's seal binds a tag
 * keyed by the file's newest snapshot key (derived from REWIND_MASTER_KEY when one is set,
 * snapshot-keys.ts) to the link of the event at its version, in the transaction that writes it; it
 * is served only while its seal holds under one of the file's keys. The key table must exist
 * (`addSnapshotKeys`).
 */
export class SqliteSealedSnapshots {
  private readonly keys: SnapshotKeyRing;
  private readonly statements;
  private readonly saveTx;

  constructor(
    private readonly db: Database.Database,
    /** The link of the event at a stream's version (the append's statement). */
    linkAt: Database.Statement<[string, number], { link: Buffer | null }>,
    masterKey: Buffer | undefined,
  ) {
    const keys = db.prepare<[], SnapshotKey>('SELECT key_id AS id, secret FROM snapshot_keys');
    this.keys = new SnapshotKeyRing(() => keys.all(), masterKey);
    this.keys.set(keys.all());
    this.statements = {
      saveSnapshot: db.prepare('INSERT OR REPLACE INTO snapshots (stream_id, version, reducer_version, state, created_at, seal) VALUES (?, ?, ?, ?, ?, ?)'),
      loadSnapshot: db.prepare<[string, number, number], SnapshotRow>(
        `SELECT s.version, s.state, s.seal, e.link FROM snapshots s LEFT JOIN events e ON e.stream_id = s.stream_id AND e.stream_version = s.version
          WHERE s.stream_id = ? AND s.reducer_version = ? AND s.version <= ? ORDER BY s.version DESC LIMIT 1`,
      ),
      snapshotsOf: db.prepare<[string, string], SnapshotRow & { stream_id: string; reducer_version: number }>(
        `SELECT s.stream_id, s.reducer_version, s.version, s.state, s.seal, e.link FROM snapshots s LEFT JOIN events e ON e.stream_id = s.stream_id AND e.stream_version = s.version
          WHERE s.stream_id >= ? AND s.stream_id < ? ORDER BY s.stream_id, s.version`,
      ),
      saveSegment: db.prepare('INSERT OR IGNORE INTO snapshot_segments (stream_id, segment_id, data, created_at) VALUES (?, ?, ?, ?)'),
      loadSegment: db.prepare<[string, string], { data: Buffer }>('SELECT data FROM snapshot_segments WHERE stream_id = ? AND segment_id = ?'),
    };
    this.saveTx = db.transaction((snapshot: Snapshot, encoded: EncodedSnapshotRow) => {
      const now = new Date().toISOString();
      for (const segment of encoded.segments) this.statements.saveSegment.run(snapshot.streamId, segment.id, segment.data, now);
      const link = linkAt.get(snapshot.streamId, snapshot.version)?.link ?? null;
      const seal = snapshotSeal(link, snapshot.version, encoded.digest);
      this.statements.saveSnapshot.run(snapshot.streamId, snapshot.version, snapshot.reducerVersion, encoded.state, now, seal);
    });
  }

  async save(snapshot: Snapshot, segments: readonly SnapshotSegment[]): Promise<void> {
    // Deflated before the transaction, off the event loop; the transaction itself stays synchronous.
    const json = JSON.stringify(snapshot.state ?? null);
    const [state, encodedSegments] = await Promise.all([
      encodeSnapshotJsonOffThread(json),
      Promise.all(segments.map(async (segment) => ({ id: segment.id, data: await encodeSegmentOffThread(segment.data) }))),
    ]);
    // Closed meanwhile (shutdown): a snapshot is a cache, and the next process writes its own.
    if (!this.db.open) return;
    const tag = this.keys.tag(snapshot.streamId, snapshot.reducerVersion, snapshot.version, json);
    this.saveTx.immediate(snapshot, { state, digest: tag, segments: encodedSegments });
  }

  /** The nearest snapshot, served only if its seal holds (a refused one is reported, and replay takes its place). */
  async checked(streamId: string, reducerVersion: number, version: number): Promise<ServedSnapshot> {
    const row = this.statements.loadSnapshot.get(streamId, reducerVersion, version);
    if (!row) return { snapshot: null };
    return servedSnapshot(this.keys, {
      seal: row.seal,
      link: row.link,
      streamId,
      reducerVersion,
      version: row.version,
      stateJson: decodeSnapshotJson(row.state),
    });
  }

  /** The stored segments of a stream among `ids`, by id (ids not stored are absent). */
  async loadSegments(streamId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const id of ids) {
      const row = this.statements.loadSegment.get(streamId, id);
      if (row) found.set(id, decodeSegment(row.data));
    }
    return found;
  }

  /** A new snapshot key seals from now on; snapshots sealed with the earlier ones keep verifying. Returns its id. */
  async rotateKey(): Promise<number> {
    const id = Number(
      this.db.prepare('INSERT INTO snapshot_keys (secret, created_at) VALUES (?, ?)').run(newSnapshotKeySecret(), new Date().toISOString()).lastInsertRowid,
    );
    await this.keys.refresh();
    return id;
  }

  /** Every snapshot of a stream or prefix checked against its seal (`rewind verify`); the rejected ones named. */
  async check(options: { streamPrefix?: string; streamId?: string }): Promise<SnapshotCheck> {
    const prefix = options.streamId ?? options.streamPrefix ?? '';
    const result: SnapshotCheck = { checked: 0, rejected: [] };
    const doubtful: SealedSnapshot[] = [];
    for (const row of this.statements.snapshotsOf.iterate(prefix, prefix + '\uffff')) {
      if (options.streamId !== undefined && row.stream_id !== options.streamId) continue;
      result.checked++;
      // Unsealed rows (none since the key table) are a plain cache miss, not a finding.
      if (row.seal === null) continue;
      const snapshot = {
        seal: row.seal,
        link: row.link,
        streamId: row.stream_id,
        reducerVersion: row.reducer_version,
        version: row.version,
        stateJson: decodeSnapshotJson(row.state),
      };
      if (this.keys.problem(snapshot)) doubtful.push(snapshot);
    }
    // Checked again once the iteration is over (the connection is free): a key another process added meanwhile.
    for (const snapshot of doubtful) {
      const problem = await this.keys.problemAfterRefresh(snapshot);
      if (problem && !isCacheMiss(problem)) result.rejected.push({ streamId: snapshot.streamId, version: snapshot.version, problem });
    }
    return result;
  }
}
