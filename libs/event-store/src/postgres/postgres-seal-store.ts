import type { Pool } from 'pg';
import type { EventSeal, SealStore } from '../audit/seal-store';

interface Row {
  global_position: string;
  stream_id: string;
  stream_version: string;
  hash: string;
}
const toSeal = (r: Row): EventSeal => ({ position: Number(r.global_position), streamId: r.stream_id, streamVersion: Number(r.stream_version), hash: r.hash });

/** Event seals in the event store's schema (migration 5), on its pool. */
export class PostgresSealStore implements SealStore {
  private readonly table: string;

  constructor(
    private readonly pool: Pool,
    private readonly schema = 'rewind',
  ) {
    this.table = `"${schema}".event_seals`;
  }

  async lastSealedPosition(): Promise<number> {
    const { rows } = await this.pool.query<{ p: string | null }>(`SELECT max(global_position) AS p FROM ${this.table}`);
    return Number(rows[0]!.p ?? 0);
  }

  async streamHeads(streamIds: readonly string[]): Promise<Map<string, EventSeal>> {
    const { rows } = await this.pool.query<Row>(
      `SELECT DISTINCT ON (stream_id) * FROM ${this.table} WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, stream_version DESC`,
      [streamIds],
    );
    return new Map(rows.map((r) => [r.stream_id, toSeal(r)]));
  }

  async append(seals: readonly EventSeal[]): Promise<void> {
    if (seals.length === 0) return;
    await this.pool.query(
      `INSERT INTO ${this.table} (global_position, stream_id, stream_version, hash)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[]) ON CONFLICT DO NOTHING`,
      [seals.map((s) => s.position), seals.map((s) => s.streamId), seals.map((s) => s.streamVersion), seals.map((s) => s.hash)],
    );
  }

  async readSeals({ after, limit, upTo }: { after: number; limit: number; upTo?: number }): Promise<EventSeal[]> {
    const { rows } = await this.pool.query<Row>(
      `SELECT * FROM ${this.table} WHERE global_position > $1 AND global_position <= $2 ORDER BY global_position LIMIT $3`,
      [after, upTo ?? Number.MAX_SAFE_INTEGER, limit],
    );
    return rows.map(toSeal);
  }

  async readStreamSeals(streamId: string): Promise<EventSeal[]> {
    const { rows } = await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE stream_id = $1 ORDER BY stream_version`, [streamId]);
    return rows.map(toSeal);
  }

  async sealsAt(positions: readonly number[]): Promise<Map<number, EventSeal>> {
    if (positions.length === 0) return new Map();
    const { rows } = await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE global_position = ANY($1::bigint[])`, [positions]);
    return new Map(rows.map((r) => [Number(r.global_position), toSeal(r)]));
  }

  /** One sealer at a time across processes (a session advisory lock, not waited for). */
  async exclusively<T>(work: () => Promise<T>): Promise<T | null> {
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtext('rewind.seal'), hashtext($1)) AS locked`, [this.schema]);
      if (!rows[0]!.locked) return null;
      try {
        return await work();
      } finally {
        await client.query(`SELECT pg_advisory_unlock(hashtext('rewind.seal'), hashtext($1))`, [this.schema]);
      }
    } finally {
      client.release();
    }
  }

  /** The pool belongs to the event store. */
  async close(): Promise<void> {}
}
