import { Module } from '@nestjs/common';
import { FollowRollbackHandler } from './queries/follow-rollback.handler';
import { GetRollbackHandler } from './queries/get-rollback.handler';
import { RollbacksController } from './rollbacks.controller';
import { ToolsController } from './tools.controller';

@Module({ controllers: [RollbacksController, ToolsController], providers: [GetRollbackHandler, FollowRollbackHandler] })
export class RollbacksModule {}
