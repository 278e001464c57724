import { Module } from '@nestjs/common';
import { RollbacksController } from './rollbacks.controller';
import { ToolsController } from './tools.controller';

@Module({ controllers: [RollbacksController, ToolsController] })
export class RollbacksModule {}
