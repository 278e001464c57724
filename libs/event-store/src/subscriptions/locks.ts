import type { Pool, PoolClient } from 'pg';
import type { ExclusiveLock } from './subscription';

const heldInProcess = new Map<string, object>();

/** A lock among the holders of one process (SQLite: one writer per file, so one process follows). */
export function inProcessLock(key: string): ExclusiveLock {
  const holder = {};
  return {
    async tryAcquire() {
      const owner = heldInProcess.get(key);
      if (owner && owner !== holder) return false;
      heldInProcess.set(key, holder);
      return true;
    },
    async release() {
      if (heldInProcess.get(key) === holder) heldInProcess.delete(key);
    },
  };
}

/**
 * A session-level PostgreSQL advisory lock on a connection of its own: held while that
 * connection lives, so a process that dies frees it and a standby takes over.
 */
export function postgresAdvisoryLock(pool: Pool, scope: string, name: string): ExclusiveLock {
  let client: PoolClient | null = null;
  let broken = false;
  const onError = () => (broken = true);
  const drop = (destroy: boolean) => {
    const held = client;
    client = null;
    broken = false;
    held?.removeListener('error', onError);
    held?.release(destroy);
  };
  return {
    async tryAcquire() {
      if (client && !broken) return true;
      if (client) drop(true);
      const candidate = await pool.connect();
      candidate.on('error', onError);
      try {
        const { rows } = await candidate.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS locked', [scope, name]);
        if (rows[0]?.locked) {
          client = candidate;
          return true;
        }
        candidate.removeListener('error', onError);
        candidate.release();
        return false;
      } catch (error) {
        candidate.removeListener('error', onError);
        candidate.release(true);
        throw error;
      }
    },
    async release() {
      if (!client) return;
      // Closing the connection frees its session locks: no unlock round trip needed.
      drop(true);
    },
  };
}
