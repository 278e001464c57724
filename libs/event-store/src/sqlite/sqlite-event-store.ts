import { openSqliteFile, type SqliteSynchronous } from './open-sqlite-file';
import { applySqliteMigrations, type SqliteMigrationSet } from './sqlite-migrations';
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
import { eventDigest, eventLink, GENESIS_LINK } from '../audit/audit-chain';
import { addSnapshotKeys, SqliteSealedSnapshots } from './sealed-snapshots';
import type { ChainEvent, ReadChainOptions, SnapshotCheck } from '../event-store';

export interface SqliteEventStoreOptions {
  /** A file path, or ':memory:'. */
  filename: string;
  /** FULL (default) syncs the WAL at every commit: an acknowledged append survives power loss. */
  synchronous?: SqliteSynchronous;
  /** REWIND_MASTER_KEY (32 bytes): snapshot seals are made with keys derived from it, which the database alone does not hold. */
  masterKey?: Buffer;
}

/**
 * The tables as the first release created them at every open, now events migration 1 (frozen:
 * a new table or index is a new migration in EVENT_MIGRATIONS). Files made before keep their
 * tables and take it as it is; the events' row format has its own version (events_format).
 */
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

/** The events file's table migrations (store `events` in its schema_versions), in one IMMEDIATE transaction. */
const EVENT_MIGRATIONS: SqliteMigrationSet = {
  store: 'events',
  migrations: [{ version: 1, name: 'events, streams, idempotency keys, snapshots', up: SCHEMA }],
};

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
    if (version >= 3) return;
    if (version === 2) {
      addAuditLinks(db);
      return;
    }
    if (version < 1) {
      db.prepare(
        `UPDATE events SET event_id = unhex(replace(event_id, '-', ''))
          WHERE typeof(event_id) = 'text' AND length(event_id) = 36 AND event_id GLOB '${CANONICAL_UUID_GLOB}'`,
      ).run();
    }
    const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('events')").all();
    if (!columns.some((c) => c.name === 'type_code')) db.exec('ALTER TABLE events ADD COLUMN type_code INTEGER');
    addAuditLinks(db);
  }).immediate();
}

/**
 * Format 3: each event's audit link in its row (`link`, 32 bytes, written by the append), each
 * snapshot's seal (`seal`); `audit_chain.links_from` is the first position written with links.
 * Rows written before keep no link: they stay covered by their seals in event_seals.
 */
