import { Module, type DynamicModule } from '@nestjs/common';
import { ReadModelDatabase } from '@rewind/projections';
import type { RewindConfig } from '@rewind/config';
import { REWIND_CONFIG } from '../infrastructure/tokens';
import { AuditLogHandler } from './queries/audit-log.handler';
import { ListSessionSummariesHandler } from './queries/list-session-summaries.handler';
import { ProjectionStatusHandler } from './queries/projection-status.handler';
import { ToolCallLedgerHandler } from './queries/tool-call-ledger.handler';
import { ReadModelsController } from './read-models.controller';
import { readModelConfigFrom, ReadModelsService, type ProjectionsModuleOptions } from './read-models.service';
import { PROJECTIONS_OPTIONS, READ_MODEL_DATABASE } from './tokens';

/**
 * Projections in the API process: opens the read-model database (TypeORM, migrations
 * applied), runs the projection runners, and serves GET /v1/sessions, /v1/audit,
 * /v1/tool-calls and /v1/projections from the read models. Needs the global
 * InfrastructureModule (REWIND_CONFIG, EVENT_STORE).
 */
@Module({})
export class ProjectionsModule {
  static forRoot(options: ProjectionsModuleOptions = {}): DynamicModule {
    return {
      module: ProjectionsModule,
      controllers: [ReadModelsController],
      providers: [
        { provide: PROJECTIONS_OPTIONS, useValue: options },
        {
          provide: READ_MODEL_DATABASE,
          inject: [REWIND_CONFIG],
          useFactory: (config: RewindConfig) => ReadModelDatabase.open(options.readModels ?? readModelConfigFrom(config)),
        },
        ReadModelsService,
        ListSessionSummariesHandler,
        AuditLogHandler,
        ToolCallLedgerHandler,
        ProjectionStatusHandler,
      ],
      exports: [READ_MODEL_DATABASE, ReadModelsService],
    };
  }
}
