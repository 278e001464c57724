import { sessionStreamId } from '@rewind/engine';
import { CliError, EXIT_OK, idFlag, type CommandSpec } from '../command';
import { withBackend } from '../stores';
import { cliFieldEncryption } from './data-keys';
import { DEFAULT_TENANT } from './state';

const PAGE = 1_000;

const exportEvents: CommandSpec = {
  name: 'events export',
  summary:
    'Write a session\'s events to stdout as NDJSON (one JSON event per line, in stream order), encrypted fields decrypted (shredded ones read "[shredded]"); --as-stored: ciphertext, as in the store',
  flags: {
    session: { type: 'string', placeholder: '<id>', required: true, description: 'the session id' },
    tenant: { type: 'string', placeholder: '<id>', description: `the tenant (default "${DEFAULT_TENANT}")` },
    'as-stored': {
      type: 'boolean',
      description: 'write encrypted fields as stored (ciphertext; for backups: readable only with the data keys and the master key)',
    },
  },
  async run(context, flags) {
    const sessionId = idFlag(flags, 'session');
    const tenantId = idFlag(flags, 'tenant', DEFAULT_TENANT);
    const streamId = sessionStreamId(tenantId, sessionId);
    await withBackend(context, async ({ events: store, dataKeys }) => {
      if ((await store.streamVersion(streamId)) === 0) throw new CliError(`no session "${sessionId}" for tenant "${tenantId}".`);
      // Like the HTTP reads: the CLI reads the database directly, so it is as authorised as an admin key.
      const encryption = flags['as-stored'] === true ? null : cliFieldEncryption(dataKeys, context);
      for (let from = 1; ; from += PAGE) {
        const stored = await store.readStream(streamId, { fromVersion: from, limit: PAGE });
        const events = encryption ? await encryption.decryptDeep(tenantId, stored) : stored;
        if (events.length > 0) context.io.stdout.write(events.map((event) => JSON.stringify(event) + '\n').join(''));
        if (stored.length < PAGE) break;
      }
    });
    return EXIT_OK;
  },
};

export const eventsCommands: CommandSpec[] = [exportEvents];
