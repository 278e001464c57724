import type { EventStore } from '@rewind/event-store';
import { PostgresEventStore } from '@rewind/event-store/postgres';
import { FieldEncryption, loadMasterKey, MasterKeyProvider, type DataKeyStore } from '@rewind/tenancy';
import { PostgresDataKeyStore } from '@rewind/tenancy/postgres';
import { SqliteDataKeyStore } from '@rewind/tenancy/sqlite';
import type { CommandContext } from '../command';

/** The data keys (and encryption and retention policies) beside the configured store. */
export async function openDataKeys(store: EventStore, context: CommandContext): Promise<PostgresDataKeyStore | SqliteDataKeyStore> {
  return store instanceof PostgresEventStore ? PostgresDataKeyStore.open(store.pool, store.schema) : new SqliteDataKeyStore(context.databaseFile);
}

/** Field encryption with the configured master key; no key cache (a CLI command reads once). */
export function cliFieldEncryption(keys: DataKeyStore, context: CommandContext): FieldEncryption {
  return new FieldEncryption(keys, new MasterKeyProvider(loadMasterKey({ key: context.config.masterKey, file: context.config.masterKeyFile })), 0);
}
