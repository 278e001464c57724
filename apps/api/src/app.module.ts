import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { LoggerModule } from 'nestjs-pino';
import type { Logger as PinoLogger } from 'pino';
import { ApplicationModule } from '@rewind/application';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ApiExceptionFilter } from './common/api-exception.filter';
import { createValidationPipe } from './common/validation';
import type { RewindConfig } from '@rewind/config';
import { HealthController } from './health/health.controller';
import { MemoryModule } from './memory/memory.module';
import { httpLoggingParams } from './logging/http-logging';
import { ReadinessHandler } from './health/queries/readiness.handler';
import { MetricsController } from './metrics/metrics.controller';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import type { Backend } from '@rewind/runtime';
import { KeysModule } from './keys/keys.module';
import { EncryptionModule } from './encryption/encryption.module';
import { AuditModule } from './audit/audit.module';
import { ProjectionsModule } from './projections/projections.module';
import { RollbacksModule } from './rollbacks/rollbacks.module';
import { SessionsModule } from './sessions/sessions.module';

@Module({})
export class AppModule {
  static forConfig(config: RewindConfig, backend: Backend, logger: PinoLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(httpLoggingParams(logger)),
        CqrsModule.forRoot(),
        InfrastructureModule.forConfig(config, backend),
        ApplicationModule,
        SessionsModule,
        RollbacksModule,
        MemoryModule,
        ProjectionsModule.forRoot({ runRunners: config.runProjections }),
        KeysModule,
        EncryptionModule,
        AuditModule,
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        ReadinessHandler,
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
