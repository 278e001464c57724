import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '@rewind/engine';
import { CurrentCaller } from '../auth/caller.decorator';
import { IdParamPipe, NameParamPipe } from '../sessions/path-params';
import { SetMemoryKeyEncryptionCommand } from './commands/set-memory-key-encryption.command';
import { SetToolEncryptionCommand } from './commands/set-tool-encryption.command';
import { MemoryKeyEncryptionDto, ToolEncryptionDto } from './dto/encryption-policy.dto';
import { GetEncryptionPoliciesQuery } from './queries/get-encryption-policies.query';

/** The fields a tenant always encrypts, per tool and per memory key (changes need an `admin` key). */
@ApiTags('encryption')
@ApiBearerAuth()
@Controller('v1/encryption')
export class EncryptionPoliciesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'getEncryptionPolicies', summary: "The tenant's encryption policies" })
  get(@CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetEncryptionPoliciesQuery(caller.tenantId));
  }

  @Put('tools/:name')
  @ApiOperation({ operationId: 'setToolEncryption', summary: "Declare the paths of a tool's input and output that are always encrypted" })
  tool(@CurrentCaller() caller: Caller, @Param('name', IdParamPipe) name: string, @Body() body: ToolEncryptionDto) {
    return this.commands.execute(new SetToolEncryptionCommand(caller.tenantId, name, body.input ?? [], body.output ?? []));
  }

  @Put('memory-keys/:key')
  @ApiOperation({ operationId: 'setMemoryKeyEncryption', summary: "Declare whether a memory key's values are always encrypted" })
  memoryKey(@CurrentCaller() caller: Caller, @Param('key', NameParamPipe) key: string, @Body() body: MemoryKeyEncryptionDto) {
    return this.commands.execute(new SetMemoryKeyEncryptionCommand(caller.tenantId, key, body.encrypted));
  }
}
