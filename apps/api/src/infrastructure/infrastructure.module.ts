import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { join } from 'node:path';
import { SessionRepository, SessionService } from '../../../../libs/engine/src';
import { SqliteEventStore, type EventStore } from '../../../../libs/event-store/src';
import { SqliteApiKeyStore, type ApiKeyStore } from '../../../../libs/tenancy/src';
import type { RewindConfig } from '../config/rewind-config';
import { API_KEY_STORE, EVENT_STORE, REWIND_CONFIG } from './tokens';

/** Wires the adapters chosen by configuration behind their ports. */
@Global()
@Module({})
export class InfrastructureModule implements OnApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(API_KEY_STORE) private readonly keys: ApiKeyStore,
  ) {}

  static forConfig(config: RewindConfig): DynamicModule {
    const databaseFile = join(config.dataDir, 'rewind.db');
    return {
      module: InfrastructureModule,
      providers: [
        { provide: REWIND_CONFIG, useValue: config },
        { provide: EVENT_STORE, useFactory: () => new SqliteEventStore({ filename: databaseFile, synchronous: config.sqliteSynchronous }) },
        { provide: API_KEY_STORE, useFactory: () => new SqliteApiKeyStore(databaseFile) },
        {
          provide: SessionService,
          inject: [EVENT_STORE],
          useFactory: (store: EventStore) => new SessionService(new SessionRepository(store, { snapshotEvery: config.snapshotEvery })),
        },
      ],
      exports: [REWIND_CONFIG, EVENT_STORE, API_KEY_STORE, SessionService],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
    await this.keys.close();
  }
}
