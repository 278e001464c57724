import { Module } from '@nestjs/common';
import { CommandBusDispatch } from './command-bus-dispatch';
import { SESSION_COMMAND_HANDLERS } from './session-command-handlers';
import { RegisterToolHandler } from './commands/register-tool.handler';
import { GetComponentStateHandler } from './queries/get-component-state.handler';
import { GetContextHandler } from './queries/get-context.handler';
import { GetDiffHandler } from './queries/get-diff.handler';
import { GetEventsHandler } from './queries/get-events.handler';
import { GetSessionStateHandler } from './queries/get-session-state.handler';
import { GetTimelineHandler } from './queries/get-timeline.handler';
import { GetToolHandler } from './queries/get-tool.handler';
import { ListToolsHandler } from './queries/list-tools.handler';
import { PlanHeadMoveHandler } from './queries/plan-head-move.handler';

export const COMMAND_HANDLERS = [...SESSION_COMMAND_HANDLERS, RegisterToolHandler];

export const QUERY_HANDLERS = [
  GetSessionStateHandler,
  GetTimelineHandler,
  GetEventsHandler,
  GetDiffHandler,
  GetContextHandler,
  PlanHeadMoveHandler,
  ListToolsHandler,
  GetToolHandler,
  GetComponentStateHandler,
];

/**
 * The application layer: every command and query handler, shared by the API and the worker.
 * The session commands' handlers are the engine's own (see session-command-handlers.ts).
 * Needs CqrsModule.forRoot() and, from a global module, the engine's SessionCommands,
 * SessionQueries and ToolRegistry.
 */
@Module({
  providers: [...COMMAND_HANDLERS, ...QUERY_HANDLERS, CommandBusDispatch],
  exports: [CommandBusDispatch],
})
export class ApplicationModule {}
