import { Module, type DynamicModule } from '@nestjs/common';
import type { Backend } from '@rewind/runtime';
import { BACKEND } from '../infrastructure/tokens';
import { AuditLogHandler } from './queries/audit-log.handler';
import { ListSessionSummariesHandler } from './queries/list-session-summaries.handler';
import { ProjectionStatusHandler } from './queries/projection-status.handler';
import { ToolCallLedgerHandler } from './queries/tool-call-ledger.handler';
import { ReadModelsController } from './read-models.controller';
import { ReadModelsService, type ProjectionsModuleOptions } from './read-models.service';
import { PROJECTIONS_OPTIONS, READ_MODEL_DATABASE } from './tokens';

/**
 * Projections in the API process: runs the projection runners over the backend's read-model
 * database (TypeORM, migrations applied), and serves GET /v1/sessions, /v1/audit,
 * /v1/tool-calls and /v1/projections from the read models. Needs the global
 * InfrastructureModule (BACKEND, EVENT_STORE).
 */
@Module({})
export class ProjectionsModule {
  static forRoot(options: ProjectionsModuleOptions = {}): DynamicModule {
    return {
      module: ProjectionsModule,
      controllers: [ReadModelsController],
      providers: [
        { provide: PROJECTIONS_OPTIONS, useValue: options },
        { provide: READ_MODEL_DATABASE, inject: [BACKEND], useFactory: (backend: Backend) => backend.readModels() },
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
