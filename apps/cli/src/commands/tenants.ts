import { DomainError } from '@rewind/domain';
import { SessionRepository, SessionService, sessionIdFromStream } from '@rewind/engine';
import { describeShred, mergeShredReports, shredReportOf, type ShredReport } from '@rewind/tenancy';
import { idFlag, EXIT_OK, type CommandSpec } from '../command';
import { withBackend } from '../stores';
import { cliFieldEncryption } from './data-keys';
import { memoryShredWords, shredFromMemory } from './memory-shredding';
import { tenantSessions } from './tenant-sessions';

const shred: CommandSpec = {
  name: 'tenants shred',
  summary: 'Crypto-shred a tenant: destroy the data keys of all its sessions, so their encrypted fields can never be read again, and remove them from memory',
  flags: {
    tenant: { type: 'string', placeholder: '<id>', required: true, description: 'the tenant whose data keys to destroy' },
  },
  async run(context, flags) {
    const tenantId = idFlag(flags, 'tenant');
    const { keysDestroyed, sessionsMarked, report } = await withBackend(context, async ({ events: store, dataKeys: keys }) => {
      const encryption = cliFieldEncryption(keys, context);
      const recorder = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
      // Keys first, then the record in each session's stream: a failure in between leaves data unreadable, never readable.
      const record = async (sessionId: string, keyIds: string[]) =>
        recorder
          .execute({ tenantId, actor: 'cli' }, sessionId, { type: 'RecordShredding', keyIds, reason: 'rewind tenants shred' })
          // A key whose first encrypted write was refused has no session to record in.
          .catch((error: unknown) => {
            if (!(error instanceof DomainError && error.code === 'session_not_found')) throw error;
          });
      let keysDestroyed = 0;
      let sessionsMarked = 0;
      const reports: ShredReport[] = [];
      // Every session is marked, even one that never had a key: the record is what tells every
      // memory indexer (and any rebuild) to forget the session.
      for (const session of await tenantSessions(store, tenantId)) {
        const sessionId = sessionIdFromStream(session.streamId);
        // Read before the keys go: the output says which encrypted fields become unreadable, or that none were encrypted.
        reports.push(shredReportOf(await store.readStream(session.streamId)));
        const hadKey = (await keys.forSession(tenantId, sessionId)) !== null;
        const destroyed = await encryption.retire(tenantId, sessionId, 'cli');
        if (destroyed.length === 0) continue;
        if (hadKey) keysDestroyed += destroyed.length;
        sessionsMarked++;
        await record(
          sessionId,
          destroyed.map((k) => k.keyId),
        );
      }
      const rest = await encryption.shred(tenantId, null, 'cli');
      for (const sessionId of new Set(rest.map((k) => k.sessionId))) {
        await record(
          sessionId,
          rest.filter((k) => k.sessionId === sessionId).map((k) => k.keyId),
        );
      }
      return { keysDestroyed: keysDestroyed + rest.length, sessionsMarked, report: mergeShredReports(reports) };
    });
    const removedItems = await shredFromMemory(context, { tenantId });
    const memory = memoryShredWords(removedItems, 'the tenant');
    const done =
      keysDestroyed === 0 && sessionsMarked === 0
        ? `Tenant "${tenantId}" has no live data keys: nothing encrypted is left to shred; ${memory}.`
        : `Destroyed ${keysDestroyed} data key(s) of tenant "${tenantId}", recorded it in its ${sessionsMarked} session(s) and ${memory}; ${removedItems === null ? '' : 'recall finds nothing of it '}(other API processes drop cached keys within a second). Events stay in the log.`;
    context.io.stdout.write(`${done}\n${describeShred(`tenant "${tenantId}"`, report)}\n`);
    return EXIT_OK;
  },
};

export const tenantsCommands: CommandSpec[] = [shred];
