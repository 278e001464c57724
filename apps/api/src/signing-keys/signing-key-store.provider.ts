import { join } from 'node:path';
import type { Provider } from '@nestjs/common';
import { Pool } from 'pg';
import type { RewindConfig } from '@rewind/config';
import type { KafkaSigningSecretStore } from '@rewind/messaging';
import { PostgresKafkaSigningSecretStore } from '@rewind/messaging/postgres';
import { SqliteKafkaSigningSecretStore } from '@rewind/messaging/sqlite';
import { REWIND_CONFIG } from '../infrastructure/tokens';

/** The signing-key store, and how to release what it holds. */
export class SigningKeys {
  constructor(
    readonly store: KafkaSigningSecretStore,
    readonly close: () => Promise<void>,
  ) {}
}

/**
 * The signing keys where the worker reads them: the PostgreSQL database (a pool of its own, two
 * connections: admin traffic only), else the embedded file (on EventStoreDB too, as the worker).
 */
export const signingKeysProvider: Provider = {
  provide: SigningKeys,
  inject: [REWIND_CONFIG],
  useFactory: (config: RewindConfig): SigningKeys => {
    if (config.store !== 'postgres') {
      const store = new SqliteKafkaSigningSecretStore(join(config.dataDir, 'rewind.db'));
      return new SigningKeys(store, () => store.close());
    }
    const pool = new Pool({ connectionString: config.databaseUrl, max: 2 });
    return new SigningKeys(new PostgresKafkaSigningSecretStore(pool), () => pool.end());
  },
};
