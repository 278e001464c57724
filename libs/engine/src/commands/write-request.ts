import type { SessionState } from '@rewind/domain';

/** Who is acting: every read and write is scoped to the caller's tenant. */
export interface Caller {
  tenantId: string;
  /** Recorded in each event's metadata (e.g. `key:<id>`). */
  actor: string;
  /** `saga`: the rollback saga, the only caller whose compensation records and completions are accepted. */
  scope?: 'saga';
}

export interface WriteOptions {
  idempotencyKey?: string;
  /** If-Match: the stream version the caller believes is current. */
  expectedVersion?: number;
  commandId?: string;
  correlationId?: string;
  causationId?: string;
}

/** An event a write appended, as its result lists it. */
export interface WrittenEvent {
  eventId: string;
  type: string;
  streamVersion: number;
  parentVersion: number | null;
  /**
   * True when the event is a timeline node: a step one can read (`state?at=`), roll back,
   * undo or return to. Checkpoints, rollback records and compensation outcomes are records
   * about the timeline, not nodes of it.
   */
  step: boolean;
}

export interface WriteResult {
  sessionId: string;
  /** Stream version after the write (what If-Match and ETag compare); not always a timeline node. */
  version: number;
  /** The timeline node whose state is current after the write: the version to return to. */
  head: number;
  /** The last timeline node this write recorded; null when it recorded none (a checkpoint, a head move). */
  stepVersion: number | null;
  status: SessionState['status'];
  /** True when this answers a retry of an idempotent request: nothing new was written. */
  duplicate: boolean;
  events: WrittenEvent[];
  /** Set when the write started a rollback (see GET /v1/rollbacks/:rollbackId). */
  rollbackId?: string;
}
