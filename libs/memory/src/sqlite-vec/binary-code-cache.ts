import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { MemoryScope } from '../vector-index';
import { nearestByHamming, wordsPerCode } from './hamming';

/** Bytes of a row id in the packed load (12 hex digits: 2^48 items). */
const ROWID_BYTES = 6;

/** One scope's codes in memory, in row-id order (rows are only ever appended with a higher id, or deleted). */
class ScopeCodes {
  rowids = new Float64Array(64);
  codes: Uint32Array;
  count = 0;
  lastRowid = -1;
  /** The cache's epoch this scope was last brought up to date in. */
  epoch = -1;

  constructor(private readonly words: number) {
    this.codes = new Uint32Array(64 * words);
  }

  get bytes(): number {
    return this.rowids.byteLength + this.codes.byteLength;
  }

  /** Appends the records of a packed load: each a 6-byte big-endian row id, then the code's bytes. */
  append(packed: Buffer, codeBytes: number): void {
    const record = ROWID_BYTES + codeBytes;
    const added = packed.length / record;
    if (this.count + added > this.rowids.length) {
      const capacity = Math.max(this.count + added, this.rowids.length * 2);
      const rowids = new Float64Array(capacity);
      rowids.set(this.rowids.subarray(0, this.count));
      const codes = new Uint32Array(capacity * this.words);
      codes.set(this.codes.subarray(0, this.count * this.words));
      this.rowids = rowids;
      this.codes = codes;
    }
    const bytes = new Uint8Array(this.codes.buffer);
    for (let i = 0; i < added; i++) {
      const at = i * record;
      const rowid = packed.readUIntBE(at, ROWID_BYTES);
      this.rowids[this.count] = rowid;
      bytes.set(packed.subarray(at + ROWID_BYTES, at + record), this.count * this.words * 4);
      this.count++;
      this.lastRowid = rowid;
    }
  }
}

/**
 * The index's 1-bit codes, held in memory per searched scope (a tenant, or a large session) and
 * scanned by `nearestByHamming`. sqlite-vec's vec0 finds its top k by a selection that costs
 * O(n·k) (~13 ms for 128 candidates among 100 000); this scan costs ~4 ms whatever k is.
 *
 * The codes table is the truth; the memory copy follows it. Another connection's commit (the
 * indexer writes in a worker thread) changes SQLite's `data_version`: new rows are then read
 * incrementally (row ids only grow). A delete bumps a counter (a trigger on the items table),
 * and every scope is then read again from the table, since a deleted row id can be reused.
 * Memory: 8 + dimensions/8 bytes an item of each scope searched (~5.6 MB for 100 000 items of
 * 384 dimensions), the least recently searched scopes dropped beyond `maxBytes`.
 */
export class BinaryCodeCache {
  private readonly scopes: LRUCache<string, ScopeCodes>;
  private readonly words: number;
  private epoch = 0;
  private dataVersion = -1;
  private deletions = -1;
  private ownWrites = true;
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    prefix: string,
    private readonly codeBytes: number,
    maxBytes = 256 * 1024 * 1024,
  ) {
    this.words = wordsPerCode(codeBytes);
    this.scopes = new LRUCache({ maxSize: maxBytes, sizeCalculation: (codes) => codes.bytes });
    const packed = (where: string) =>
      db
        .prepare(`SELECT group_concat(printf('%012x', item_rowid) || hex(code), '' ORDER BY item_rowid) FROM ${prefix}_codes WHERE ${where} AND item_rowid > ?`)
        .pluck();
    this.statements = {
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      deletions: db.prepare<[], number>(`SELECT n FROM ${prefix}_deletions`).pluck(),
      tenantCodes: packed('tenant_id = ?') as Database.Statement<[string, number], string | null>,
      sessionCodes: packed('tenant_id = ? AND session_id = ?') as Database.Statement<[string, string, number], string | null>,
    };
  }

  /** This connection wrote to the index (its own commits do not change `data_version`). */
  changed(): void {
    this.ownWrites = true;
  }

  /** Row ids of the `k` items of the scope nearest to the query's code by Hamming distance. */
  nearest(scope: MemoryScope, queryCode: Buffer, k: number): number[] {
    const codes = this.db.transaction(() => this.current(scope))();
    const query = new Uint32Array(this.words);
    new Uint8Array(query.buffer).set(queryCode.subarray(0, this.codeBytes));
    return nearestByHamming(codes.codes, codes.count, query, k).map((i) => codes.rowids[i]!);
  }

  /** The scope's codes as of now (called inside one read transaction, so the counter and the rows agree). */
  private current(scope: MemoryScope): ScopeCodes {
    const version = this.statements.dataVersion.get()!;
    if (version !== this.dataVersion || this.ownWrites) {
      this.dataVersion = version;
      this.ownWrites = false;
      this.epoch++;
      const deletions = this.statements.deletions.get()!;
      if (deletions !== this.deletions) {
        this.deletions = deletions;
        this.scopes.clear();
      }
    }
    const key = scope.sessionId === undefined ? `t\u0000${scope.tenantId}` : `s\u0000${scope.tenantId}\u0000${scope.sessionId}`;
    let codes = this.scopes.get(key);
    if (!codes) {
      codes = new ScopeCodes(this.words);
      this.scopes.set(key, codes);
    }
    if (codes.epoch !== this.epoch) {
      const hex =
        scope.sessionId === undefined
          ? this.statements.tenantCodes.get(scope.tenantId, codes.lastRowid)
          : this.statements.sessionCodes.get(scope.tenantId, scope.sessionId, codes.lastRowid);
      codes.epoch = this.epoch;
      if (hex) {
        codes.append(Buffer.from(hex, 'hex'), this.codeBytes);
        // Set again: the cache weighs an entry when it is set.
        this.scopes.set(key, codes);
      }
    }
    return codes;
  }
}
