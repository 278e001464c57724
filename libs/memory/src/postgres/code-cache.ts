import { LRUCache } from 'lru-cache';
import { nearestByHamming, wordsPerCode } from '../sqlite-vec/hamming';
import type { MemoryScope } from '../vector-index';

/** A scope's codes as read from memory_codes: the removals counter, and each new code's row (none: NULLs). */
export interface CodeRow {
  removals: string;
  seq: string | null;
  code: Buffer | null;
  stamp: string | null;
}

/** Reads a scope's codes stamped after `after` (the removals counter comes with them). */
export type ReadCodes = (scope: MemoryScope, after: number) => Promise<CodeRow[]>;

/** One scope's codes in memory: an item's code is replaced in place when it is written again. */
class ScopeCodes {
  seqs = new Float64Array(64);
  codes: Uint32Array;
  count = 0;
  lastStamp = 0;
  readAt = 0;
  private readonly positions = new Map<number, number>();

  constructor(private readonly words: number) {
    this.codes = new Uint32Array(64 * words);
  }

  get bytes(): number {
    return this.seqs.byteLength + this.codes.byteLength + this.positions.size * 16;
  }

  put(seq: number, code: Buffer): void {
    let at = this.positions.get(seq);
    if (at === undefined) {
      if (this.count === this.seqs.length) {
        const seqs = new Float64Array(this.seqs.length * 2);
        seqs.set(this.seqs);
        const codes = new Uint32Array(seqs.length * this.words);
        codes.set(this.codes);
        [this.seqs, this.codes] = [seqs, codes];
      }
      at = this.count++;
      this.positions.set(seq, at);
      this.seqs[at] = seq;
    }
    const bytes = new Uint8Array(this.codes.buffer, at * this.words * 4, this.words * 4);
    bytes.fill(0);
    bytes.set(code.subarray(0, bytes.length));
  }
}

/**
 * How long a scope's codes are trusted to have every code stamped below the highest seen. Stamps come
 * from a sequence when a code is written, and two writers' transactions may commit out of stamp order
 * (the indexer's lock changing hands): a scope is read whole again this often, so such a code is
 * searchable by vector at most this late (by keywords at once).
 */
const FULL_READ_MS = 60_000;

/**
 * The PostgreSQL index's 1-bit codes held in memory per searched scope and scanned by
 * `nearestByHamming` (~4 ms for 100 000 codes of 384 bits), as the SQLite index's BinaryCodeCache
 * does: a scan in SQL (`bit_count(a # b)` over every row) costs ~10 times more. Each search reads what
 * is new since the last (one round trip: codes stamped later, and the removals counter); a removal
 * anywhere (shred, deletion, replaced item) makes every scope read again.
 */
export class PostgresCodeCache {
  private readonly scopes: LRUCache<string, ScopeCodes>;
  private readonly words: number;
  private removals: string | undefined;

  constructor(
    private readonly read: ReadCodes,
    private readonly codeBytes: number,
    maxBytes = 256 * 1024 * 1024,
    private readonly now: () => number = Date.now,
  ) {
    this.words = wordsPerCode(codeBytes);
    this.scopes = new LRUCache({ maxSize: maxBytes, sizeCalculation: (codes) => Math.max(1, codes.bytes) });
  }

  /** Item seqs of the `k` items of the scope nearest to the query's code by Hamming distance. */
  async nearest(scope: MemoryScope, queryCode: Buffer, k: number): Promise<number[]> {
    const codes = await this.current(scope);
    const query = new Uint32Array(this.words);
    new Uint8Array(query.buffer).set(queryCode.subarray(0, this.codeBytes));
    return nearestByHamming(codes.codes, codes.count, query, k).map((i) => codes.seqs[i]!);
  }

  private async current(scope: MemoryScope): Promise<ScopeCodes> {
    const key = scope.sessionId === undefined ? `t\u0000${scope.tenantId}` : `s\u0000${scope.tenantId}\u0000${scope.sessionId}`;
    let codes = this.scopes.get(key);
    if (!codes || this.now() - codes.readAt > FULL_READ_MS) codes = new ScopeCodes(this.words);
    const startedAt = this.now();
    let rows = await this.read(scope, codes.lastStamp);
    if (rows[0] && rows[0].removals !== this.removals) {
      // Removed somewhere since: every scope is read again (a removed item may be any scope's); this one now, whole.
      this.removals = rows[0].removals;
      this.scopes.clear();
      if (codes.lastStamp > 0) {
        codes = new ScopeCodes(this.words);
        rows = await this.read(scope, 0);
        this.removals = rows[0]?.removals ?? this.removals;
      }
    }
    if (codes.readAt === 0) codes.readAt = startedAt;
    for (const row of rows) {
      if (row.seq === null) continue;
      codes.put(Number(row.seq), row.code!);
      codes.lastStamp = Math.max(codes.lastStamp, Number(row.stamp));
    }
    // Set again: the cache weighs an entry when it is set.
    this.scopes.set(key, codes);
    return codes;
  }
}
