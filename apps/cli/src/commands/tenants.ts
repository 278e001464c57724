import type { DataKeyStore } from '@rewind/tenancy';
import { SqliteDataKeyStore } from '@rewind/tenancy/sqlite';
import { PostgresDataKeyStore } from '@rewind/tenancy/postgres';
import { EXIT_OK, idFlag, requireDatabase, type CommandContext, type CommandSpec } from '../command';
import { storeSchemaOf, withPostgresPool } from '../stores';

/** The data keys of the configured store (where the API encrypts fields). */
async function withDataKeys<T>(context: CommandContext, use: (keys: DataKeyStore) => Promise<T>): Promise<T> {
  const run = async (keys: DataKeyStore) => {
    try {
      return await use(keys);
    } finally {
      await keys.close();
    }
  };
  if (context.config.store === 'postgres') return withPostgresPool(context, async (pool) => run(await PostgresDataKeyStore.open(pool, storeSchemaOf(context))));
  requireDatabase(context);
  return run(new SqliteDataKeyStore(context.databaseFile));
}

const shred: CommandSpec = {
  name: 'tenants shred',
  summary: 'Crypto-shred a tenant: destroy the data keys of all its sessions, so their encrypted fields can never be read again',
  flags: {
    tenant: { type: 'string', placeholder: '<id>', required: true, description: 'the tenant whose data keys to destroy' },
  },
  async run(context, flags) {
    const tenantId = idFlag(flags, 'tenant');
    const destroyed = await withDataKeys(context, (keys) => keys.shred(tenantId, null, 'cli'));
    context.io.stdout.write(
      destroyed === 0
        ? `Tenant "${tenantId}" has no live data keys: nothing encrypted is left to shred.\n`
        : `Destroyed ${destroyed} data key(s) of tenant "${tenantId}": its encrypted fields now read "[shredded]" on every read path (API processes drop cached keys within a second). Events stay in the log, as ciphertext.\n`,
    );
    return EXIT_OK;
  },
};

export const tenantsCommands: CommandSpec[] = [shred];
