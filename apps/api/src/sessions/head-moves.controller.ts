import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { MoveHead } from '@rewind/domain';
import { MoveHeadCommand, PlanHeadMoveQuery } from '@rewind/application';
import type { Caller, WriteOptions } from '@rewind/engine';
import { CurrentCaller } from '../auth/caller.decorator';
import { WriteHeaders } from '../common/write-headers';
import { ForkDto, RedoDto, RollbackDto, toCommand, UndoDto } from '@rewind/contracts';
import { IdParamPipe } from './path-params';
import { FollowRollbackQuery } from '../rollbacks/queries/follow-rollback.query';

/** Time travel that changes the present: rollback, undo, redo. */
@ApiTags('time travel')
@ApiBearerAuth()
@Controller('v1/sessions/:id')
export class HeadMovesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  /**
   * A move that needs compensations answers 202 with the rollback to follow, unless the
   * caller waits (`waitMs`) and the saga finishes in time.
   */
  private async move(
    caller: Caller,
    id: string,
    command: MoveHead,
    body: { dryRun?: boolean; waitMs?: number } | undefined,
    options: WriteOptions,
    reply: FastifyReply,
  ) {
    // `outcome` (and dryRun) on both answers: generated clients tell a plan from a move by it.
    if (body?.dryRun) return { outcome: 'dry_run', dryRun: true, plan: await this.queries.execute(new PlanHeadMoveQuery(caller, id, command)) };
    const result = await this.commands.execute(new MoveHeadCommand(caller, id, command, options));
    if (result.rollbackId === undefined || result.status !== 'rolling_back') {
      reply.header('ETag', `"${result.version}"`);
      return { outcome: 'applied', dryRun: false, ...result };
    }
    const rollbackId = result.rollbackId;
    const { state, rollback, events } = await this.queries.execute(new FollowRollbackQuery(caller, id, rollbackId, body?.waitMs ?? 0, result.version));
    reply.header('Location', `/v1/rollbacks/${rollbackId}`).header('ETag', `"${state.version}"`);
    // Not finished (still running, or needing attention): accepted, follow Location.
    if (rollback?.status !== 'completed') reply.status(202);
    // Version, head and events agree: the saga's records while the caller waited are listed too.
    return {
      outcome: 'applied',
      dryRun: false,
      ...result,
      version: state.version,
      head: state.head,
      status: state.status,
      events: [...result.events, ...events],
      rollback,
    };
  }

  @Post('rollback')
  @HttpCode(200)
  @ApiOperation({ operationId: 'rollback', summary: 'Make any earlier step (any branch) current; abandoned effects are planned for compensation' })
  rollback(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: RollbackDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.move(c, id, toCommand.rollback(b), b, o, r);
  }

  @Post('undo')
  @HttpCode(200)
  @ApiOperation({ operationId: 'undo', summary: 'Go back to the previous step boundary (or N of them)' })
  undo(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: UndoDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.move(c, id, toCommand.undo(b), b, o, r);
  }

  @Post('redo')
  @HttpCode(200)
  @ApiOperation({ operationId: 'redo', summary: 'Return to where the last undo or rollback came from' })
  redo(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: RedoDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.move(c, id, toCommand.redo(b), b, o, r);
  }

  @Post('fork')
  @HttpCode(200)
  @ApiOperation({ operationId: 'fork', summary: 'Fork from the past: make a past step current and start a new branch there with these steps' })
  fork(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: ForkDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.move(c, id, toCommand.fork(b), b, o, r);
  }
}
