import { DEFAULT_SIGNING_ROTATION_GRACE_SECONDS, SigningKeyInputError, type KafkaSigningSecretStore } from '@rewind/messaging';
import { CliError, EXIT_OK, formatTable, idFlag, stringFlag, UsageError, type CommandContext, type CommandSpec } from '../command';

/** The Kafka signing keys of the configured store (where the worker reads them). `create`: the first key may create the file. */
async function withSigningKeys<T>(context: CommandContext, use: (store: KafkaSigningSecretStore) => Promise<T>, create = false): Promise<T> {
  const { signingKeys } = await context.backend({ create });
  try {
    return await use(signingKeys);
  } catch (error) {
    if (error instanceof SigningKeyInputError) throw new UsageError(error.message);
    throw error;
  }
}

const create: CommandSpec = {
  name: 'signing-keys create',
  summary: "Create a key that signs a tenant's Kafka commands; the secret is printed once",
  flags: {
    tenant: { type: 'string', placeholder: '<id>', required: true, description: 'the tenant whose commands the key may sign' },
    name: { type: 'string', placeholder: '<name>', description: 'a label to recognise the key by' },
    expires: { type: 'string', placeholder: '<iso-date>', description: 'refuse commands signed with it after this instant' },
  },
  async run(context, flags) {
    const tenantId = idFlag(flags, 'tenant');
    const name = stringFlag(flags, 'name');
    const expiresAt = stringFlag(flags, 'expires') ?? null;
    const key = await withSigningKeys(context, (store) => store.create({ tenantId, expiresAt, ...(name !== undefined ? { name } : {}) }), true);
    context.io.stdout.write(`${key.keyId} ${key.secret}\n`);
    context.io.stderr.write(
      `Created signing key ${key.keyId} for tenant "${key.tenantId}" — the secret is shown only this once; give it to the producer, which signs each ` +
        'command value with HMAC-SHA256 and sends "rewind-key-id: <keyId>" and "rewind-signature: v1=<hex>" (docs/asyncapi.yaml).\n',
    );
    return EXIT_OK;
  },
};

const list: CommandSpec = {
  name: 'signing-keys list',
  summary: 'List Kafka signing keys (ids, tenants, revocations; never the secrets)',
  flags: {
    tenant: { type: 'string', placeholder: '<id>', description: 'only the keys of this tenant' },
  },
  async run(context, flags) {
    const tenantId = flags.tenant === undefined ? undefined : idFlag(flags, 'tenant');
    const keys = await withSigningKeys(context, (store) => store.list(tenantId));
    if (keys.length === 0) {
      context.io.stdout.write(tenantId ? `No signing keys for tenant "${tenantId}".\n` : 'No signing keys.\n');
      return EXIT_OK;
    }
    const rows = [
      ['KEY ID', 'TENANT', 'NAME', 'CREATED AT', 'REVOKED AT', 'EXPIRES AT'],
      ...keys.map((k) => [k.keyId, k.tenantId, k.name, k.createdAt, k.revokedAt ?? '', k.expiresAt ?? '']),
    ];
    context.io.stdout.write(formatTable(rows));
    return EXIT_OK;
  },
};

const revoke: CommandSpec = {
  name: 'signing-keys revoke',
  summary: 'Revoke a Kafka signing key at once (commands signed with it go to the DLQ as unauthenticated)',
  flags: {
    key: { type: 'string', placeholder: '<keyId>', required: true, description: 'the key id, as listed' },
  },
  async run(context, flags) {
    const keyId = stringFlag(flags, 'key');
    if (!keyId) throw new UsageError('missing required option --key');
    if (!(await withSigningKeys(context, (store) => store.revoke(keyId))))
      throw new CliError(`no signing key "${keyId}": list them with "rewind signing-keys list".`);
    context.io.stdout.write(`Revoked ${keyId}.\n`);
    return EXIT_OK;
  },
};

const rotate: CommandSpec = {
  name: 'signing-keys rotate',
  summary: 'Give a Kafka signing key a new secret (same id); the old one keeps verifying for a grace period (default 24 h)',
  flags: {
    key: { type: 'string', placeholder: '<keyId>', required: true, description: 'the key id, as listed' },
    grace: {
      type: 'string',
      placeholder: '<seconds>',
      description: `how long the old secret keeps verifying (default ${DEFAULT_SIGNING_ROTATION_GRACE_SECONDS}; 0: at once)`,
    },
  },
  async run(context, flags) {
    const keyId = stringFlag(flags, 'key');
    if (!keyId) throw new UsageError('missing required option --key');
    const rawGrace = stringFlag(flags, 'grace');
    if (rawGrace !== undefined && !/^\d+$/.test(rawGrace)) throw new UsageError(`--grace "${rawGrace}" is not valid: expected whole seconds from 0`);
    const grace = rawGrace === undefined ? DEFAULT_SIGNING_ROTATION_GRACE_SECONDS : Number(rawGrace);
    const rotated = await withSigningKeys(context, (store) => store.rotate(keyId, grace));
    if (!rotated) throw new CliError(`no live signing key "${keyId}" (unknown or revoked): list them with "rewind signing-keys list".`);
    context.io.stdout.write(`${rotated.keyId} ${rotated.secret}\n`);
    context.io.stderr.write(
      `Rotated ${rotated.keyId}: the new secret is shown only this once; commands signed with the secret it replaced are accepted for ${grace} s more, ` +
        `and secrets replaced earlier keep their own grace (the last ends ${rotated.previousSecretValidUntil}).\n`,
    );
    return EXIT_OK;
  },
};

export const signingKeysCommands: CommandSpec[] = [create, list, rotate, revoke];
