import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '@rewind/engine';
import { CurrentCaller } from '../auth/caller.decorator';
import { IdParamPipe } from '../sessions/path-params';
import { ShredSessionCommand } from './commands/shred-session.command';

/** Crypto-shredding: the only way data is ever "deleted". Needs an `admin` key. */
@ApiTags('sessions')
@ApiBearerAuth()
@Controller('v1/sessions')
export class EncryptionController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':id/shred')
  @HttpCode(200)
  @ApiOperation({ operationId: 'shredSession', summary: 'Destroy the session\'s data key: its encrypted fields read as "[shredded]" everywhere from now on' })
  shred(@CurrentCaller() caller: Caller, @Param('id', IdParamPipe) id: string) {
    return this.commands.execute(new ShredSessionCommand(caller, id));
  }
}
