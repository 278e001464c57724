import { Module } from '@nestjs/common';
import { ComponentsController } from './components.controller';
import { HeadMovesController } from './head-moves.controller';
import { SessionsController } from './sessions.controller';
import { StepsController } from './steps.controller';

/** Sessions over HTTP: controllers that map requests to @rewind/application's commands and queries. */
@Module({
  controllers: [SessionsController, StepsController, HeadMovesController, ComponentsController],
})
export class SessionsModule {}
