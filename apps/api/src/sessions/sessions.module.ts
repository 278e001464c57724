import { Module } from '@nestjs/common';
import { HeadMovesController } from './head-moves.controller';
import { ExecuteSessionHandler, StartSessionHandler } from './session-commands';
import { SessionsController } from './sessions.controller';
import { StepsController } from './steps.controller';

@Module({
  controllers: [SessionsController, StepsController, HeadMovesController],
  providers: [StartSessionHandler, ExecuteSessionHandler],
})
export class SessionsModule {}
