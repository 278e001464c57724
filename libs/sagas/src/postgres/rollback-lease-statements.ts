/**
 * The SQL of the rollback leases over the quoted schema `s`. Parameters: $1 tenant ids, $2
 * rollback ids (pairwise, distinct, sorted: concurrent takers lock rows in one order), $3 the
 * holder, $4 the lease in ms. clock_timestamp(), not now(): the time of the statement itself.
 */
export function rollbackLeaseStatements(s: string) {
  const table = `${s}.rollback_leases`;
  return {
    /** Inserts a missing lease, or takes one whose holder is `$3` or whose time ran out (the row lock makes one taker win). */
    acquire: `
      INSERT INTO ${table} AS l (tenant_id, rollback_id, holder, expires_at)
      SELECT k.tenant_id, k.rollback_id, $3, clock_timestamp() + $4::bigint * interval '1 millisecond'
        FROM unnest($1::text[], $2::text[]) AS k (tenant_id, rollback_id)
      ON CONFLICT (tenant_id, rollback_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
        WHERE l.holder = excluded.holder OR l.expires_at < clock_timestamp()
      RETURNING l.tenant_id, l.rollback_id`,
    renew: `
      UPDATE ${table} AS l SET expires_at = clock_timestamp() + $4::bigint * interval '1 millisecond'
        FROM unnest($1::text[], $2::text[]) AS k (tenant_id, rollback_id)
       WHERE l.tenant_id = k.tenant_id AND l.rollback_id = k.rollback_id AND l.holder = $3
      RETURNING l.tenant_id, l.rollback_id`,
    release: `
      DELETE FROM ${table} AS l USING unnest($1::text[], $2::text[]) AS k (tenant_id, rollback_id)
       WHERE l.tenant_id = k.tenant_id AND l.rollback_id = k.rollback_id AND l.holder = $3`,
  };
}
