import { sessionStreamId, sessionStreamPrefix } from '@rewind/engine';
import { formatDigest, logDigest, parseDigest, sealLog, verifyLog, type EventStore, type SealStore } from '@rewind/event-store';
import { EXIT_FAILURE, EXIT_OK, idFlag, stringFlag, UsageError, type CommandContext, type CommandSpec } from '../command';
import { withBackend } from '../stores';
import { DEFAULT_TENANT } from './state';

/** The configured event store and its seals (the embedded file, or the store's PostgreSQL schema). */
function withSeals<T>(context: CommandContext, use: (store: EventStore, seals: SealStore) => Promise<T>): Promise<T> {
  return withBackend(context, ({ events, seals }) => use(events, seals));
}

const verify: CommandSpec = {
  name: 'audit verify',
  summary:
    "Recompute every event's link in its stream's hash chain and check every snapshot's seal (read-only); exit 1 naming the first broken link or the altered snapshots",
  flags: {
    session: { type: 'string', placeholder: '<id>', description: 'only this session (of --tenant, default "default")' },
    tenant: { type: 'string', placeholder: '<id>', description: "only this tenant's sessions" },
    digest: { type: 'string', placeholder: '<digest>', description: 'a digest recorded earlier with `rewind audit digest`: the log must still yield it' },
    json: { type: 'boolean', description: 'print the result as JSON' },
  },
  async run(context, flags) {
    const digest = stringFlag(flags, 'digest');
    if (digest !== undefined && !parseDigest(digest)) throw new UsageError(`--digest "${digest}" is not a digest printed by \`rewind audit digest\``);
    const sessionId = flags.session === undefined ? undefined : idFlag(flags, 'session');
    const tenantId = flags.tenant === undefined ? undefined : idFlag(flags, 'tenant');
    return withSeals(context, async (store, seals) => {
      const options =
        sessionId !== undefined
          ? { streamIds: [sessionStreamId(tenantId ?? DEFAULT_TENANT, sessionId)] }
          : tenantId !== undefined
            ? { streamPrefix: sessionStreamPrefix(tenantId) }
            : {};
      const result = await verifyLog(store, seals, { ...options, ...(digest ? { expectedDigest: digest } : {}) });
      const scope = sessionId !== undefined ? `session "${sessionId}"` : tenantId !== undefined ? `tenant "${tenantId}"` : 'the whole log';
      if (flags.json === true) context.io.stdout.write(`${JSON.stringify({ scope, ...result }, null, 2)}\n`);
      else {
        const unsealed =
          result.unsealed > 0
            ? `; ${result.unsealed} event(s) not sealed yet (written before links, or by a store without them: the API seals them; \`rewind audit digest\` seals now)`
            : '';
        context.io.stdout.write(`Checked ${result.checked} event(s) and ${result.snapshotsChecked} snapshot(s) of ${scope}${unsealed}.\n`);
        if (result.digestMatches === true) context.io.stdout.write('The recorded digest still matches the log.\n');
      }
      if (result.ok) {
        if (flags.json !== true) context.io.stdout.write('Verified: every link and every snapshot seal holds; the log is as it was written.\n');
        return EXIT_OK;
      }
      for (const rejected of result.snapshotsRejected) {
        context.io.stderr.write(
          `rewind: audit verify failed: the snapshot of ${rejected.streamId} at version ${rejected.version} does not match its seal: ${rejected.problem}. It is not served (reads replay the events); delete it (\`rewind retention snapshots\`) after finding who changed it.\n`,
        );
      }
      const broken = result.firstBroken;
      if (broken) {
        const at = `${broken.streamId}${broken.streamVersion !== null ? ` version ${broken.streamVersion}` : ''}${broken.position !== null ? ` (global position ${broken.position})` : ''}`;
        context.io.stderr.write(`rewind: audit verify failed: first broken link at ${at}: ${broken.problem}.\n`);
      } else if (result.digestMatches === false) {
        context.io.stderr.write(
          'rewind: audit verify failed: the log no longer yields the recorded digest — events or seals before its position were rewritten, though the chains were recomputed to hide it.\n',
        );
      }
      return EXIT_FAILURE;
    });
  },
};

const digest: CommandSpec = {
  name: 'audit digest',
  summary: 'Seal the log up to its head and print its digest, for an auditor to record and check later with `audit verify --digest`',
  flags: {
    json: { type: 'boolean', description: 'print the digest with its position, count and block roots as JSON' },
  },
  async run(context, flags) {
    return withSeals(context, async (store, seals) => {
      await sealLog(store, seals);
      const d = await logDigest(store, seals);
      if (flags.json === true) context.io.stdout.write(`${JSON.stringify({ digest: formatDigest(d), ...d }, null, 2)}\n`);
      else {
        context.io.stdout.write(`${formatDigest(d)}\n`);
        context.io.stderr.write(
          `Covers ${d.events} event(s) up to global position ${d.position} (${d.blockRoots.length} full block(s) of Merkle roots). Record this line; later, \`rewind audit verify --digest <it>\` proves nothing before it changed.\n`,
        );
      }
      return EXIT_OK;
    });
  },
};

const rotateSnapshotKey: CommandSpec = {
  name: 'audit rotate-snapshot-key',
  summary: 'Draw a new key to seal snapshots with (SQLite, PostgreSQL); snapshots sealed with the earlier keys keep verifying',
  flags: {},
  async run(context) {
    return withSeals(context, async (store) => {
      if (!store.rotateSnapshotKey) {
        context.io.stderr.write('rewind: this event store keeps no snapshot seals (EventStoreDB): there is no snapshot key to rotate.\n');
        return EXIT_FAILURE;
      }
      const id = await store.rotateSnapshotKey();
      context.io.stdout.write(
        `Snapshot key ${id} seals snapshots from now on (running processes take it up at their first snapshot sealed with it); snapshots sealed with earlier keys keep verifying.\n`,
      );
      return EXIT_OK;
    });
  },
};

export const auditCommands: CommandSpec[] = [verify, digest, rotateSnapshotKey];
