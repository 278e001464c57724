import { type ApiKeyStore } from '@rewind/tenancy';
import { SqliteApiKeyStore } from '@rewind/tenancy/sqlite';
import { PostgresApiKeyStore } from '@rewind/tenancy/postgres';
import { EXIT_OK, formatTable, idFlag, requireDatabase, stringFlag, UsageError, type CommandContext, type CommandSpec } from '../command';
import { storeSchemaOf, withPostgresPool } from '../stores';

/** The API keys of the configured store: the embedded file, or PostgreSQL with REWIND_STORE=postgres. */
async function withKeyStore<T>(context: CommandContext, use: (store: ApiKeyStore) => Promise<T>): Promise<T> {
  if (context.config.store === 'postgres') {
    return withPostgresPool(context, async (pool) => use(await PostgresApiKeyStore.open(pool, storeSchemaOf(context))));
  }
  const store = new SqliteApiKeyStore(context.databaseFile);
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

const create: CommandSpec = {
  name: 'keys create',
  summary: 'Create an API key for a tenant; the key is printed once, only its hash is stored',
  flags: {
    tenant: { type: 'string', placeholder: '<id>', required: true, description: 'the tenant the key acts for' },
    name: { type: 'string', placeholder: '<name>', description: 'a label to recognise the key by (default "created by rewind CLI")' },
    admin: { type: 'boolean', description: 'an admin key (default: an agent key)' },
  },
  async run(context, flags) {
    const tenantId = idFlag(flags, 'tenant');
    const name = stringFlag(flags, 'name') ?? 'created by rewind CLI';
    if (name.trim() === '' || name.length > 200) throw new UsageError('--name must be 1-200 characters');
    const role = flags.admin === true ? 'admin' : 'agent';
    const { key, record } = await withKeyStore(context, (store) => store.create({ tenantId, name, role }));
    // The key alone on stdout (so `KEY=$(rewind keys create ...)` works); the hint on stderr.
    context.io.stdout.write(`${key}\n`);
    context.io.stderr.write(
      `Created ${role} key ${record.keyId} for tenant "${tenantId}" — shown only this once, store it now; send it as "Authorization: Bearer <key>".\n`,
    );
    return EXIT_OK;
  },
};

const list: CommandSpec = {
  name: 'keys list',
  summary: 'List API keys (ids and labels; never the keys themselves)',
  flags: {
    tenant: { type: 'string', placeholder: '<id>', description: 'only the keys of this tenant' },
  },
  async run(context, flags) {
    const tenantId = flags.tenant === undefined ? undefined : idFlag(flags, 'tenant');
    if (context.config.store === 'sqlite') requireDatabase(context);
    const records = await withKeyStore(context, (store) => store.list(tenantId));
    if (records.length === 0) {
      context.io.stdout.write(tenantId ? `No API keys for tenant "${tenantId}".\n` : 'No API keys.\n');
      return EXIT_OK;
    }
    const rows = [['KEY ID', 'TENANT', 'ROLE', 'NAME', 'CREATED AT'], ...records.map((r) => [r.keyId, r.tenantId, r.role, r.name, r.createdAt])];
    context.io.stdout.write(formatTable(rows));
    return EXIT_OK;
  },
};

export const keysCommands: CommandSpec[] = [create, list];
