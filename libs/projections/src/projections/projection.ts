import type { ProjectedEvent } from '../projected-event';
import type { TableSpec } from '../schema';
import type { Dialect, Step, TableVariant } from '../sql';

/**
 * One projection: a set of read-model tables it alone writes, fed from the global log.
 * `apply` runs inside the transaction that also moves the projection's checkpoint. It must
 * be deterministic (the same events give the same rows, however they are cut into batches)
 * and must not throw on odd event data: unknown types and malformed fields are skipped.
 * Per event the work is O(1); the only per-session work is on head moves.
 */
export interface Projection {
  readonly name: string;
  readonly description: string;
  readonly tables: readonly TableSpec[];
  /**
   * With `bulk` (a rebuild filling empty shadow tables), tables that can be derived from
   * others in one statement are left for `finishBulk`.
   */
  apply(dialect: Dialect, events: readonly ProjectedEvent[], variant: TableVariant, options?: { bulk?: boolean }): Step<void>;
  /** After a bulk fill: derive what `apply` left out (set-based, much faster than row by row). */
  finishBulk?(dialect: Dialect, variant: TableVariant): Step<void>;
}

export function sessionKey(tenantId: string, sessionId: string): string {
  return `${tenantId}\u0000${sessionId}`;
}
