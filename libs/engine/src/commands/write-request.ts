import type { SessionState } from '@rewind/domain';

/** Who is acting: every read and write is scoped to the caller's tenant. */
export interface Caller {
  tenantId: string;
  /** Recorded in each event's metadata (e.g. `key:<id>`). */
  actor: string;
}

export interface WriteOptions {
  idempotencyKey?: string;
  /** If-Match: the stream version the caller believes is current. */
  expectedVersion?: number;
  commandId?: string;
  correlationId?: string;
  causationId?: string;
}

export interface WriteResult {
  sessionId: string;
  /** Stream version after the write. */
  version: number;
  head: number;
  status: SessionState['status'];
  /** True when this answers a retry of an idempotent request: nothing new was written. */
  duplicate: boolean;
  events: { eventId: string; type: string; streamVersion: number; parentVersion: number | null }[];
  /** Set when the write started a rollback (see GET /v1/rollbacks/:rollbackId). */
  rollbackId?: string;
}
