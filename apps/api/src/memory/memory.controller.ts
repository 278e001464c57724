import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '@rewind/engine';
import type { AuthenticatedKey } from '@rewind/tenancy';
import { CurrentApiKey, CurrentCaller } from '../auth/caller.decorator';
import { IdParamPipe } from '../sessions/path-params';
import { MemoryPolicyDto, RecallDto } from './memory.dto';
import { MemoryStatusQuery } from './memory-status.query';
import { RecallQuery } from './recall.query';
import { SetMemoryPolicyCommand } from './set-memory-policy.command';

/** Long-term memory: recall, policy, indexing status. Maps HTTP to queries and commands only. */
@ApiTags('memory')
@ApiBearerAuth()
@Controller('v1')
export class MemoryController {
  constructor(
    private readonly queries: QueryBus,
    private readonly commands: CommandBus,
  ) {}

  @Post('sessions/:id/recall')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'recallMemory',
    summary: 'Recall from long-term memory: hybrid, branch-aware (what was rolled back is not recalled), with query rewriting',
  })
  recall(@CurrentCaller() caller: Caller, @Param('id', IdParamPipe) id: string, @Body() body: RecallDto) {
    return this.queries.execute(new RecallQuery(caller, id, body));
  }

  @Put('sessions/:id/memory-policy')
  @ApiOperation({
    operationId: 'setSessionMemoryPolicy',
    summary: 'Memory policy of a session: persistent (default) or none (nothing indexed or recalled; removes what was indexed)',
  })
  sessionPolicy(@CurrentCaller() caller: Caller, @Param('id', IdParamPipe) id: string, @Body() body: MemoryPolicyDto) {
    return this.commands.execute(new SetMemoryPolicyCommand(caller, id, body.policy));
  }

  @Put('memory/policy')
  @ApiOperation({ operationId: 'setTenantMemoryPolicy', summary: 'Memory policy of the caller’s tenant (a session’s own policy wins)' })
  tenantPolicy(@CurrentCaller() caller: Caller, @Body() body: MemoryPolicyDto) {
    return this.commands.execute(new SetMemoryPolicyCommand(caller, undefined, body.policy));
  }

  @Get('memory/status')
  @ApiOperation({ operationId: 'getMemoryStatus', summary: 'Indexing status: model, index, checkpoint, lag, items' })
  status(@CurrentApiKey() key: AuthenticatedKey) {
    return this.queries.execute(new MemoryStatusQuery(key.scopes.includes('operator')));
  }
}
