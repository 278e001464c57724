import { Body, Controller, Delete, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { SessionCommand } from '@rewind/domain';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';
import { CreateCheckpointCommand, NameBranchCommand, RecordStepCommand, RecordStepsCommand } from '@rewind/application';
import { CurrentCaller } from '../auth/caller.decorator';
import { WriteHeaders } from '../common/write-headers';
import {
  ApproveToolCallDto,
  CreateCheckpointDto,
  ProposeToolCallDto,
  RejectToolCallDto,
  FailToolCallDto,
  InterruptTurnDto,
  NameBranchDto,
  PushTaskDto,
  RecordMessageDto,
  RecordStepsDto,
  RecordThoughtDto,
  STEP_DTOS,
  StartToolCallDto,
  SucceedToolCallDto,
  toCommand,
  ValueDto,
} from '@rewind/contracts';
import { IdParamPipe, NameParamPipe } from './path-params';

/** Recording an agent's steps. Every write takes Idempotency-Key and If-Match. */
@ApiTags('steps')
@ApiBearerAuth()
@ApiExtraModels(...Object.values(STEP_DTOS))
@Controller('v1/sessions/:id')
export class StepsController {
  constructor(private readonly commands: CommandBus) {}

  private run(caller: Caller, id: string, step: SessionCommand, options: WriteOptions, reply: FastifyReply): Promise<WriteResult> {
    return this.answer(new RecordStepCommand(caller, id, step, options), reply);
  }

  private async answer(
    command: RecordStepCommand | RecordStepsCommand | CreateCheckpointCommand | NameBranchCommand,
    reply: FastifyReply,
  ): Promise<WriteResult> {
    const result = await this.commands.execute(command);
    reply.header('ETag', `"${result.version}"`);
    return result;
  }

  @Post('steps')
  @ApiOperation({
    operationId: 'recordSteps',
    summary: 'Record several steps at once (e.g. a whole turn): in order, in one atomic write',
    description:
      'Each step is decided on the state the steps before it leave. A refused step refuses the batch (its index is in the error) and nothing is written. One Idempotency-Key and one If-Match cover the batch.',
  })
  steps(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: RecordStepsDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.answer(new RecordStepsCommand(c, id, toCommand.steps(b), o), r);
  }

  @Post('messages')
  @ApiOperation({ operationId: 'recordMessage', summary: 'Record a user or agent message' })
  message(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: RecordMessageDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.recordMessage(b), o, r);
  }

  @Post('tool-calls')
  @ApiOperation({ operationId: 'startToolCall', summary: 'Start a tool call, declaring its effect before it runs' })
  startToolCall(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: StartToolCallDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.startToolCall(b), o, r);
  }

  @Post('proposals')
  @ApiOperation({ operationId: 'proposeToolCall', summary: 'Propose a tool call instead of starting it: it waits for a person to approve or reject it' })
  propose(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: ProposeToolCallDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.proposeToolCall(b), o, r);
  }

  @Post('proposals/:callId/approve')
  @HttpCode(200)
  @ApiOperation({ operationId: 'approveToolCall', summary: 'Approve a proposed tool call (recorded with who and when): the agent may start it, as proposed' })
  approve(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Param('callId', IdParamPipe) callId: string,
    @Body() b: ApproveToolCallDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.approveToolCall(callId, b), o, r);
  }

  @Post('proposals/:callId/reject')
  @HttpCode(200)
  @ApiOperation({ operationId: 'rejectToolCall', summary: 'Reject a proposed tool call (recorded with who, when and why): it must not run' })
  reject(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Param('callId', IdParamPipe) callId: string,
    @Body() b: RejectToolCallDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.rejectToolCall(callId, b), o, r);
  }

  @Post('tool-calls/:callId/succeed')
  @HttpCode(200)
  @ApiOperation({ operationId: 'succeedToolCall', summary: 'Record a tool call result' })
  succeed(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Param('callId', IdParamPipe) callId: string,
    @Body() b: SucceedToolCallDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.succeedToolCall(callId, b), o, r);
  }

  @Post('tool-calls/:callId/fail')
  @HttpCode(200)
  @ApiOperation({ operationId: 'failToolCall', summary: 'Record a tool call failure' })
  fail(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Param('callId', IdParamPipe) callId: string,
    @Body() b: FailToolCallDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.failToolCall(callId, b), o, r);
  }

  @Put('memory/:key')
  @ApiOperation({ operationId: 'writeMemory', summary: 'Write a memory entry' })
  writeMemory(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Param('key', NameParamPipe) key: string,
    @Body() b: ValueDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.writeMemory(key, b), o, r);
  }

  @Delete('memory/:key')
  @ApiOperation({ operationId: 'eraseMemory', summary: 'Erase a memory entry (recorded as an event; history keeps the old value)' })
  eraseMemory(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Param('key', NameParamPipe) key: string,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.eraseMemory(key), o, r);
  }

  @Put('context-vars/:name')
  @ApiOperation({ operationId: 'setContextVariable', summary: 'Set a context variable' })
  setVar(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Param('name', NameParamPipe) name: string,
    @Body() b: ValueDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.setContextVariable(name, b), o, r);
  }

  @Post('tasks')
  @ApiOperation({ operationId: 'pushTask', summary: 'Push a task onto the task stack' })
  pushTask(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: PushTaskDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.pushTask(b), o, r);
  }

  @Delete('tasks/top')
  @ApiOperation({ operationId: 'popTask', summary: 'Pop the top task' })
  popTask(@CurrentCaller() c: Caller, @Param('id', IdParamPipe) id: string, @WriteHeaders() o: WriteOptions, @Res({ passthrough: true }) r: FastifyReply) {
    return this.run(c, id, toCommand.popTask(), o, r);
  }

  @Post('turns/:turnId/interrupt')
  @HttpCode(200)
  @ApiOperation({ operationId: 'interruptTurn', summary: 'The user stopped the answer: keep what they saw' })
  interrupt(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Param('turnId', IdParamPipe) turnId: string,
    @Body() b: InterruptTurnDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.interruptTurn(turnId, b), o, r);
  }

  @Post('thoughts')
  @ApiOperation({ operationId: 'recordThought', summary: "Record the agent's reasoning (a timeline step, kept out of the LLM context)" })
  thought(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: RecordThoughtDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.run(c, id, toCommand.recordThought(b), o, r);
  }

  @Post('checkpoints')
  @ApiOperation({ operationId: 'createCheckpoint', summary: 'Label the current head' })
  checkpoint(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: CreateCheckpointDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.answer(new CreateCheckpointCommand(c, id, b.label, o), r);
  }

  @Post('branch-names')
  @ApiOperation({ operationId: 'nameBranch', summary: 'Name a branch by one of its steps' })
  nameBranch(
    @CurrentCaller() c: Caller,
    @Param('id', IdParamPipe) id: string,
    @Body() b: NameBranchDto,
    @WriteHeaders() o: WriteOptions,
    @Res({ passthrough: true }) r: FastifyReply,
  ) {
    return this.answer(new NameBranchCommand(c, id, b.version, b.name, o), r);
  }
}
