import { SessionRepository, SessionService, sessionStreamId } from '@rewind/engine';
import { presentState } from '@rewind/engine';
import { CliError, EXIT_OK, idFlag, positiveIntFlag, type CommandSpec } from '../command';
import { withEventStore } from '../stores';

export const DEFAULT_TENANT = 'default';

const stateAt: CommandSpec = {
  name: 'state-at',
  summary: 'Print the JSON state of a session at any version (any branch), read from the store',
  flags: {
    session: { type: 'string', placeholder: '<id>', required: true, description: 'the session id' },
    version: { type: 'string', placeholder: '<v>', required: true, description: 'the stream version' },
    tenant: { type: 'string', placeholder: '<id>', description: `the tenant (default "${DEFAULT_TENANT}")` },
  },
  async run(context, flags) {
    const sessionId = idFlag(flags, 'session');
    const version = positiveIntFlag(flags, 'version');
    const tenantId = idFlag(flags, 'tenant', DEFAULT_TENANT);
    const state = await withEventStore(context, async (store) => {
      if ((await store.streamVersion(sessionStreamId(tenantId, sessionId))) === 0) throw new CliError(`no session "${sessionId}" for tenant "${tenantId}".`);
      const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: context.config.snapshotEvery }));
      return sessions.getState({ tenantId, actor: 'cli' }, sessionId, version);
    });
    context.io.stdout.write(`${JSON.stringify(presentState(state), null, 2)}\n`);
    return EXIT_OK;
  },
};

export const stateCommands: CommandSpec[] = [stateAt];
