import { Body, Controller, Get, Param, Put, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { JsonValue } from '@rewind/domain';
import type { Caller, WriteOptions } from '@rewind/engine';
import { GetComponentStateQuery, SaveComponentStateCommand } from '@rewind/application';
import { StateQueryDto, ValueDto } from '@rewind/contracts';
import { CurrentCaller } from '../auth/caller.decorator';
import { WriteHeaders } from '../common/write-headers';
import { IdParamPipe, NameParamPipe } from './path-params';

/** Named components' own state (seed 001's plugin state): saved as a step, read at any version. */
@ApiTags('components')
@ApiBearerAuth()
@Controller('v1/sessions/:id/components')
export class ComponentsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Put(':name')
  @ApiOperation({ operationId: 'saveComponentState', summary: "Save a component's state (a step: time travel and rollback restore it)" })
  async save(
    @CurrentCaller() caller: Caller,
    @Param('id', IdParamPipe) id: string,
    @Param('name', NameParamPipe) name: string,
    @Body() body: ValueDto,
    @WriteHeaders() options: WriteOptions,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.commands.execute(new SaveComponentStateCommand(caller, id, name, body.value as JsonValue, options));
    reply.header('ETag', `"${result.version}"`);
    return result;
  }

  @Get(':name')
  @ApiOperation({ operationId: 'getComponentState', summary: "A component's state at the head, or at any version (?at=)" })
  load(@CurrentCaller() caller: Caller, @Param('id', IdParamPipe) id: string, @Param('name', NameParamPipe) name: string, @Query() query: StateQueryDto) {
    return this.queries.execute(new GetComponentStateQuery(caller, id, name, query.at));
  }
}
