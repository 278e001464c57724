import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ResolveEffectDto } from '@rewind/contracts';
import { SessionService, type Caller, type WriteOptions } from '@rewind/engine';
import { sessionOfRollback } from '@rewind/sagas';
import { CurrentCaller } from '../auth/caller.decorator';
import { ApiError } from '../common/api-error';
import { WriteHeaders } from '../common/write-headers';
import { IdParamPipe } from '../sessions/path-params';
import { ExecuteSessionCommand } from '../sessions/session-commands';
import { presentRollback } from './rollback.presenter';

/** A rollback's plan and live per-effect outcomes; an operator's retry and resolve. */
@ApiTags('rollbacks')
@ApiBearerAuth()
@Controller('v1/rollbacks/:rollbackId')
export class RollbacksController {
  constructor(
    private readonly sessions: SessionService,
    private readonly commands: CommandBus,
  ) {}

  private async locate(caller: Caller, rollbackId: string) {
    const sessionId = sessionOfRollback(rollbackId);
    const notFound = new ApiError(404, 'rollback_not_found', `No rollback "${rollbackId}" for this tenant.`);
    if (!sessionId) throw notFound;
    const state = await this.sessions.getState(caller, sessionId).catch(() => {
      throw notFound;
    });
    const view = presentRollback(state, rollbackId);
    if (!view) throw notFound;
    return { sessionId, view };
  }

  @Get()
  @ApiOperation({ summary: "The plan and each effect's outcome, live" })
  async get(@CurrentCaller() caller: Caller, @Param('rollbackId') rollbackId: string) {
    return (await this.locate(caller, rollbackId)).view;
  }

  @Post('effects/:callId/retry')
  @HttpCode(202)
  @ApiOperation({ summary: 'Try a failed compensation again (recorded)' })
  async retry(
    @CurrentCaller() caller: Caller,
    @Param('rollbackId') rollbackId: string,
    @Param('callId', IdParamPipe) callId: string,
    @WriteHeaders() options: WriteOptions,
  ) {
    const { sessionId } = await this.locate(caller, rollbackId);
    await this.commands.execute(new ExecuteSessionCommand(caller, sessionId, { type: 'RetryCompensation', rollbackId, toolCallId: callId }, options));
    return (await this.locate(caller, rollbackId)).view;
  }

  @Post('effects/:callId/resolve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Mark a failed compensation as undone by hand (recorded with who and a note)' })
  async resolve(
    @CurrentCaller() caller: Caller,
    @Param('rollbackId') rollbackId: string,
    @Param('callId', IdParamPipe) callId: string,
    @Body() body: ResolveEffectDto,
    @WriteHeaders() options: WriteOptions,
  ) {
    const { sessionId } = await this.locate(caller, rollbackId);
    await this.commands.execute(
      new ExecuteSessionCommand(caller, sessionId, { type: 'ResolveCompensation', rollbackId, toolCallId: callId, note: body.note }, options),
    );
    return (await this.locate(caller, rollbackId)).view;
  }
}
