import { sessionStreamId } from '@rewind/engine';
import { CliError, EXIT_OK, idFlag, type CommandSpec } from '../command';
import { DEFAULT_TENANT, withEventStore } from './state';

const PAGE = 1_000;

const exportEvents: CommandSpec = {
  name: 'events export',
  summary: "Write a session's events to stdout as NDJSON (one JSON event per line, in stream order)",
  flags: {
    session: { type: 'string', placeholder: '<id>', required: true, description: 'the session id' },
    tenant: { type: 'string', placeholder: '<id>', description: `the tenant (default "${DEFAULT_TENANT}")` },
  },
  async run(context, flags) {
    const sessionId = idFlag(flags, 'session');
    const tenantId = idFlag(flags, 'tenant', DEFAULT_TENANT);
    const streamId = sessionStreamId(tenantId, sessionId);
    await withEventStore(context, async (store) => {
      if ((await store.streamVersion(streamId)) === 0) throw new CliError(`no session "${sessionId}" for tenant "${tenantId}".`);
      for (let from = 1; ; from += PAGE) {
        const events = await store.readStream(streamId, { fromVersion: from, limit: PAGE });
        if (events.length > 0) context.io.stdout.write(events.map((event) => JSON.stringify(event) + '\n').join(''));
        if (events.length < PAGE) break;
      }
    });
    return EXIT_OK;
  },
};

export const eventsCommands: CommandSpec[] = [exportEvents];
