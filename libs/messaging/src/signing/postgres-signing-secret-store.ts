import type { Pool } from 'pg';
import {
  checkSigningGrace,
  newSecretText,
  newSigningSecret,
  usableNow,
  withoutSecret,
  type KafkaSigningSecretStore,
  type SigningSecret,
  type SigningSecretRecord,
} from './signing-secret-store';

interface Row {
  key_id: string;
  tenant_id: string;
  name: string;
  secret: string;
  created_at: Date;
  revoked_at: Date | null;
  expires_at: Date | null;
  previous_secret: string | null;
  previous_valid_until: Date | null;
}

const toSecret = (r: Row): SigningSecret => ({
  keyId: r.key_id,
  tenantId: r.tenant_id,
  name: r.name,
  secret: r.secret,
  createdAt: r.created_at.toISOString(),
  revokedAt: r.revoked_at ? r.revoked_at.toISOString() : null,
  expiresAt: r.expires_at ? r.expires_at.toISOString() : null,
  previousSecret: r.previous_secret,
  previousSecretValidUntil: r.previous_valid_until ? r.previous_valid_until.toISOString() : null,
});

/** Signing secrets in PostgreSQL (`<schema>.kafka_signing_keys`), for workers on the PostgreSQL store. */
export class PostgresKafkaSigningSecretStore implements KafkaSigningSecretStore {
  private ready?: Promise<void>;
  private readonly table: string;

  constructor(
    private readonly pool: Pool,
    private readonly schema = 'rewind',
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`"${schema}" is not a valid schema name: use lower-case letters, digits and "_".`);
    this.table = `"${schema}".kafka_signing_keys`;
  }

  private ensure(): Promise<void> {
    this.ready ??= (async () => {
      await this.pool.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
      await this.pool.query(`CREATE TABLE IF NOT EXISTS ${this.table} (
        key_id     text PRIMARY KEY,
        tenant_id  text NOT NULL,
        name       text NOT NULL,
        secret     text NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz
      )`);
      await this.pool.query(`ALTER TABLE ${this.table}
        ADD COLUMN IF NOT EXISTS expires_at timestamptz,
        ADD COLUMN IF NOT EXISTS previous_secret text,
        ADD COLUMN IF NOT EXISTS previous_valid_until timestamptz`);
    })();
    return this.ready;
  }

  async find(keyId: string): Promise<SigningSecret | null> {
    await this.ensure();
    const { rows } = await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE key_id = $1 AND revoked_at IS NULL`, [keyId]);
    return rows[0] ? usableNow(toSecret(rows[0])) : null;
  }

  async create(input: { tenantId: string; name?: string; secret?: string; expiresAt?: string | null }): Promise<SigningSecret> {
    await this.ensure();
    const key = newSigningSecret(input);
    await this.pool.query(`INSERT INTO ${this.table} (key_id, tenant_id, name, secret, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
      key.keyId,
      key.tenantId,
      key.name,
      key.secret,
      key.createdAt,
      key.expiresAt,
    ]);
    return key;
  }

  async rotate(keyId: string, graceSeconds: number): Promise<SigningSecret | null> {
    await this.ensure();
    checkSigningGrace(graceSeconds);
    const { rows } = await this.pool.query<Row>(
      `UPDATE ${this.table} SET previous_secret = secret, previous_valid_until = now() + make_interval(secs => $2), secret = $3
       WHERE key_id = $1 AND revoked_at IS NULL RETURNING *`,
      [keyId, graceSeconds, newSecretText()],
    );
    return rows[0] ? toSecret(rows[0]) : null;
  }

  async revoke(keyId: string): Promise<boolean> {
    await this.ensure();
    const { rows } = await this.pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${this.table} WHERE key_id = $1`, [keyId]);
    await this.pool.query(`UPDATE ${this.table} SET revoked_at = now() WHERE key_id = $1 AND revoked_at IS NULL`, [keyId]);
    return Number(rows[0]!.n) > 0;
  }

  async list(tenantId?: string): Promise<SigningSecretRecord[]> {
    await this.ensure();
    const { rows } = tenantId
      ? await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE tenant_id = $1 ORDER BY created_at`, [tenantId])
      : await this.pool.query<Row>(`SELECT * FROM ${this.table} ORDER BY created_at`);
    return rows.map((r) => withoutSecret(toSecret(r)));
  }

  /** The pool belongs to the event store, which closes it. */
  async close(): Promise<void> {}
}
