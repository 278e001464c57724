import type { Pool, PoolClient } from 'pg';

/**
 * Runs `fn` in one transaction on `client`: COMMIT when it resolves, ROLLBACK (and its error
 * rethrown) when it throws. The client stays the caller's; `rollbackFailed` hears of a
 * ROLLBACK that failed too (the connection is then unusable).
 */
export async function inTransaction<T>(client: PoolClient, fn: (client: PoolClient) => Promise<T>, rollbackFailed?: (error: Error) => void): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => rollbackFailed?.(rollbackError));
    throw error;
  }
}

/**
 * Runs `fn` in one transaction on a client of `pool`, released afterwards; a client whose
 * ROLLBACK failed is released as broken, so that the pool does not hand it out again.
 */
export async function withTransaction<T>(pool: Pick<Pool, 'connect'>, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await inTransaction(client, fn, (error) => (broken = error));
  } finally {
    client.release(broken);
  }
}
