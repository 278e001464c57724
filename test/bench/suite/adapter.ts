/**
 * What the library-level workloads (W1, W2, W3, W4 library, W7) need from a system: Rewind on
 * SQLite or PostgreSQL, Emmett's PostgreSQL event store, LangGraph's PostgresSaver.
 */
import type { Conversation } from './conversation';
import type { StoreName, SystemName } from './results';

export interface SystemAdapter {
  readonly system: SystemName;
  readonly store: StoreName;
  /** For people: how this system is configured in the run. */
  readonly description: string;
  /**
   * Prepares (outside any timing) what the system needs to write a session of up to `turns`
   * turns of `conversation` (the suite's HOTEL_SEARCH when absent).
   */
  prepare?(sessionId: string, turns: number, conversation?: Conversation): Promise<void>;
  /** Whether `prepare` takes conversations other than the suite's (W7 writes ORDER_SUPPORT where it does). */
  readonly speaksOtherConversations?: boolean;
  /** Creates the session (Rewind: SessionStarted; Emmett: the same event; LangGraph: the input checkpoint). Version 1. */
  startSession(sessionId: string): Promise<void>;
  /** Records step `s` (0..4) of turn `t` (0-based) as one write (one event / one checkpoint). */
  appendStep(sessionId: string, t: number, s: number): Promise<void>;
  /** The current state, rebuilt from storage with no cache. */
  restoreHead(sessionId: string): Promise<unknown>;
  /** The state at `version` (1 = right after the start; n = after the n-th write). */
  restoreAt(sessionId: string, version: number): Promise<unknown>;
  /**
   * Loads a session of `turns` turns as fast as the system allows (the same content as step by
   * step). Returns the head version. Systems that can only write step by step do so.
   */
  bulkLoad(sessionId: string, turns: number): Promise<number>;
  /** Bytes on disk by table (or file), for W7 deltas. `settle` checkpoints/compacts first where that applies. */
  storageBytes(settle: boolean): Promise<Record<string, number>>;
  /**
   * Bytes of the stored rows by table, for W7 deltas: PostgreSQL `pg_column_size` of each whole
   * row (values as stored, compressed where they are), SQLite the record payloads (dbstat).
   */
  rowBytes(): Promise<Record<string, number>>;
  close(): Promise<void>;
}
