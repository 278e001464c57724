import { Module } from '@nestjs/common';
import { HeadMovesController } from './head-moves.controller';
import { ExecuteSessionHandler, ExecuteSessionStepsHandler, StartSessionHandler } from './session-commands';
import { SessionsController } from './sessions.controller';
import { StepsController } from './steps.controller';

@Module({
  controllers: [SessionsController, StepsController, HeadMovesController],
  providers: [StartSessionHandler, ExecuteSessionHandler, ExecuteSessionStepsHandler],
})
export class SessionsModule {}
