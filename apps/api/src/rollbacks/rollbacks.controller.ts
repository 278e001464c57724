import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ResolveEffectDto } from '@rewind/contracts';
import { ResolveCompensationCommand, RetryCompensationCommand } from '@rewind/application';
import type { Caller, WriteOptions } from '@rewind/engine';
import { CurrentCaller } from '../auth/caller.decorator';
import { ApiError } from '../common/api-error';
import { WriteHeaders } from '../common/write-headers';
import { IdParamPipe } from '../sessions/path-params';
import { GetRollbackQuery } from './queries/get-rollback.query';

/** A rollback's plan and live per-effect outcomes; an operator's retry and resolve. */
@ApiTags('rollbacks')
@ApiBearerAuth()
@Controller('v1/rollbacks/:rollbackId')
export class RollbacksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  private async locate(caller: Caller, rollbackId: string) {
    const located = await this.queries.execute(new GetRollbackQuery(caller, rollbackId));
    if (!located) throw new ApiError(404, 'rollback_not_found', `No rollback "${rollbackId}" for this tenant.`);
    return located;
  }

  @Get()
  @ApiOperation({ operationId: 'getRollback', summary: "The plan and each effect's outcome, live" })
  async get(@CurrentCaller() caller: Caller, @Param('rollbackId') rollbackId: string) {
    return (await this.locate(caller, rollbackId)).view;
  }

  @Post('effects/:callId/retry')
  @HttpCode(202)
  @ApiOperation({ operationId: 'retryCompensation', summary: 'Try a failed compensation again (recorded)' })
  async retry(
    @CurrentCaller() caller: Caller,
    @Param('rollbackId') rollbackId: string,
    @Param('callId', IdParamPipe) callId: string,
    @WriteHeaders() options: WriteOptions,
  ) {
    const { sessionId } = await this.locate(caller, rollbackId);
    await this.commands.execute(new RetryCompensationCommand(caller, sessionId, rollbackId, callId, options));
    return (await this.locate(caller, rollbackId)).view;
  }

  @Post('effects/:callId/resolve')
  @HttpCode(200)
  @ApiOperation({ operationId: 'resolveCompensation', summary: 'Mark a failed compensation as undone by hand (recorded with who and a note)' })
  async resolve(
    @CurrentCaller() caller: Caller,
    @Param('rollbackId') rollbackId: string,
    @Param('callId', IdParamPipe) callId: string,
    @Body() body: ResolveEffectDto,
    @WriteHeaders() options: WriteOptions,
  ) {
    const { sessionId } = await this.locate(caller, rollbackId);
    await this.commands.execute(new ResolveCompensationCommand(caller, sessionId, rollbackId, callId, body.note, options));
    return (await this.locate(caller, rollbackId)).view;
  }
}