function addAuditLinks(db: Database.Database): void {
  const has = (table: string, column: string) =>
    db
      .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
      .all()
      .some((c) => c.name === column);
  if (!has('events', 'link')) db.exec('ALTER TABLE events ADD COLUMN link BLOB');
  if (!has('snapshots', 'seal')) db.exec('ALTER TABLE snapshots ADD COLUMN seal BLOB');
  db.exec('CREATE TABLE IF NOT EXISTS audit_chain (links_from INTEGER NOT NULL)');
  if (!db.prepare('SELECT 1 FROM audit_chain').get()) {
    db.prepare('INSERT INTO audit_chain (links_from) VALUES ((SELECT coalesce(max(global_position), 0) + 1 FROM events))').run();
  }
  db.prepare('DELETE FROM events_format').run();
  db.prepare('INSERT INTO events_format (version) VALUES (3)').run();
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

interface ChainRow {
  global_position: number;
  stream_id: string;
  stream_version: number;
  event_id: string;
  type: string;
  type_code: number | null;
  parent_version: number | null;
  data: string;
  metadata: string;
  link: Buffer | null;
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
  private readonly appends: GroupCommitQueue<PendingAppend, AppendResult>;
  private readonly types: SqliteEventTypeCodes;
  private readonly toStored = (row: EventRow) => toStored(row, this.types);
  private readonly snapshots: SqliteSealedSnapshots;

  constructor(options: SqliteEventStoreOptions) {
    this.db = openSqliteFile(options.filename, options.synchronous ?? 'FULL');
    applySqliteMigrations(this.db, EVENT_MIGRATIONS);
    upgradeEventsFormat(this.db);
    addSnapshotKeys(this.db);
    const db = this.db;
    this.types = new SqliteEventTypeCodes(db);
    this.statements = {
      streamVersion: db.prepare<[string], { version: number }>('SELECT version FROM streams WHERE stream_id = ?'),
      insertEvent: db.prepare(
        "INSERT INTO events (global_position, stream_id, stream_version, event_id, type, type_code, parent_version, data, metadata, link) VALUES (?, ?, ?, ?, '', ?, ?, ?, ?, ?)",
      ),
      // AUTOINCREMENT's next value, taken here so that the link can cover the position.
      lastAssigned: db.prepare<[], { p: number }>(
        "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0), coalesce((SELECT max(global_position) FROM events), 0)) AS p",
      ),
      linkAt: db.prepare<[string, number], { link: Buffer | null }>('SELECT link FROM events WHERE stream_id = ? AND stream_version = ?'),
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
      // Never above the first event written with a link: raising the recorded boundary in the file must
      // not turn events after it into "written before links" (an event inserted there would pass as one).
      linksFrom: db.prepare<[], { links_from: number | null }>(
        'SELECT min(links_from, coalesce((SELECT min(global_position) FROM events WHERE link IS NOT NULL), links_from)) AS links_from FROM audit_chain',
      ),
    };
    this.snapshots = new SqliteSealedSnapshots(db, this.statements.linkAt, options.masterKey);
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
      // The link is computed here, in the append's transaction: no committed event is ever outside its chain.
      let position = this.statements.lastAssigned.get()!.p;
      let link = current === 0 ? GENESIS_LINK : (this.statements.linkAt.get(streamId, current)?.link ?? GENESIS_LINK);
      for (const event of events) {
        version++;
        position++;
        const data = JSON.stringify(event.data);
        const metadata = encodeMetadata(event.metadata, streamId);
        link = eventLink(link, position, version, eventDigest(streamId, event.eventId, event.type, event.parentVersion, data, metadata));
        this.statements.insertEvent.run(
          position,
          streamId,
          version,
          encodeEventId(event.eventId),
          this.types.code(event.type),
          event.parentVersion,
          data,
          metadata,
          link,
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

  saveSnapshot(snapshot: Snapshot, segments: readonly SnapshotSegment[] = []): Promise<void> {
    return this.snapshots.save(snapshot, segments);
  }

  async loadSnapshotAndTail(streamId: string, reducerVersion: number, version: number): Promise<SnapshotAndTail> {
    const { snapshot, rejected } = await this.snapshots.checked(streamId, reducerVersion, version);
    const events = this.statements.readStream.all(streamId, (snapshot?.version ?? 0) + 1, version, -1).map(this.toStored);
    return { snapshot, events, ...(rejected ? { rejected } : {}) };
  }

  async readChain(options: ReadChainOptions): Promise<ChainEvent[]> {
    const content = options.content ?? true;
    const columns = `global_position, stream_id, stream_version,
      CASE WHEN typeof(event_id) = 'blob' THEN lower(${UUID_TEXT}) ELSE event_id END AS event_id,
      type, type_code, parent_version, ${content ? 'data, metadata' : "'' AS data, '' AS metadata"}, link`;
    const where = ['global_position > ?', 'global_position <= ?'];
    const values: (string | number)[] = [options.after, options.upTo ?? Number.MAX_SAFE_INTEGER];
    if (options.streamId !== undefined) {
      where.push('stream_id = ?');
      values.push(options.streamId);
    } else if (options.streamPrefix !== undefined) {
      where.push('stream_id >= ? AND stream_id < ?');
      values.push(options.streamPrefix, options.streamPrefix + '\uffff');
    }
    values.push(options.limit);
    return this.db
      .prepare<(string | number)[], ChainRow>(`SELECT ${columns} FROM events WHERE ${where.join(' AND ')} ORDER BY global_position LIMIT ?`)
      .all(...values)
      .map((r) => ({
        position: r.global_position,
        streamId: r.stream_id,
        version: r.stream_version,
        eventId: r.event_id,
        type: this.types.typeOf(r.type, r.type_code),
        parentVersion: r.parent_version,
        data: r.data,
        metadata: r.metadata,
        link: r.link,
      }));
  }

  /** A new snapshot key seals from now on; snapshots sealed with the earlier ones keep verifying. Returns its id. */
  rotateSnapshotKey(): Promise<number> {
    return this.snapshots.rotateKey();
  }

  async linksFrom(): Promise<number> {
    return this.statements.linksFrom.get()?.links_from ?? 1;
  }

  checkSnapshots(options: { streamPrefix?: string; streamId?: string }): Promise<SnapshotCheck> {
    return this.snapshots.check(options);
  }

  loadSnapshotSegments(streamId: string, ids: readonly string[]): Promise<Map<string, string>> {
    return this.snapshots.loadSegments(streamId, ids);
  }

  async loadSnapshot(streamId: string, reducerVersion: number, atOrBefore: number): Promise<Snapshot | null> {
    return (await this.snapshots.checked(streamId, reducerVersion, atOrBefore)).snapshot;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
