import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { MoveHead } from '../../../../libs/domain/src';
import { SessionService, type Caller, type WriteOptions, type WriteResult } from '../../../../libs/engine/src';
import { CurrentCaller } from '../auth/caller.decorator';
import { ApiError } from '../common/api-error';
import { WriteHeaders } from '../common/write-headers';
import { RedoDto, RollbackDto, UndoDto } from './dto/head-move.dto';
import { IdParamPipe } from './path-params';
import { ExecuteSessionCommand } from './session-commands';

/** Time travel that changes the present: rollback, undo, redo. */
@ApiTags('time travel')
@ApiBearerAuth()
@Controller('v1/sessions/:id')
export class HeadMovesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly sessions: SessionService,
  ) {}

  private async move(caller: Caller, id: string, command: MoveHead, dryRun: boolean | undefined, options: WriteOptions, reply: FastifyReply) {
    if (dryRun) return { dryRun: true, plan: await this.sessions.planHeadMove(caller, id, command) };
    const result: WriteResult = await this.commands.execute(new ExecuteSessionCommand(caller, id, command, options));
    reply.header('ETag', `"${result.version}"`);
    return result;
  }

  @Post('rollback')
  @HttpCode(200)
  @ApiOperation({ summary: 'Make any earlier step (any branch) current; abandoned effects are planned for compensation' })
  rollback(@CurrentCaller() c: Caller, @Param('id', IdParamPipe) id: string, @Body() b: RollbackDto, @WriteHeaders() o: WriteOptions, @Res({ passthrough: true }) r: FastifyReply) {
    if ((b.toVersion === undefined) === (b.toCheckpoint === undefined)) {
      throw new ApiError(400, 'validation_failed', 'Give exactly one of toVersion and toCheckpoint.', [{ field: 'toVersion', message: 'exactly one of toVersion, toCheckpoint is required' }]);
    }
    const command: MoveHead = {
      type: 'MoveHead',
      kind: 'rollback',
      ...(b.toVersion !== undefined ? { toVersion: b.toVersion } : {}),
      ...(b.toCheckpoint !== undefined ? { toCheckpoint: b.toCheckpoint } : {}),
      acknowledgeIrreversible: b.acknowledgeIrreversible ?? false,
    };
    return this.move(c, id, command, b.dryRun, o, r);
  }

  @Post('undo')
  @HttpCode(200)
  @ApiOperation({ summary: 'Go back to the previous step boundary (or N of them)' })
  undo(@CurrentCaller() c: Caller, @Param('id', IdParamPipe) id: string, @Body() b: UndoDto, @WriteHeaders() o: WriteOptions, @Res({ passthrough: true }) r: FastifyReply) {
    return this.move(c, id, { type: 'MoveHead', kind: 'undo', steps: b?.steps ?? 1, acknowledgeIrreversible: b?.acknowledgeIrreversible ?? false }, b?.dryRun, o, r);
  }

  @Post('redo')
  @HttpCode(200)
  @ApiOperation({ summary: 'Return to where the last undo or rollback came from' })
  redo(@CurrentCaller() c: Caller, @Param('id', IdParamPipe) id: string, @Body() b: RedoDto, @WriteHeaders() o: WriteOptions, @Res({ passthrough: true }) r: FastifyReply) {
    return this.move(c, id, { type: 'MoveHead', kind: 'redo', acknowledgeIrreversible: b?.acknowledgeIrreversible ?? false }, b?.dryRun, o, r);
  }
}
