import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { RewindConfig } from '@rewind/config';
import { FieldEncryption, loadMasterKey, MasterKeyProvider, type DataKeyStore, type EncryptionPolicyStore } from '@rewind/tenancy';
import { DATA_KEY_STORE, REWIND_CONFIG } from '../infrastructure/tokens';
import { ShredSessionHandler } from './commands/shred-session.handler';
import { EncryptionController } from './encryption.controller';
import { EncryptRequestFieldsGuard } from './encrypt-request-fields.guard';
import { EncryptionPoliciesController } from './encryption-policies.controller';
import { SetMemoryKeyEncryptionHandler } from './commands/set-memory-key-encryption.handler';
import { SetToolEncryptionHandler } from './commands/set-tool-encryption.handler';
import { GetEncryptionPoliciesHandler } from './queries/get-encryption-policies.handler';
import { PolicyCache } from './policy-cache';
import { ENCRYPTION_POLICIES, FIELD_ENCRYPTION } from './tokens';

/** Field-level encryption at the edge and crypto-shredding (needs the global InfrastructureModule: DATA_KEY_STORE). */
@Global()
@Module({
  controllers: [EncryptionController, EncryptionPoliciesController],
  providers: [
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
export class EncryptionModule {}
