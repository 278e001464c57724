import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Caller } from '@rewind/engine';
import { CurrentCaller } from '../auth/caller.decorator';
import { IdParamPipe } from '../sessions/path-params';
import { VerifyChainsQuery } from './queries/verify-chains.query';

/** IdParamPipe for an optional query parameter. */
class IdParamPipeOptional extends IdParamPipe {
  override transform(value: string): string {
    return value === undefined ? value : super.transform(value);
  }
}

/** Tamper evidence for auditors (`audit` scope): the tenant's hash chains, recomputed. */
@ApiTags('queries')
@ApiBearerAuth()
@Controller('v1/audit')
export class AuditChainsController {
  constructor(private readonly queries: QueryBus) {}

  @Get('chains')
  @ApiOperation({
    operationId: 'verifyAuditChains',
    summary: "Recompute the links of the tenant's events (or one session's) and its snapshots' seals: ok, or the first broken link",
  })
  @ApiQuery({ name: 'sessionId', required: false })
  chains(@CurrentCaller() caller: Caller, @Query('sessionId', new IdParamPipeOptional()) sessionId?: string) {
    return this.queries.execute(new VerifyChainsQuery(caller.tenantId, sessionId));
  }
}
