import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { join } from 'node:path';
import type { RewindConfig } from '@rewind/config';
import type { EventStore, SealStore } from '@rewind/event-store';
import { PostgresEventStore, PostgresSealStore } from '@rewind/event-store/postgres';
import { SqliteSealStore } from '@rewind/event-store/sqlite';
import { EVENT_STORE, REWIND_CONFIG } from '../infrastructure/tokens';
import { AuditChainsController } from './audit.controller';
import { VerifyChainsHandler } from './queries/verify-chains.handler';
import { SEAL_STORE } from './tokens';

/** GET /v1/audit/chains (needs the global InfrastructureModule). */
@Module({
  controllers: [AuditChainsController],
  providers: [
    {
      provide: SEAL_STORE,
      inject: [EVENT_STORE, REWIND_CONFIG],
      useFactory: (store: EventStore, config: RewindConfig): SealStore =>
        store instanceof PostgresEventStore ? new PostgresSealStore(store.pool, store.schema) : new SqliteSealStore(join(config.dataDir, 'rewind.db')),
    },
    VerifyChainsHandler,
  ],
})
export class AuditModule implements OnApplicationShutdown {
  constructor(@Inject(SEAL_STORE) private readonly seals: SealStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.seals.close();
  }
}
