import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SEGMENTED_FORMAT, SessionRepository, SessionService, sessionIdFromStream, type SegmentedHead } from '@rewind/engine';
import type { EventStore, StreamSummary } from '@rewind/event-store';
import type { DataKeyStore, FieldEncryption, RetentionPolicy } from '@rewind/tenancy';
import { EXIT_OK, idFlag, positiveIntFlag, stringFlag, UsageError, type CommandContext, type CommandSpec } from '../command';
import { withBackend } from '../stores';
import { cliFieldEncryption } from './data-keys';
import { memoryShredWords, shredFromMemory } from './memory-shredding';
import { tenantSessions } from './tenant-sessions';

const PAGE = 1000;

async function inactiveSessions(store: EventStore, tenantId: string, before: number): Promise<StreamSummary[]> {
  return (await tenantSessions(store, tenantId)).filter((s) => Date.parse(s.updatedAt) < before);
}

/** Writes a session's events as NDJSON, decrypted (the archive is the readable copy), and syncs the file. */
async function exportSession(
  store: EventStore,
  encryption: FieldEncryption,
  tenantId: string,
  streamId: string,
  file: string,
): Promise<{ events: number; bytes: number }> {
  const fd = openSync(file, 'wx', 0o600);
  let events = 0;
  let bytes = 0;
  try {
    for (let from = 1; ; from += PAGE) {
      const page = await store.readStream(streamId, { fromVersion: from, limit: PAGE });
      const text = (await encryption.decryptDeep(tenantId, page)).map((e) => JSON.stringify(e) + '\n').join('');
      if (text) bytes += writeSync(fd, text);
      events += page.length;
      if (page.length < PAGE) break;
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { events, bytes };
}

const run: CommandSpec = {
  name: 'retention run',
  summary:
    "Apply retention: each tenant's sessions inactive for N days (its policy, or --tenant with --inactive-days) are exported to NDJSON, then crypto-shredded; events are never deleted",
  flags: {
    tenant: { type: 'string', placeholder: '<id>', description: 'only this tenant, with --inactive-days (default: every tenant with a policy)' },
    'inactive-days': { type: 'string', placeholder: '<n>', description: 'sessions with no event for this many days (with --tenant)' },
    'export-dir': { type: 'string', placeholder: '<dir>', description: 'where the NDJSON archives go, one file per session (required unless --dry-run)' },
    'dry-run': { type: 'boolean', description: 'only say what would be exported and shredded' },
  },
  async run(context, flags) {
    const given = flags.tenant !== undefined || flags['inactive-days'] !== undefined;
    if (given && (flags.tenant === undefined || flags['inactive-days'] === undefined)) {
      throw new UsageError('give --tenant and --inactive-days together, or neither to apply every stored policy (`rewind retention set`)');
    }
    const dryRun = flags['dry-run'] === true;
    const exportDir = stringFlag(flags, 'export-dir');
    if (!dryRun && !exportDir) throw new UsageError('--export-dir is required (the sessions are exported before their keys are destroyed), or give --dry-run');
    const out = context.io.stdout;
    return withBackend(context, async ({ events: store, dataKeys: keys }) => {
      const policies = given ? [{ tenantId: idFlag(flags, 'tenant'), inactiveDays: positiveIntFlag(flags, 'inactive-days') }] : await keys.retentionPolicies();
      if (policies.length === 0) out.write('No retention policy is set: `rewind retention set --tenant <id> --inactive-days <n>` sets one.\n');
      const encryption = cliFieldEncryption(keys, context);
      for (const policy of policies) await applyPolicy(context, store, keys, encryption, policy, { dryRun, exportDir });
      return EXIT_OK;
    });
  },
};

async function applyPolicy(
  context: CommandContext,
  store: EventStore,
  keys: DataKeyStore,
  encryption: FieldEncryption,
  { tenantId, inactiveDays: days }: RetentionPolicy,
  { dryRun, exportDir }: { dryRun: boolean; exportDir: string | undefined },
): Promise<void> {
  const out = context.io.stdout;
  const before = Date.now() - days * 86_400_000;
  const sessions = await inactiveSessions(store, tenantId, before);
  const recorder = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
  let exported = 0;
  let shredded = 0;
  let bytes = 0;
  let skipped = 0;
  const dir = exportDir ? resolve(exportDir, tenantId) : '';
  if (!dryRun) mkdirSync(dir, { recursive: true });
  for (const session of sessions) {
    const sessionId = sessionIdFromStream(session.streamId);
    const key = await keys.forSession(tenantId, sessionId);
    if (key && key.wrapped === null) {
      skipped++;
      continue;
    }
    if (dryRun) {
      out.write(
        `would export ${session.version} event(s) of session "${sessionId}" (last active ${session.updatedAt})${key ? ' and shred its data key' : ''}\n`,
      );
      continue;
    }
    const file = join(dir, `${sessionId}.ndjson`);
    const written = await exportSession(store, encryption, tenantId, session.streamId, file);
    bytes += written.bytes;
    exported++;
    // A session that never had a key gets a destroyed one: it is marked retired, and refuses encrypted writes.
    const destroyed = await encryption.retire(tenantId, sessionId, `retention:${days}d`);
    if (key) shredded += destroyed.length;
    if (destroyed.length > 0) {
      await recorder.execute({ tenantId, actor: 'cli:retention' }, sessionId, {
        type: 'RecordShredding',
        keyIds: destroyed.map((k) => k.keyId),
        reason: `retention: inactive for ${days}+ days, exported first`,
      });
    }
    const removedItems = await shredFromMemory(context, { tenantId, sessionId });
    out.write(
      `exported ${written.events} event(s) of session "${sessionId}" to ${file}${key ? ', then shredded its data key' : ' (nothing was encrypted; marked retired)'}` +
        `${removedItems === null ? ` (${memoryShredWords(null, 'its')})` : removedItems > 0 ? ` and removed its ${removedItems} memory item(s)` : ''}\n`,
    );
  }
  out.write(
    dryRun
      ? `Dry run: ${sessions.length - skipped} of tenant "${tenantId}"'s sessions are inactive for ${days}+ days (${skipped} already shredded); nothing was changed.\n`
      : `Tenant "${tenantId}": exported ${exported} session(s) (${bytes} bytes of NDJSON) and destroyed ${shredded} data key(s); ${skipped} session(s) were already shredded. The events stay in the log as ciphertext.\n`,
  );
}

/** The segment ids a stored snapshot refers to (the engine's segmented format). */
const referencedSegments = (state: unknown): string[] =>
  state && typeof state === 'object' && (state as SegmentedHead).format === SEGMENTED_FORMAT ? Object.values((state as SegmentedHead).segments).flat() : [];

const snapshots: CommandSpec = {
  name: 'retention snapshots',
  summary: 'Prune snapshots to the newest K per stream and collect the segments none of them refers to (caches: always safe; events untouched)',
  flags: {
    keep: { type: 'string', placeholder: '<k>', required: true, description: 'snapshots kept per stream, newest first' },
    'dry-run': { type: 'boolean', description: 'only count what would be deleted and the bytes it holds' },
  },
  async run(context, flags) {
    const keep = positiveIntFlag(flags, 'keep');
    const dryRun = flags['dry-run'] === true;
    return withBackend(context, async (backend) => {
      const result = await backend.pruneSnapshots({ keep, dryRun, referencedSegments });
      context.io.stdout.write(
        `${dryRun ? 'Dry run: would delete' : 'Deleted'} ${result.snapshotsDeleted} snapshot(s) and ${result.segmentsDeleted} unreferenced segment(s) in ${result.streams} stream(s), ` +
          `${result.bytesReclaimed} bytes${dryRun ? '' : backend.kind === 'eventstoredb' ? ' (EventStoreDB frees them at its next scavenge)' : ' reclaimed (reused by the database; the file shrinks only on VACUUM)'}.\n`,
      );
      return EXIT_OK;
    });
  },
};

const set: CommandSpec = {
  name: 'retention set',
  summary: "Set a tenant's retention policy (sessions inactive for N days are exported, then shredded, by `retention run`)",
  flags: {
    tenant: { type: 'string', placeholder: '<id>', required: true, description: 'the tenant' },
    'inactive-days': { type: 'string', placeholder: '<n>', description: 'sessions with no event for this many days' },
    off: { type: 'boolean', description: "remove the tenant's policy" },
  },
  async run(context, flags) {
    const tenantId = idFlag(flags, 'tenant');
    if ((flags.off === true) === (flags['inactive-days'] !== undefined)) throw new UsageError('give either --inactive-days <n> or --off');
    const days = flags.off === true ? null : positiveIntFlag(flags, 'inactive-days');
    await withBackend(context, ({ dataKeys }) => dataKeys.setRetention(tenantId, days));
    context.io.stdout.write(
      days === null
        ? `Tenant "${tenantId}" has no retention policy any more.\n`
        : `Tenant "${tenantId}": sessions inactive for ${days} days are exported, then shredded, by \`rewind retention run\`.\n`,
    );
    return EXIT_OK;
  },
};

export const retentionCommands: CommandSpec[] = [set, run, snapshots];
