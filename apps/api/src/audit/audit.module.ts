import { Module } from '@nestjs/common';
import { AuditChainsController } from './audit.controller';
import { VerifyChainsHandler } from './queries/verify-chains.handler';

/** GET /v1/audit/chains (needs the global InfrastructureModule: SEAL_STORE, EVENT_STORE). */
@Module({
  controllers: [AuditChainsController],
  providers: [VerifyChainsHandler],
})
export class AuditModule {}
