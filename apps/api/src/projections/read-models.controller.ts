import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '@rewind/engine';
import { CurrentCaller } from '../auth/caller.decorator';
import { AuditQueryDto, SessionListQueryDto, ToolCallsQueryDto } from './dto/queries.dto';
import { AuditPageDto, ProjectionsDto, SessionPageDto, ToolCallPageDto } from './dto/responses.dto';
import { AuditLogQuery } from './queries/audit-log.query';
import { ListSessionSummariesQuery } from './queries/list-session-summaries.query';
import { ProjectionStatusQuery } from './queries/projection-status.query';
import { ToolCallLedgerQuery } from './queries/tool-call-ledger.query';

/** Queries served from the projections (TypeORM read models), always within the caller's tenant. */
@ApiTags('queries')
@ApiBearerAuth()
@Controller('v1')
export class ReadModelsController {
  constructor(private readonly queries: QueryBus) {}

  @Get('sessions')
  @ApiOperation({ operationId: 'listSessions', summary: "List the tenant's sessions (from the sessions projection): filters, sort, cursor paging" })
  @ApiOkResponse({ type: SessionPageDto })
  async sessions(@CurrentCaller() caller: Caller, @Query() query: SessionListQueryDto): Promise<SessionPageDto> {
    return this.queries.execute(
      new ListSessionSummariesQuery({
        tenantId: caller.tenantId,
        limit: query.limit ?? 50,
        ...(query.status ? { status: query.status } : {}),
        ...(query.q ? { q: query.q } : {}),
        ...(query.updatedAfter ? { updatedAfter: query.updatedAfter } : {}),
        ...(query.updatedBefore ? { updatedBefore: query.updatedBefore } : {}),
        ...(query.sort ? { sort: query.sort } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      }),
    );
  }

  @Get('audit')
  @ApiOperation({
    operationId: 'getAuditLog',
    summary: 'The audit log: every event of the tenant in log order or newest first, who did what and when (from the audit projection)',
  })
  @ApiOkResponse({ type: AuditPageDto })
  async audit(@CurrentCaller() caller: Caller, @Query() query: AuditQueryDto): Promise<AuditPageDto> {
    return this.queries.execute(
      new AuditLogQuery({
        tenantId: caller.tenantId,
        limit: query.limit ?? 100,
        ...(query.sessionId ? { sessionId: query.sessionId } : {}),
        ...(query.type ? { type: query.type.split(',') } : {}),
        ...(query.actor ? { actor: query.actor } : {}),
        ...(query.order ? { order: query.order } : {}),
        ...(query.from ? { from: query.from } : {}),
        ...(query.to ? { to: query.to } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      }),
    );
  }

  @Get('tool-calls')
  @ApiOperation({ operationId: 'listToolCalls', summary: 'The tool-call ledger: every call, its declared effect, its outcome and what rollbacks did about it' })
  @ApiOkResponse({ type: ToolCallPageDto })
  async toolCalls(@CurrentCaller() caller: Caller, @Query() query: ToolCallsQueryDto): Promise<ToolCallPageDto> {
    return this.queries.execute(
      new ToolCallLedgerQuery({
        tenantId: caller.tenantId,
        limit: query.limit ?? 100,
        ...(query.sessionId ? { sessionId: query.sessionId } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.effect ? { effect: query.effect } : {}),
        ...(query.compensation ? { compensation: query.compensation } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      }),
    );
  }

  @Get('projections')
  @ApiOperation({
    operationId: 'getProjectionStatus',
    summary: "Each projection's position, the head of the event log and the lag (operational, not tenant data)",
  })
  @ApiOkResponse({ type: ProjectionsDto })
  async projections(): Promise<ProjectionsDto> {
    return { projections: await this.queries.execute(new ProjectionStatusQuery()) };
  }
}
