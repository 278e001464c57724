import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { GetToolQuery, ListToolsQuery, RegisterToolCommand } from '@rewind/application';
import { effectOf, RegisterToolDto } from '@rewind/contracts';
import { mergeEffect } from '@rewind/domain';
import type { Caller, WriteOptions } from '@rewind/engine';
import { CurrentCaller } from '../auth/caller.decorator';
import { ApiError } from '../common/api-error';
import { WriteHeaders } from '../common/write-headers';
import { IdParamPipe } from '../sessions/path-params';

/** Register a tool once: its effect kind, compensation and retry policy. */
@ApiTags('tools')
@ApiBearerAuth()
@Controller('v1/tools')
export class ToolsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Put(':name')
  @ApiOperation({ operationId: 'registerTool', summary: "Register or replace a tool's effect, compensation and retry policy" })
  register(@CurrentCaller() caller: Caller, @Param('name', IdParamPipe) name: string, @Body() body: RegisterToolDto, @WriteHeaders() options: WriteOptions) {
    return this.commands.execute(new RegisterToolCommand(caller, name, mergeEffect(undefined, effectOf(body)), options));
  }

  @Get()
  @ApiOperation({ operationId: 'listTools', summary: "The tenant's registered tools" })
  async list(@CurrentCaller() caller: Caller) {
    return { items: await this.queries.execute(new ListToolsQuery(caller.tenantId)) };
  }

  @Get(':name')
  @ApiOperation({ operationId: 'getTool', summary: 'One registered tool' })
  async get(@CurrentCaller() caller: Caller, @Param('name', IdParamPipe) name: string) {
    const tool = await this.queries.execute(new GetToolQuery(caller.tenantId, name));
    if (!tool) throw new ApiError(404, 'tool_not_found', `No tool "${name}" is registered for this tenant: PUT /v1/tools/${name} registers it.`);
    return tool;
  }
}
