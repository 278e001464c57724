import type { Pool } from 'pg';
import { applyMigrationsInPool } from '@rewind/event-store/postgres';
import { signingSecretMigrations } from './postgres-signing-secret-migrations';
import {
  checkSigningGrace,
  newSecretText,
  newSigningSecret,
  usableNow,
  withoutSecret,
  withReplaced,
  type KafkaSigningSecretStore,
  type ReplacedSecret,
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

const toSecret = (r: Row): Omit<SigningSecret, 'previousSecrets'> => ({
  keyId: r.key_id,
  tenantId: r.tenant_id,
  name: r.name,
  secret: r.secret,
  createdAt: r.created_at.toISOString(),
  revokedAt: r.revoked_at ? r.revoked_at.toISOString() : null,
  expiresAt: r.expires_at ? r.expires_at.toISOString() : null,
  previousSecretValidUntil: r.previous_valid_until ? r.previous_valid_until.toISOString() : null,
});

/** Signing secrets in PostgreSQL (`<schema>.kafka_signing_keys`), for workers on the PostgreSQL store. */
export class PostgresKafkaSigningSecretStore implements KafkaSigningSecretStore {
  private ready?: Promise<void>;
  private readonly table: string;
  private readonly previous: string;

  constructor(
    private readonly pool: Pool,
    private readonly schema = 'rewind',
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`"${schema}" is not a valid schema name: use lower-case letters, digits and "_".`);
    this.table = `"${schema}".kafka_signing_keys`;
    this.previous = `"${schema}".kafka_signing_previous_secrets`;
  }

  /** Migrates the tables on first use (advisory-locked); a failed attempt is retried on the next call. */
  private ensure(): Promise<void> {
    this.ready ??= applyMigrationsInPool(this.pool, signingSecretMigrations(this.schema)).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async replaced(keyId: string): Promise<ReplacedSecret[]> {
    const { rows } = await this.pool.query<{ secret: string; valid_until: Date }>(
      `SELECT secret, valid_until FROM ${this.previous} WHERE key_id = $1 AND valid_until > now()`,
      [keyId],
    );
    return rows.map((r) => ({ secret: r.secret, validUntil: r.valid_until.toISOString() }));
  }

  async find(keyId: string): Promise<SigningSecret | null> {
    await this.ensure();
    const { rows } = await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE key_id = $1 AND revoked_at IS NULL`, [keyId]);
    return rows[0] ? usableNow(toSecret(rows[0]), await this.replaced(keyId)) : null;
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
    // The replaced secret keeps its own grace, beside those of earlier rotations still running; ended ones go.
    await this.pool.query(`DELETE FROM ${this.previous} WHERE key_id = $1 AND valid_until <= now()`, [keyId]);
    const { rows } = await this.pool.query<Row>(
      `WITH replaced AS (
         SELECT key_id, secret FROM ${this.table} WHERE key_id = $1 AND revoked_at IS NULL FOR UPDATE
       ), kept AS (
         INSERT INTO ${this.previous} (key_id, secret, valid_until)
         SELECT key_id, secret, now() + make_interval(secs => $2) FROM replaced
         ON CONFLICT (key_id, secret) DO UPDATE SET valid_until = excluded.valid_until
       )
       UPDATE ${this.table} k SET secret = $3,
         previous_valid_until = greatest(CASE WHEN k.previous_valid_until > now() THEN k.previous_valid_until END, now() + make_interval(secs => $2))
       FROM replaced WHERE k.key_id = replaced.key_id RETURNING k.*`,
      [keyId, graceSeconds, newSecretText()],
    );
    return rows[0] ? withReplaced(toSecret(rows[0]), await this.replaced(keyId)) : null;
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
    return rows.map((r) => withoutSecret(withReplaced(toSecret(r), [])));
  }

  /** The pool belongs to the event store, which closes it. */
  async close(): Promise<void> {}
}
