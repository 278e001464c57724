import { Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { ApplicationModule, CommandBusDispatch } from '@rewind/application';
import { SessionCommands, SessionQueries, ToolRegistry } from '@rewind/engine';
import type { SessionRuntime } from '@rewind/sagas';

/** The worker's write side, as the API's InfrastructureModule provides it to the handlers. */
@Module({})
class WorkerRuntimeModule {
  static forRuntime(runtime: SessionRuntime): DynamicModule {
    return {
      module: WorkerRuntimeModule,
      global: true,
      providers: [
        { provide: SessionCommands, useValue: runtime.sessions.commands },
        { provide: SessionQueries, useValue: runtime.sessions.queries },
        { provide: ToolRegistry, useValue: runtime.tools },
      ],
      exports: [SessionCommands, SessionQueries, ToolRegistry],
    };
  }
}

/** The application layer (@rewind/application's handlers, CommandBus and QueryBus) without an HTTP server. */
@Module({})
export class WorkerApplicationModule {
  static forRuntime(runtime: SessionRuntime): DynamicModule {
    return { module: WorkerApplicationModule, imports: [CqrsModule.forRoot(), WorkerRuntimeModule.forRuntime(runtime), ApplicationModule] };
  }
}

export interface WorkerApplication {
  /** Commands from Kafka go through the same handlers as HTTP requests. */
  readonly dispatch: CommandBusDispatch;
  readonly context: INestApplicationContext;
}

/**
 * A Nest application context over the worker's runtime. Nest's own start-up logging is off
 * (the worker logs what it runs); a failure rejects instead of exiting the process.
 */
export async function startWorkerApplication(runtime: SessionRuntime): Promise<WorkerApplication> {
  const context = await NestFactory.createApplicationContext(WorkerApplicationModule.forRuntime(runtime), { logger: false, abortOnError: false });
  return { dispatch: context.get(CommandBusDispatch), context };
}
