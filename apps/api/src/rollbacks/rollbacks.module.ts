import { Module } from '@nestjs/common';
import { GetRollbackHandler } from './queries/get-rollback.handler';
import { RollbacksController } from './rollbacks.controller';
import { ToolsController } from './tools.controller';

@Module({ controllers: [RollbacksController, ToolsController], providers: [GetRollbackHandler] })
export class RollbacksModule {}
