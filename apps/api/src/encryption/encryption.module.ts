import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { join } from 'node:path';
import type { RewindConfig } from '@rewind/config';
import type { EventStore } from '@rewind/event-store';
import { PostgresEventStore } from '@rewind/event-store/postgres';
import { FieldEncryption, loadMasterKey, MasterKeyProvider, type DataKeyStore, type EncryptionPolicyStore } from '@rewind/tenancy';
import { SqliteDataKeyStore } from '@rewind/tenancy/sqlite';
import { PostgresDataKeyStore } from '@rewind/tenancy/postgres';
import { EVENT_STORE, REWIND_CONFIG } from '../infrastructure/tokens';
import { ShredSessionHandler } from './commands/shred-session.handler';
import { EncryptionController } from './encryption.controller';
import { EncryptRequestFieldsGuard } from './encrypt-request-fields.guard';
import { EncryptionPoliciesController } from './encryption-policies.controller';
import { SetMemoryKeyEncryptionHandler } from './commands/set-memory-key-encryption.handler';
import { SetToolEncryptionHandler } from './commands/set-tool-encryption.handler';
import { GetEncryptionPoliciesHandler } from './queries/get-encryption-policies.handler';
import { PolicyCache } from './policy-cache';
import { ENCRYPTION_POLICIES, FIELD_ENCRYPTION } from './tokens';

const DATA_KEY_STORE = Symbol('DATA_KEY_STORE');

/** Field-level encryption at the edge and crypto-shredding (needs the global InfrastructureModule). */
@Global()
@Module({
  controllers: [EncryptionController, EncryptionPoliciesController],
  providers: [
    {
      provide: DATA_KEY_STORE,
      inject: [EVENT_STORE, REWIND_CONFIG],
      useFactory: (store: EventStore, config: RewindConfig): Promise<DataKeyStore & EncryptionPolicyStore> | (DataKeyStore & EncryptionPolicyStore) =>
        store instanceof PostgresEventStore ? PostgresDataKeyStore.open(store.pool, store.schema) : new SqliteDataKeyStore(join(config.dataDir, 'rewind.db')),
    },
    {
      provide: FIELD_ENCRYPTION,
      inject: [DATA_KEY_STORE, REWIND_CONFIG],
      useFactory: (keys: DataKeyStore, config: RewindConfig) =>
        new FieldEncryption(keys, new MasterKeyProvider(loadMasterKey({ key: config.masterKey, file: config.masterKeyFile }))),
    },
    { provide: ENCRYPTION_POLICIES, useExisting: DATA_KEY_STORE },
    { provide: PolicyCache, inject: [ENCRYPTION_POLICIES], useFactory: (store: EncryptionPolicyStore) => new PolicyCache(store) },
    // After AppModule's ApiKeyGuard (global guards run in registration order; the root module's come first).
    { provide: APP_GUARD, useClass: EncryptRequestFieldsGuard },
    ShredSessionHandler,
    SetToolEncryptionHandler,
    SetMemoryKeyEncryptionHandler,
    GetEncryptionPoliciesHandler,
  ],
  exports: [FIELD_ENCRYPTION],
})
export class EncryptionModule implements OnApplicationShutdown {
  constructor(@Inject(DATA_KEY_STORE) private readonly keys: DataKeyStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.keys.close();
  }
}
