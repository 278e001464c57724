import type { Pool } from 'pg';
import { generateKey, hashKey, keyIdOf, type ApiKeyRecord, type ApiKeyRole, type ApiKeyStore } from './api-key-store';

interface Row {
  key_id: string;
  tenant_id: string;
  name: string;
  role: ApiKeyRole;
  created_at: Date | string;
}
const toRecord = (r: Row): ApiKeyRecord => ({
  keyId: r.key_id,
  tenantId: r.tenant_id,
  name: r.name,
  role: r.role,
  createdAt: r.created_at instanceof Date ? r.created_at.toISOString() : r.created_at,
});

/** API keys in PostgreSQL (the event store's pool and schema); only hashes are stored. */
export class PostgresApiKeyStore implements ApiKeyStore {
  private constructor(
    private readonly pool: Pool,
    private readonly table: string,
  ) {}

  static async open(pool: Pool, schema = 'rewind'): Promise<PostgresApiKeyStore> {
    const table = `"${schema}".api_keys`;
    await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (
      key_id     text PRIMARY KEY,
      hash       text NOT NULL UNIQUE,
      tenant_id  text NOT NULL,
      name       text NOT NULL,
      role       text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    return new PostgresApiKeyStore(pool, table);
  }

  async authenticate(presentedKey: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.pool.query<Row>(`SELECT key_id, tenant_id, name, role, created_at FROM ${this.table} WHERE hash = $1`, [hashKey(presentedKey)]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async create(input: { tenantId: string; name: string; role: ApiKeyRole; plaintext?: string }) {
    const key = input.plaintext ?? generateKey().key;
    const record: ApiKeyRecord = { keyId: keyIdOf(key), tenantId: input.tenantId, name: input.name, role: input.role, createdAt: new Date().toISOString() };
    await this.pool.query(
      `INSERT INTO ${this.table} (key_id, hash, tenant_id, name, role, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [record.keyId, hashKey(key), record.tenantId, record.name, record.role, record.createdAt],
    );
    return { key, record };
  }

  async list(tenantId?: string): Promise<ApiKeyRecord[]> {
    const { rows } = tenantId
      ? await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE tenant_id = $1 ORDER BY created_at`, [tenantId])
      : await this.pool.query<Row>(`SELECT * FROM ${this.table} ORDER BY created_at`);
    return rows.map(toRecord);
  }

  async count(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${this.table}`);
    return Number(rows[0]!.n);
  }

  /** The pool belongs to the event store, which closes it. */
  async close(): Promise<void> {}
}
