import { openSqliteFile, type SqliteSynchronous } from './open-sqlite-file';
import type Database from 'better-sqlite3';
import {
  checkExpectedVersion,
  IdempotencyKeyReusedError,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type IdempotencyRecord,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type Snapshot,
  type SnapshotAndTail,
  type SnapshotSegment,
  type StoredEvent,
  type StreamSummary,
} from '../event-store';
import { encodeEventId } from '../event-id-codec';
import { storedIdempotencyKey } from '../idempotency-key';
import { GroupCommitQueue, type Settled } from '../group-commit';
import { decodeMetadata, encodeMetadata } from '../metadata-codec';
import { SqliteEventTypeCodes } from './event-type-codes';
import { decodeSegment, decodeSnapshot, encodeSegment, encodeSnapshot } from '../snapshot-codec';

export interface SqliteEventStoreOptions {
  /** A file path, or ':memory:'. */
  filename: string;
  /** FULL (default) syncs the WAL at every commit: an acknowledged append survives power loss. */
  synchronous?: SqliteSynchronous;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  global_position INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id       TEXT    NOT NULL,
  stream_version  INTEGER NOT NULL,
  event_id        TEXT    NOT NULL UNIQUE, -- a UUID as a 16-byte BLOB, any other id as TEXT (see event-id-codec)
  type            TEXT    NOT NULL,
  parent_version  INTEGER,
  data            TEXT    NOT NULL,
  metadata        TEXT    NOT NULL,
  UNIQUE (stream_id, stream_version)
);
CREATE TABLE IF NOT EXISTS streams (
  stream_id  TEXT PRIMARY KEY,
  version    INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS idempotency_keys (
  scope         TEXT NOT NULL,
  key           TEXT NOT NULL,
  fingerprint   TEXT NOT NULL,
  stream_id     TEXT NOT NULL,
  first_version INTEGER NOT NULL,
  last_version  INTEGER NOT NULL,
  created_at    TEXT NOT NULL,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;
-- A rowid table: snapshot rows are large, which WITHOUT ROWID handles badly.
CREATE TABLE IF NOT EXISTS snapshots (
  stream_id       TEXT    NOT NULL,
  version         INTEGER NOT NULL,
  reducer_version INTEGER NOT NULL,
  state           BLOB    NOT NULL, -- JSON text, or deflated JSON (see snapshot-codec)
  created_at      TEXT    NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS snapshots_by_version ON snapshots (stream_id, reducer_version, version);
-- The stored format of the events table; one row.
CREATE TABLE IF NOT EXISTS events_format (version INTEGER NOT NULL);
-- Each event type name once (format 2); events rows carry its code.
CREATE TABLE IF NOT EXISTS event_types (
  code INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
-- Parts of snapshots shared by later snapshots of the stream; segment_id names the content.
CREATE TABLE IF NOT EXISTS snapshot_segments (
  stream_id  TEXT NOT NULL,
  segment_id TEXT NOT NULL,
  data       BLOB NOT NULL, -- deflated text (see snapshot-codec)
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS snapshot_segments_by_id ON snapshot_segments (stream_id, segment_id);
`;

/** Matches what encodeEventId stores as a BLOB. */
const CANONICAL_UUID_GLOB = ['8', '4', '4', '4', '12'].map((n) => '[0-9a-f]'.repeat(Number(n))).join('-');

/**
 * Format 1: UUID event ids as 16-byte BLOBs. Rows written before keep UUIDs as TEXT; they are
 * converted once, so that a new event can never reuse an old event's id unnoticed.
 * Format 2: event types as codes of event_types (`type_code`; `type` is '' then). Rows written
 * before keep their type name and no code: nothing is rewritten.
 */
function upgradeEventsFormat(db: Database.Database): void {
  db.transaction(() => {
    const version = db.prepare<[], { version: number }>('SELECT version FROM events_format').get()?.version ?? 0;
    if (version >= 2) return;
    if (version < 1) {
      db.prepare(
        `UPDATE events SET event_id = unhex(replace(event_id, '-', ''))
          WHERE typeof(event_id) = 'text' AND length(event_id) = 36 AND event_id GLOB '${CANONICAL_UUID_GLOB}'`,
      ).run();
    }
    const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('events')").all();
    if (!columns.some((c) => c.name === 'type_code')) db.exec('ALTER TABLE events ADD COLUMN type_code INTEGER');
    db.prepare('DELETE FROM events_format').run();
    db.prepare('INSERT INTO events_format (version) VALUES (2)').run();
  }).immediate();
}

/**
 * The events columns as read: a BLOB event id comes back as the UUID text, formatted by SQLite
 * (a Buffer per row would cost the reader far more).
 */
const UUID_TEXT = [1, 9, 13, 17, 21].map((from, i) => `substr(hex(event_id), ${from}${i < 4 ? `, ${[8, 4, 4, 4][i]}` : ''})`).join(" || '-' || ");
const EVENT_COLUMNS = `global_position, stream_id, stream_version,
  CASE WHEN typeof(event_id) = 'blob' THEN lower(${UUID_TEXT}) ELSE event_id END AS event_id,
  type, parent_version, data, metadata, type_code`;

interface EventRow {
  global_position: number;
  stream_id: string;
  stream_version: number;
  event_id: string;
  type: string;
  parent_version: number | null;
  data: string;
  metadata: string;
  type_code: number | null;
}

interface PendingAppend {
  streamId: string;
  events: readonly NewEvent[];
  options: AppendOptions;
}

function toStored(row: EventRow, types: SqliteEventTypeCodes): StoredEvent {
  return {
    eventId: row.event_id,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    globalPosition: row.global_position,
    type: types.typeOf(row.type, row.type_code),
    parentVersion: row.parent_version,
    data: JSON.parse(row.data),
    metadata: decodeMetadata(row.metadata, row.stream_id),
  };
}

/**
 * The embedded default: one SQLite file in WAL mode. better-sqlite3 is synchronous and a
 * process has one connection, so appends are serialized and global positions commit in
 * order: a reader of the global log can never see a hole.
 */
export class SqliteEventStore implements EventStore {
  readonly db: Database.Database;
  private readonly statements;
  private readonly appendTx;
  private readonly groupCommitTx;
  private readonly saveSnapshotTx;
  private readonly appends: GroupCommitQueue<PendingAppend, AppendResult>;
  private readonly types: SqliteEventTypeCodes;
  private readonly toStored = (row: EventRow) => toStored(row, this.types);

  constructor(options: SqliteEventStoreOptions) {
    this.db = openSqliteFile(options.filename, options.synchronous ?? 'FULL');
    this.db.exec(SCHEMA);
    upgradeEventsFormat(this.db);
    const db = this.db;
    this.types = new SqliteEventTypeCodes(db);
    this.statements = {
      streamVersion: db.prepare<[string], { version: number }>('SELECT version FROM streams WHERE stream_id = ?'),
      insertEvent: db.prepare(
        "INSERT INTO events (stream_id, stream_version, event_id, type, type_code, parent_version, data, metadata) VALUES (?, ?, ?, '', ?, ?, ?, ?)",
      ),
      upsertStream: db.prepare(
        `INSERT INTO streams (stream_id, version, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
      ),
      findIdempotency: db.prepare<
        [string, string],
        { scope: string; key: string; fingerprint: string; stream_id: string; first_version: number; last_version: number }
      >('SELECT scope, key, fingerprint, stream_id, first_version, last_version FROM idempotency_keys WHERE scope = ? AND key = ?'),
      insertIdempotency: db.prepare(
        'INSERT INTO idempotency_keys (scope, key, fingerprint, stream_id, first_version, last_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      readStream: db.prepare<[string, number, number, number], EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND stream_version >= ? AND stream_version <= ? ORDER BY stream_version LIMIT ?`,
      ),
      readAll: db.prepare<[number, number], EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?`),
      lastPosition: db.prepare<[], { p: number | null }>('SELECT MAX(global_position) AS p FROM events'),
      countBetween: db.prepare<[number, number], { n: number }>('SELECT count(*) AS n FROM events WHERE global_position > ? AND global_position <= ?'),
      listStreams: db.prepare<[string, string, string, number], { stream_id: string; version: number; created_at: string; updated_at: string }>(
        'SELECT * FROM streams WHERE stream_id >= ? AND stream_id < ? AND stream_id > ? ORDER BY stream_id LIMIT ?',
      ),
      saveSnapshot: db.prepare('INSERT OR REPLACE INTO snapshots (stream_id, version, reducer_version, state, created_at) VALUES (?, ?, ?, ?, ?)'),
      loadSnapshot: db.prepare<[string, number, number], { version: number; state: string | Buffer }>(
        'SELECT version, state FROM snapshots WHERE stream_id = ? AND reducer_version = ? AND version <= ? ORDER BY version DESC LIMIT 1',
      ),
      saveSegment: db.prepare('INSERT OR IGNORE INTO snapshot_segments (stream_id, segment_id, data, created_at) VALUES (?, ?, ?, ?)'),
      loadSegment: db.prepare<[string, string], { data: Buffer }>('SELECT data FROM snapshot_segments WHERE stream_id = ? AND segment_id = ?'),
    };
    this.saveSnapshotTx = db.transaction((snapshot: Snapshot, segments: readonly SnapshotSegment[]) => {
      const now = new Date().toISOString();
      for (const segment of segments) this.statements.saveSegment.run(snapshot.streamId, segment.id, encodeSegment(segment.data), now);
      this.statements.saveSnapshot.run(snapshot.streamId, snapshot.version, snapshot.reducerVersion, encodeSnapshot(snapshot.state), now);
    });
    this.appendTx = db.transaction((streamId: string, events: readonly NewEvent[], options: AppendOptions): AppendResult => {
      const claim = options.idempotency;
      if (claim) {
        const existing = this.statements.findIdempotency.get(claim.scope, storedIdempotencyKey(claim.key));
        if (existing) {
          if (existing.fingerprint !== claim.fingerprint) throw new IdempotencyKeyReusedError(claim.key);
          return { streamId: existing.stream_id, firstVersion: existing.first_version, lastVersion: existing.last_version, duplicate: true };
        }
      }
      const current = this.statements.streamVersion.get(streamId)?.version ?? 0;
      checkExpectedVersion(streamId, options.expectedVersion, current);
      const now = new Date().toISOString();
      let version = current;
      for (const event of events) {
        version++;
        this.statements.insertEvent.run(
          streamId,
          version,
          encodeEventId(event.eventId),
          this.types.code(event.type),
          event.parentVersion,
          JSON.stringify(event.data),
          encodeMetadata(event.metadata, streamId),
        );
      }
      this.statements.upsertStream.run(streamId, version, now, now);
      if (claim) this.statements.insertIdempotency.run(claim.scope, storedIdempotencyKey(claim.key), claim.fingerprint, streamId, current + 1, version, now);
      return { streamId, firstVersion: current + 1, lastVersion: version, duplicate: false };
    });
    // Called inside the group transaction, appendTx runs as a savepoint: a failure undoes that append only.
    this.groupCommitTx = db.transaction((batch: PendingAppend[], outcomes: Settled<AppendResult>[]) => {
      for (const item of batch) {
        try {
          outcomes.push({ ok: true, value: this.appendTx(item.streamId, item.events, item.options) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
    });
    // One writer: a batch commits synchronously, and whatever arrives meanwhile goes in the next.
    this.appends = new GroupCommitQueue(
      async (batch) => {
        const outcomes: Settled<AppendResult>[] = [];
        this.groupCommitTx.immediate(batch, outcomes);
        return outcomes;
      },
      { maxInFlight: 1, maxItems: Number.MAX_SAFE_INTEGER },
    );
  }

  /**
   * Group commit: appends issued in the same turn of the event loop share one transaction,
   * so one fsync makes them all durable. Each runs in its own savepoint, so one append's
   * conflict fails that append only. Nothing resolves before the commit.
   */
  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    this.types.register(events.map((e) => e.type));
    return this.appends.submit({ streamId, events, options });
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    return this.statements.readStream
      .all(streamId, options.fromVersion ?? 1, options.toVersion ?? Number.MAX_SAFE_INTEGER, options.limit ?? -1)
      .map(this.toStored);
  }

  async streamVersion(streamId: string): Promise<number> {
    return this.statements.streamVersion.get(streamId)?.version ?? 0;
  }

  async readAll(options: ReadAllOptions): Promise<StoredEvent[]> {
    return this.statements.readAll.all(options.after, options.limit).map(this.toStored);
  }

  async lastPosition(): Promise<number> {
    return this.statements.lastPosition.get()?.p ?? 0;
  }

  async countBetween(after: number, upTo: number): Promise<number> {
    return this.statements.countBetween.get(after, upTo)?.n ?? 0;
  }

  async listStreams(options: { prefix: string; after?: string; limit: number }): Promise<StreamSummary[]> {
    const upper = options.prefix + '\uffff';
    return this.statements.listStreams
      .all(options.prefix, upper, options.after ?? '', options.limit)
      .map((r) => ({ streamId: r.stream_id, version: r.version, createdAt: r.created_at, updatedAt: r.updated_at }));
  }

  async findIdempotency(scope: string, key: string): Promise<IdempotencyRecord | null> {
    const row = this.statements.findIdempotency.get(scope, storedIdempotencyKey(key));
    return row
      ? {
          scope: row.scope,
          key: row.key,
          fingerprint: row.fingerprint,
          streamId: row.stream_id,
          firstVersion: row.first_version,
          lastVersion: row.last_version,
        }
      : null;
  }

  async saveSnapshot(snapshot: Snapshot, segments: readonly SnapshotSegment[] = []): Promise<void> {
    this.saveSnapshotTx.immediate(snapshot, segments);
  }

  async loadSnapshotAndTail(streamId: string, reducerVersion: number, version: number): Promise<SnapshotAndTail> {
    const row = this.statements.loadSnapshot.get(streamId, reducerVersion, version);
    const snapshot = row ? { streamId, version: row.version, reducerVersion, state: decodeSnapshot(row.state) } : null;
    const events = this.statements.readStream.all(streamId, (snapshot?.version ?? 0) + 1, version, -1).map(this.toStored);
    return { snapshot, events };
  }

  async loadSnapshotSegments(streamId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const id of ids) {
      const row = this.statements.loadSegment.get(streamId, id);
      if (row) found.set(id, decodeSegment(row.data));
    }
    return found;
  }

  async loadSnapshot(streamId: string, reducerVersion: number, atOrBefore: number): Promise<Snapshot | null> {
    const row = this.statements.loadSnapshot.get(streamId, reducerVersion, atOrBefore);
    return row ? { streamId, version: row.version, reducerVersion, state: decodeSnapshot(row.state) } : null;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
