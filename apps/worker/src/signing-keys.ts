import { resolve } from 'node:path';
import { SigningKeyInputError } from '../../../libs/messaging/src/signing/signing-secret-store';
import { SqliteKafkaSigningSecretStore } from '../../../libs/messaging/src/signing/sqlite-signing-secret-store';
import { databaseFile } from './worker';

const USAGE = `Signing keys for Kafka commands (stored in $REWIND_DATA_DIR/rewind.db):

  node dist/apps/worker/src/signing-keys.js create --tenant <tenantId> [--name <text>]
  node dist/apps/worker/src/signing-keys.js list [--tenant <tenantId>]
  node dist/apps/worker/src/signing-keys.js revoke <keyId>

A producer signs each command message value with HMAC-SHA256 and the secret, and sends the
headers "rewind-key-id: <keyId>" and "rewind-signature: v1=<hex>" (see docs/asyncapi.yaml).
`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Runs one subcommand; returns the process exit code. Output goes to `out`, errors to `err`. */
export async function runSigningKeys(args: string[], env: NodeJS.ProcessEnv, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const [command, ...rest] = args;
  if (!command || command === 'help' || command === '--help') {
    out(USAGE);
    return command ? 0 : 2;
  }
  const store = new SqliteKafkaSigningSecretStore(databaseFile(resolve(env.REWIND_DATA_DIR || './data')));
  try {
    switch (command) {
      case 'create': {
        const tenantId = option(rest, '--tenant');
        if (!tenantId) {
          err('create needs --tenant <tenantId>: the tenant whose commands this key may sign.\n');
          return 2;
        }
        const name = option(rest, '--name');
        const key = await store.create({ tenantId, ...(name ? { name } : {}) });
        out(
          `Created signing key ${key.keyId} for tenant "${key.tenantId}". The secret is shown only here; store it with the producer:\n\n` +
            `  keyId:  ${key.keyId}\n  secret: ${key.secret}\n\n`,
        );
        return 0;
      }
      case 'list': {
        const tenant = option(rest, '--tenant');
        const keys = await store.list(tenant);
        if (keys.length === 0) out('No signing keys yet. Create one with: signing-keys create --tenant <tenantId>\n');
        for (const k of keys)
          out(`${k.keyId}  tenant=${k.tenantId}  name="${k.name}"  created=${k.createdAt}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}\n`);
        return 0;
      }
      case 'revoke': {
        const keyId = rest[0];
        if (!keyId) {
          err('revoke needs the key id, e.g. revoke sk_0123456789ab\n');
          return 2;
        }
        if (!(await store.revoke(keyId))) {
          err(`No signing key "${keyId}". List them with: signing-keys list\n`);
          return 1;
        }
        out(`Revoked ${keyId}: commands signed with it now go to the DLQ as "unauthenticated".\n`);
        return 0;
      }
      default:
        err(`Unknown subcommand "${command}".\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof SigningKeyInputError) {
      err(`${error.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    await store.close();
  }
}

if (require.main === module) {
  runSigningKeys(
    process.argv.slice(2),
    process.env,
    (s) => process.stdout.write(s),
    (s) => process.stderr.write(s),
  ).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`signing-keys failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
