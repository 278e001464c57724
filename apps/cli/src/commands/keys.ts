import { ApiKeyLifecycleError, DEFAULT_ROTATION_GRACE_SECONDS, type ApiKeyScope, type ApiKeyStore } from '@rewind/tenancy';
import { CliError, EXIT_OK, formatTable, idFlag, stringFlag, UsageError, type CommandContext, type CommandSpec } from '../command';

/** The API keys of the configured store: the embedded file, or PostgreSQL with REWIND_STORE=postgres. `create`: the first key may create the file. */
async function withKeyStore<T>(context: CommandContext, use: (store: ApiKeyStore) => Promise<T>, create = false): Promise<T> {
  const { apiKeys } = await context.backend({ create });
  try {
    return await use(apiKeys);
  } catch (error) {
    if (error instanceof ApiKeyLifecycleError) throw error.reason === 'invalid' ? new UsageError(error.message) : new CliError(error.message);
    throw error;
  }
}

function scopesFlag(flags: Record<string, string | boolean | undefined>): ApiKeyScope[] | undefined {
  const raw = stringFlag(flags, 'scopes');
  if (flags.admin === true) {
    if (raw !== undefined) throw new UsageError('give either --admin or --scopes, not both');
    return ['admin'];
  }
  return raw === undefined ? undefined : (raw.split(',').map((s) => s.trim()) as ApiKeyScope[]);
}

function keyIdFlag(flags: Record<string, string | boolean | undefined>): string {
  const keyId = stringFlag(flags, 'key');
  if (!keyId) throw new UsageError('missing required option --key');
  return keyId;
}

const create: CommandSpec = {
  name: 'keys create',
  summary: 'Create an API key for a tenant; the key is printed once, only its hash is stored',
  flags: {
    tenant: { type: 'string', placeholder: '<id>', required: true, description: 'the tenant the key acts for' },
    name: { type: 'string', placeholder: '<name>', description: 'a label to recognise the key by (default "created by rewind CLI")' },
    scopes: { type: 'string', placeholder: '<list>', description: 'comma-separated: admin, write, read, audit (default write,read: an agent key)' },
    admin: { type: 'boolean', description: 'an admin key (same as --scopes admin)' },
    expires: { type: 'string', placeholder: '<iso-date>', description: 'refuse the key after this instant, e.g. 2027-01-31T00:00:00Z' },
  },
  async run(context, flags) {
    const tenantId = idFlag(flags, 'tenant');
    const name = stringFlag(flags, 'name') ?? 'created by rewind CLI';
    if (name.trim() === '' || name.length > 200) throw new UsageError('--name must be 1-200 characters');
    const scopes = scopesFlag(flags);
    const expiresAt = stringFlag(flags, 'expires') ?? null;
    const { key, record } = await withKeyStore(context, (store) => store.create({ tenantId, name, ...(scopes ? { scopes } : {}), expiresAt }), true);
    // The key alone on stdout (so `KEY=$(rewind keys create ...)` works); the hint on stderr.
    context.io.stdout.write(`${key}\n`);
    context.io.stderr.write(
      `Created key ${record.keyId} (scopes ${record.scopes.join(', ')}${record.expiresAt ? `, expires ${record.expiresAt}` : ''}) for tenant "${tenantId}" — shown only this once, store it now; send it as "Authorization: Bearer <key>".\n`,
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
    const records = await withKeyStore(context, (store) => store.list(tenantId));
    if (records.length === 0) {
      context.io.stdout.write(tenantId ? `No API keys for tenant "${tenantId}".\n` : 'No API keys.\n');
      return EXIT_OK;
    }
    const rows = [
      ['KEY ID', 'TENANT', 'SCOPES', 'STATUS', 'NAME', 'CREATED AT'],
      ...records.map((r) => [r.keyId, r.tenantId, r.scopes.join(','), statusOf(r), r.name, r.createdAt]),
    ];
    context.io.stdout.write(formatTable(rows));
    return EXIT_OK;
  },
};

function statusOf(r: { revokedAt: string | null; expiresAt: string | null; previousSecretValidUntil: string | null }): string {
  if (r.revokedAt) return `revoked ${r.revokedAt}`;
  if (r.expiresAt && Date.parse(r.expiresAt) <= Date.now()) return `expired ${r.expiresAt}`;
  const parts = ['active'];
  if (r.expiresAt) parts.push(`until ${r.expiresAt}`);
  if (r.previousSecretValidUntil && Date.parse(r.previousSecretValidUntil) > Date.now()) parts.push(`old secret until ${r.previousSecretValidUntil}`);
  return parts.join(', ');
}

const revoke: CommandSpec = {
  name: 'keys revoke',
  summary: 'Revoke an API key: every API process refuses it within a second',
  flags: {
    key: { type: 'string', placeholder: '<keyId>', required: true, description: 'the key id, as listed' },
  },
  async run(context, flags) {
    const keyId = keyIdFlag(flags);
    const record = await withKeyStore(context, (store) => store.revoke(keyId));
    context.io.stdout.write(`Revoked ${record.keyId} (tenant "${record.tenantId}") at ${record.revokedAt}.\n`);
    return EXIT_OK;
  },
};

const rotate: CommandSpec = {
  name: 'keys rotate',
  summary: 'Give an API key a new secret (same id); the old one keeps working for a grace period (default 24 h)',
  flags: {
    key: { type: 'string', placeholder: '<keyId>', required: true, description: 'the key id, as listed' },
    grace: {
      type: 'string',
      placeholder: '<seconds>',
      description: `how long the old secret keeps working (default ${DEFAULT_ROTATION_GRACE_SECONDS}; 0: refused at once)`,
    },
  },
  async run(context, flags) {
    const keyId = keyIdFlag(flags);
    const rawGrace = stringFlag(flags, 'grace');
    const grace = rawGrace === undefined ? DEFAULT_ROTATION_GRACE_SECONDS : Number(rawGrace);
    if (rawGrace !== undefined && !/^\d+$/.test(rawGrace)) throw new UsageError(`--grace "${rawGrace}" is not valid: expected whole seconds from 0`);
    const { key, record } = await withKeyStore(context, (store) => store.rotate(keyId, grace));
    context.io.stdout.write(`${key}\n`);
    context.io.stderr.write(
      `Rotated ${record.keyId}: the new secret is shown only this once; the old one works until ${record.previousSecretValidUntil}. Events keep recording actor key:${record.keyId}.\n`,
    );
    return EXIT_OK;
  },
};

export const keysCommands: CommandSpec[] = [create, list, revoke, rotate];
