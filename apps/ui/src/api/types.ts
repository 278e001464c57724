/**
 * The shapes the HTTP API answers with, taken from the packages that produce them, so that
 * a change on the server side fails the UI's type check instead of its users.
 */
import type { Change, ErrorDetail, HeadMovePlan, PlannedEffect, RollbackRecord, TimelineView } from '@rewind/domain';
import type { presentState, SessionService, StateWindow, WriteResult } from '@rewind/engine';
import type { StoredEvent } from '@rewind/event-store';
import type { AuditEntry, Page, SessionSummary, ToolCallEntry } from '@rewind/projections';

export type { AuditEntry, Change, ErrorDetail, HeadMovePlan, Page, PlannedEffect, SessionSummary, StateWindow, StoredEvent, ToolCallEntry, WriteResult };

/** GET /v1/sessions/:id and …/state?at= */
export type SessionStateView = ReturnType<typeof presentState>;
export type ToolCallView = SessionStateView['toolCalls'][number];

/**
 * GET …/state?at=&turns=last:N: only the last N turns and the tool calls started during them,
 * plus what was left out; without `turns` the whole state, and no `window`.
 */
export type WindowedStateView = SessionStateView & { window?: StateWindow };

/** GET /v1/sessions/:id/timeline */
export type Timeline = Awaited<ReturnType<SessionService['timeline']>>;
export type TimelineNode = Timeline['nodes'][number];
export type Branch = TimelineView['branches'][number];

/** GET /v1/sessions/:id/diff */
export type Diff = Awaited<ReturnType<SessionService['diff']>>;
/** One change of a diff, said in words, with the item's JSON before and after. */
export type DiffItem = Diff['items'][number];

/** GET /v1/sessions/:id/events */
export interface EventsPage {
  sessionId: string;
  events: StoredEvent[];
  nextFrom: number | null;
}

/** POST …/rollback | undo | redo with dryRun: true */
export interface DryRun {
  dryRun: true;
  plan: HeadMovePlan;
}

/** One effect of GET /v1/rollbacks/:id (apps/api rollback.presenter). */
export interface RollbackEffectView {
  toolCallId: string;
  tool: string;
  startedVersion: number;
  effect: PlannedEffect['effect']['kind'];
  channel: string | null;
  action: PlannedEffect['action'];
  reason: string | null;
  status: 'pending' | 'compensated' | 'skipped' | 'failed' | 'resolved';
  attempts: number;
  detail: unknown;
}

/** GET /v1/rollbacks/:id */
export type RollbackView = Pick<
  RollbackRecord,
  'rollbackId' | 'kind' | 'status' | 'fromVersion' | 'toVersion' | 'requestedBy' | 'requestedVersion' | 'completedVersion' | 'acknowledgeIrreversible'
> & { sessionId: string; effects: RollbackEffectView[] };

/** A head move that was accepted: the rollback (if any) runs after it. */
export type HeadMoveResult = WriteResult & { rollback?: RollbackView | null };
