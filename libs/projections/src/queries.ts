import { Brackets, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import { AuditLogEntity, HeadMessageEntity, SessionEntity, TimelineNodeEntity, ToolCallLedgerEntity } from './entities';
import { normalizeTimestamp } from './projected-event';
import type { ReadModelDatabase } from './read-model-database';

/** A page of results; pass `nextCursor` back as `cursor` for the next one (null: no more). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The cursor was not made by this API (or for another sort order). */
export class InvalidCursorError extends Error {
  constructor() {
    super('The cursor is not valid: pass back the nextCursor of the previous page unchanged (and keep the same sort order).');
    this.name = 'InvalidCursorError';
  }
}

type CursorValue = string | number;

function encodeCursor(kind: string, values: CursorValue[]): string {
  return Buffer.from(JSON.stringify([kind, ...values]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, kind: string, types: ('string' | 'number')[]): CursorValue[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (!Array.isArray(parsed) || parsed[0] !== kind || parsed.length !== types.length + 1) throw new InvalidCursorError();
  const values = parsed.slice(1);
  if (!values.every((v, i) => typeof v === types[i])) throw new InvalidCursorError();
  return values as CursorValue[];
}

export type SessionSort = 'sessionId' | 'createdAt' | 'updatedAt';

export interface SessionListQuery {
  tenantId: string;
  status?: string;
  /** Title contains (case-insensitive). */
  q?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  /** sessionId: ascending; createdAt, updatedAt: newest first. */
  sort?: SessionSort;
  cursor?: string;
  limit: number;
}

export interface SessionSummary {
  sessionId: string;
  title: string | null;
  status: string;
  head: number;
  version: number;
  /** Messages recorded in the session, on every branch. */
  messageCount: number;
  /** Tool calls started in the session, on every branch. */
  toolCallCount: number;
  /** Messages on the head's branch: what the session page shows. */
  currentBranchMessageCount: number;
  /** Tool calls started on the head's branch. */
  currentBranchToolCallCount: number;
  branchCount: number;
  failedEffects: number;
  createdAt: string;
  updatedAt: string;
}

export interface AuditQuery {
  tenantId: string;
  sessionId?: string;
  /** One event type, or several (any of them). */
  type?: string | readonly string[];
  actor?: string;
  /** occurredAt >= from */
  from?: string;
  /** occurredAt < to */
  to?: string;
  /** asc: log order (the default); desc: newest first, so today's events are on the first page. */
  order?: 'asc' | 'desc';
  cursor?: string;
  limit: number;
}

/** No position in the whole log: the gap between two of a tenant's entries would count every other tenant's writes. */
export interface AuditEntry {
  sessionId: string | null;
  streamId: string;
  streamVersion: number;
  eventId: string;
  type: string;
  actor: string;
  occurredAt: string;
  commandId: string | null;
  correlationId: string | null;
  causationId: string | null;
}

export interface ToolCallQuery {
  tenantId: string;
  sessionId?: string;
  status?: string;
  effect?: string;
  compensation?: string;
  cursor?: string;
  limit: number;
}

export interface ToolCallEntry {
  sessionId: string;
  toolCallId: string;
  tool: string;
  turnId: string | null;
  startedVersion: number;
  finishedVersion: number | null;
  status: string;
  effect: string;
  confirmed: boolean;
  error: string | null;
  compensation: { status: string; attempts: number; rollbackId: string | null; detail: string | null } | null;
  startedAt: string;
  updatedAt: string;
}

const SESSION_SORT: Record<SessionSort, { column: string | null; direction: 'ASC' | 'DESC' }> = {
  sessionId: { column: null, direction: 'ASC' },
  createdAt: { column: 'createdAt', direction: 'DESC' },
  updatedAt: { column: 'lastActivityAt', direction: 'DESC' },
};

/** Tenant-scoped queries on the read models (TypeORM). Every query filters on the caller's tenant. */
export class ReadModelQueries {
  constructor(private readonly db: ReadModelDatabase) {}

  private like(builder: SelectQueryBuilder<ObjectLiteral>, column: string, name: string, text: string): void {
    const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    builder.andWhere(`${column} ${this.db.dialect.postgres ? 'ILIKE' : 'LIKE'} :${name} ESCAPE '\\'`, { [name]: pattern });
  }

  async listSessions(query: SessionListQuery): Promise<Page<SessionSummary>> {
    const sort = SESSION_SORT[query.sort ?? 'sessionId'];
    const kind = `sessions:${query.sort ?? 'sessionId'}`;
    const builder = this.db.dataSource.getRepository(SessionEntity).createQueryBuilder('s').where('s.tenantId = :tenantId', { tenantId: query.tenantId });
    if (query.status) builder.andWhere('s.status = :status', { status: query.status });
    if (query.q) this.like(builder, 's.title', 'q', query.q);
    if (query.updatedAfter) builder.andWhere('s.lastActivityAt > :updatedAfter', { updatedAfter: normalizeTimestamp(query.updatedAfter) });
    if (query.updatedBefore) builder.andWhere('s.lastActivityAt < :updatedBefore', { updatedBefore: normalizeTimestamp(query.updatedBefore) });
    if (sort.column === null) {
      if (query.cursor) builder.andWhere('s.sessionId > :after', { after: decodeCursor(query.cursor, kind, ['string'])[0] });
      builder.orderBy('s.sessionId', 'ASC');
    } else {
      if (query.cursor) {
        const [value, sessionId] = decodeCursor(query.cursor, kind, ['string', 'string']);
        builder.andWhere(
          new Brackets((w) => w.where(`s.${sort.column} < :cursorValue`).orWhere(`s.${sort.column} = :cursorValue AND s.sessionId < :cursorSession`)),
          { cursorValue: value, cursorSession: sessionId },
        );
      }
      builder.orderBy(`s.${sort.column}`, 'DESC').addOrderBy('s.sessionId', 'DESC');
    }
    const rows = await builder.limit(query.limit + 1).getMany();
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const nextCursor =
      rows.length > query.limit && last
        ? sort.column === null
          ? encodeCursor(kind, [last.sessionId])
          : encodeCursor(kind, [sort.column === 'createdAt' ? last.createdAt : last.lastActivityAt, last.sessionId])
        : null;
    const current = await this.currentBranchCounts(
      query.tenantId,
      page.map((s) => s.sessionId),
    );
    return {
      items: page.map((s) => ({
        sessionId: s.sessionId,
        title: s.title,
        status: s.status,
        head: s.head,
        version: s.version,
        messageCount: s.messageCount,
        toolCallCount: s.toolCallCount,
        currentBranchMessageCount: current.messages.get(s.sessionId) ?? 0,
        currentBranchToolCallCount: current.toolCalls.get(s.sessionId) ?? 0,
        branchCount: s.branchCount,
        failedEffects: s.failedEffects,
        createdAt: s.createdAt,
        updatedAt: s.lastActivityAt,
      })),
      nextCursor,
    };
  }

  /**
   * Messages and started tool calls on each session's head path (the projection keeps the head's
   * messages and flags the head's timeline nodes): one grouped count each for a page of sessions.
   */
  private async currentBranchCounts(tenantId: string, sessionIds: string[]): Promise<{ messages: Map<string, number>; toolCalls: Map<string, number> }> {
    if (sessionIds.length === 0) return { messages: new Map(), toolCalls: new Map() };
    const counted = (rows: { sessionId: string; n: string | number }[]) => new Map(rows.map((r) => [r.sessionId, Number(r.n)]));
    const messages = await this.db.dataSource
      .getRepository(HeadMessageEntity)
      .createQueryBuilder('m')
      .select('m.sessionId', 'sessionId')
      .addSelect('COUNT(*)', 'n')
      .where('m.tenantId = :tenantId AND m.sessionId IN (:...sessionIds)', { tenantId, sessionIds })
      .groupBy('m.sessionId')
      .getRawMany<{ sessionId: string; n: string | number }>();
    const toolCalls = await this.db.dataSource
      .getRepository(TimelineNodeEntity)
      .createQueryBuilder('t')
      .select('t.sessionId', 'sessionId')
      .addSelect('COUNT(*)', 'n')
      .where('t.tenantId = :tenantId AND t.sessionId IN (:...sessionIds) AND t.onHeadPath AND t.type = :type', {
        tenantId,
        sessionIds,
        type: 'ToolCallStarted',
      })
      .groupBy('t.sessionId')
      .getRawMany<{ sessionId: string; n: string | number }>();
    return { messages: counted(messages), toolCalls: counted(toolCalls) };
  }

  async auditLog(query: AuditQuery): Promise<Page<AuditEntry>> {
    const builder = this.db.dataSource.getRepository(AuditLogEntity).createQueryBuilder('a').where('a.tenantId = :tenantId', { tenantId: query.tenantId });
    if (query.sessionId) builder.andWhere('a.sessionId = :sessionId', { sessionId: query.sessionId });
    const types = typeof query.type === 'string' ? [query.type] : (query.type ?? []);
    if (types.length === 1) builder.andWhere('a.type = :type', { type: types[0] });
    else if (types.length > 1) builder.andWhere('a.type IN (:...types)', { types });
    if (query.actor) builder.andWhere('a.actor = :actor', { actor: query.actor });
    if (query.from) builder.andWhere('a.occurredAt >= :from', { from: normalizeTimestamp(query.from) });
    if (query.to) builder.andWhere('a.occurredAt < :to', { to: normalizeTimestamp(query.to) });
    // A cursor is bound to its order: one from a newest-first page cannot continue a log-order one.
    const newestFirst = query.order === 'desc';
    const kind = newestFirst ? 'audit-desc' : 'audit';
    // The cursor names the page's last event (the tenant's own id), not its place in the whole log:
    // the log's order stays the order, looked up within the tenant; a foreign event continues nothing.
    if (query.cursor) {
      const [afterEventId] = decodeCursor(query.cursor, kind, ['string']);
      const after = await this.db.dataSource
        .getRepository(AuditLogEntity)
        .createQueryBuilder('c')
        .select('c.globalPosition', 'position')
        .where('c.tenantId = :tenantId AND c.eventId = :afterEventId', { tenantId: query.tenantId, afterEventId })
        .getRawOne<{ position: number | string }>();
      if (!after) throw new InvalidCursorError();
      builder.andWhere(`a.globalPosition ${newestFirst ? '<' : '>'} :after`, { after: after.position });
    }
    const rows = await builder
      .orderBy('a.globalPosition', newestFirst ? 'DESC' : 'ASC')
      .limit(query.limit + 1)
      .getMany();
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map((a) => ({
        sessionId: a.sessionId,
        streamId: a.streamId,
        streamVersion: a.streamVersion,
        eventId: a.eventId,
        type: a.type,
        actor: a.actor,
        occurredAt: a.occurredAt,
        commandId: a.commandId,
        correlationId: a.correlationId,
        causationId: a.causationId,
      })),
      nextCursor: rows.length > query.limit && last ? encodeCursor(kind, [last.eventId]) : null,
    };
  }

  async toolCalls(query: ToolCallQuery): Promise<Page<ToolCallEntry>> {
    const builder = this.db.dataSource
      .getRepository(ToolCallLedgerEntity)
      .createQueryBuilder('t')
      .where('t.tenantId = :tenantId', { tenantId: query.tenantId });
    if (query.sessionId) builder.andWhere('t.sessionId = :sessionId', { sessionId: query.sessionId });
    if (query.status) builder.andWhere('t.status = :status', { status: query.status });
    if (query.effect) builder.andWhere('t.effectKind = :effect', { effect: query.effect });
    if (query.compensation) builder.andWhere('t.compensationStatus = :compensation', { compensation: query.compensation });
    if (query.cursor) {
      const [sessionId, version] = decodeCursor(query.cursor, 'tool-calls', ['string', 'number']);
      builder.andWhere(
        new Brackets((w) => w.where('t.sessionId > :cursorSession').orWhere('t.sessionId = :cursorSession AND t.startedVersion > :cursorVersion')),
        { cursorSession: sessionId, cursorVersion: version },
      );
    }
    const rows = await builder
      .orderBy('t.sessionId', 'ASC')
      .addOrderBy('t.startedVersion', 'ASC')
      .limit(query.limit + 1)
      .getMany();
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map((t) => ({
        sessionId: t.sessionId,
        toolCallId: t.toolCallId,
        tool: t.tool,
        turnId: t.turnId,
        startedVersion: t.startedVersion,
        finishedVersion: t.finishedVersion,
        status: t.status,
        effect: t.effectKind,
        confirmed: t.confirmed,
        error: t.error,
        compensation: t.compensationStatus
          ? { status: t.compensationStatus, attempts: t.compensationAttempts, rollbackId: t.rollbackId, detail: t.compensationDetail }
          : null,
        startedAt: t.startedAt,
        updatedAt: t.updatedAt,
      })),
      nextCursor: rows.length > query.limit && last ? encodeCursor('tool-calls', [last.sessionId, last.startedVersion]) : null,
    };
  }
}
