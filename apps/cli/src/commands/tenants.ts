import { DomainError } from '@rewind/domain';
import { SessionRepository, SessionService } from '@rewind/engine';
import type { DataKeyStore } from '@rewind/tenancy';
import { PostgresEventStore } from '@rewind/event-store/postgres';
import { SqliteDataKeyStore } from '@rewind/tenancy/sqlite';
import { PostgresDataKeyStore } from '@rewind/tenancy/postgres';
import { idFlag, EXIT_OK, type CommandSpec } from '../command';
import { withEventStore } from './state';

const shred: CommandSpec = {
  name: 'tenants shred',
  summary: 'Crypto-shred a tenant: destroy the data keys of all its sessions, so their encrypted fields can never be read again',
  flags: {
    tenant: { type: 'string', placeholder: '<id>', required: true, description: 'the tenant whose data keys to destroy' },
  },
  async run(context, flags) {
    const tenantId = idFlag(flags, 'tenant');
    const destroyed = await withEventStore(context, async (store) => {
      const keys: DataKeyStore =
        store instanceof PostgresEventStore ? await PostgresDataKeyStore.open(store.pool, store.schema) : new SqliteDataKeyStore(context.databaseFile);
      try {
        const shredded = await keys.shred(tenantId, null, 'cli');
        // Keys first, then the record in each session's stream: a failure in between leaves data unreadable, never readable.
        const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
        for (const sessionId of new Set(shredded.map((k) => k.sessionId))) {
          await sessions
            .execute({ tenantId, actor: 'cli' }, sessionId, {
              type: 'RecordShredding',
              keyIds: shredded.filter((k) => k.sessionId === sessionId).map((k) => k.keyId),
              reason: 'rewind tenants shred',
            })
            // A key whose first encrypted write was refused has no session to record in.
            .catch((error: unknown) => {
              if (!(error instanceof DomainError && error.code === 'session_not_found')) throw error;
            });
        }
        return shredded.length;
      } finally {
        await keys.close();
      }
    });
    context.io.stdout.write(
      destroyed === 0
        ? `Tenant "${tenantId}" has no live data keys: nothing encrypted is left to shred.\n`
        : `Destroyed ${destroyed} data key(s) of tenant "${tenantId}" and recorded it in each session: its encrypted fields now read "[shredded]" on every read path (API processes drop cached keys within a second). Events stay in the log, as ciphertext.\n`,
    );
    return EXIT_OK;
  },
};

export const tenantsCommands: CommandSpec[] = [shred];
