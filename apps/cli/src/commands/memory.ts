import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionRepository, SessionService } from '@rewind/engine';
import { EngineSessionPaths, MemoryIndexer } from '@rewind/memory';
import { IndexFileCheckpoints, indexFileHolders, SqlitePolicyStore } from '@rewind/memory/sqlite-vec';
import { MemoryConfigError, MemoryRuntime, memoryConfigFromEnv, POSTGRES_INDEXER_NAME, sqliteIndexFor, type MemoryConfig } from '@rewind/memory/runtime';
import type { Backend } from '@rewind/runtime';
import { CliError, EXIT_FAILURE, EXIT_OK, type CommandContext, type CommandSpec } from '../command';
import { withBackend } from '../stores';

/** The memory indexer's checkpoint name (the API's and this CLI's). */
const CHECKPOINT = 'memory-indexer';

function memoryConfig(context: CommandContext): MemoryConfig {
  try {
    const config = memoryConfigFromEnv(context.io.env, context.config.dataDir, context.config);
    if (!config.enabled) throw new CliError('Long-term memory is turned off (REWIND_MEMORY=off): there is no index to inspect or rebuild.');
    return config;
  } catch (error) {
    if (error instanceof MemoryConfigError) throw new CliError(error.message);
    throw error;
  }
}

/** On PostgreSQL, memory policies live there (shared by the API and the worker), not in the index file. */
function policiesOf(backend: Backend): { policies?: NonNullable<Backend['memoryPolicies']> } {
  return backend.memoryPolicies ? { policies: backend.memoryPolicies } : {};
}

const status: CommandSpec = {
  name: 'memory status',
  summary: 'Show the memory index: model, index, items, checkpoint and lag behind the event log',
  flags: {},
  async run(context) {
    const config = memoryConfig(context);
    const report = await withBackend(context, async (backend) => {
      const store = backend.events;
      const runtime = new MemoryRuntime({
        config,
        paths: new EngineSessionPaths(new SessionService(new SessionRepository(store, { snapshotEvery: 0 }))),
        store,
        checkpoints: backend.checkpoints,
        ...policiesOf(backend),
        placement: 'process',
      });
      try {
        await runtime.indexer.open();
        const { state: _state, indexedItems: _i, embeddedItems: _v, skippedEvents: _s, lastError: _e, ...rest } = await runtime.indexer.status();
        const where =
          config.index === 'sqlite' ? { file: config.sqliteFile } : config.index === 'postgres' ? { schema: config.postgresSchema } : { url: config.qdrantUrl };
        return { index: config.index, ...where, ...rest };
      } finally {
        await runtime.close();
      }
    });
    context.io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return EXIT_OK;
  },
};

/**
 * Replacing the index file under a live API or worker pulls it from under them (they go on
 * writing to a deleted file): refuse while one holds it, and say how to go on.
 */
function refuseWhileHeld(indexFile: string): void {
  const holders = indexFileHolders(indexFile);
  if (holders.length === 0) return;
  const who = holders.map((h) => `the ${h.process} (pid ${h.pid} on ${h.host}, seen ${Math.round(h.seenMsAgo / 1000)} s ago)`).join(', ');
  throw new CliError(
    `The memory index ${indexFile} is open in ${who}: rebuilding would delete the file under it, and what it indexes next would be lost. ` +
      'Stop that process (and every API or worker using this data folder), run `rewind memory rebuild` again, then start them; ' +
      '`rewind memory rebuild --verify` compares the index with the log without stopping anything.',
  );
}

/** The runtime's embedded index (a SqliteVectorIndex, or one per model under language routing): both list their items. */
function sqliteIndexOf(index: unknown): { listItems(): Promise<{ id: string; text: string; globalPosition: number }[]> } {
  return index as { listItems(): Promise<{ id: string; text: string; globalPosition: number }[]> };
}

/**
 * How far the live index has indexed the log (its checkpoint, kept per model): in the index file for
 * the embedded index (a file from before per-model checkpoints keeps the plain name), in the shared
 * store under the PostgreSQL indexer's name for the PostgreSQL index.
 */
async function liveCheckpointOf(config: MemoryConfig, backend: Backend, perModelName: string): Promise<number> {
  if (config.index === 'postgres') return backend.checkpoints.load(perModelName);
  const liveProgress = new IndexFileCheckpoints(config.sqliteFile, backend.checkpoints);
  try {
    return Math.max(await liveProgress.peek(perModelName), await liveProgress.peek(CHECKPOINT));
  } finally {
    await liveProgress.close();
  }
}

const rebuild: CommandSpec = {
  name: 'memory rebuild',
  summary:
    'Rebuild the embedded memory index from the event log into a fresh index (--verify: compare the live index, embedded or PostgreSQL, with the log; change nothing)',
  flags: {
    verify: { type: 'boolean', description: 'build a fresh index beside the live one, compare the two item by item, keep the live one as it is' },
  },
  async run(context, flags) {
    const config = memoryConfig(context);
    if (config.index === 'qdrant')
      throw new CliError(
        'memory rebuild works on the embedded and PostgreSQL indexes; for Qdrant, drop the collection and restart the worker with a fresh KAFKA_MEMORY_GROUP_ID to re-index from rewind.events.',
      );
    if (config.index === 'postgres' && !flags.verify) {
      const s = config.postgresSchema;
      // Every model's items are in the one table (language routing: each model's space), and each model keeps its own checkpoint.
      throw new CliError(
        `memory rebuild replaces the embedded index; the PostgreSQL index is the deployment's (\`--verify\` compares it with the log without changing it). To rebuild it, stop every API process and worker, ` +
          `delete every model's items and checkpoints (DELETE FROM ${s}.memory_items; DELETE FROM ${s}.subscriber_checkpoints WHERE name LIKE '${POSTGRES_INDEXER_NAME}@%'), ` +
          'and start them: the process holding the indexer lock indexes the log again.',
      );
    }
    if (!flags.verify) refuseWhileHeld(config.sqliteFile);
    // On PostgreSQL (--verify only) the fresh index is a file of its own, in a temporary folder: the data folder may hold nothing there.
    const scratch = config.index === 'postgres' ? mkdtempSync(join(tmpdir(), 'rewind-memory-verify-')) : undefined;
    const fresh = scratch ? join(scratch, 'rebuilt.memory.db') : `${config.sqliteFile}.rebuild-${process.pid}`;
    rmSync(fresh, { force: true });
    return withBackend(context, async (backend) => {
      const store = backend.events;
      // A one-shot command: embedding in this thread is what it is for.
      const runtime = new MemoryRuntime({
        config,
        paths: new EngineSessionPaths(new SessionService(new SessionRepository(store, { snapshotEvery: 0 }))),
        ...policiesOf(backend),
        placement: 'process',
      });
      // As the configuration uses it: with language routing, each model's items in that model's tables.
      const { index: freshIndex, file: freshFile } = sqliteIndexFor(config, fresh);
      // The fresh file keeps its own progress: swapped in, it carries on from where its build stopped.
      const progress = new IndexFileCheckpoints(fresh);
      const indexer = new MemoryIndexer({
        index: freshIndex,
        model: runtime.model,
        policies: runtime.policies,
        store,
        checkpoints: progress,
        batchSize: 512,
        name: CHECKPOINT,
      });
      const started = Date.now();
      try {
        await indexer.catchUp();
        const built = await indexer.status();
        const seconds = (Date.now() - started) / 1000;
        context.io.stderr.write(
          `Indexed ${built.items} items from ${built.checkpoint} events in ${seconds.toFixed(1)} s (${Math.round(built.items / Math.max(seconds, 0.001))} items/s).\n`,
        );
        if (flags.verify) {
          await runtime.indexer.open();
          const live = await sqliteIndexOf(runtime.index).listItems();
          const rebuilt = await freshIndex.listItems();
          const key = (i: { id: string; text: string }) => `${i.id}\u0000${i.text}`;
          const liveKeys = new Set(live.map(key));
          const rebuiltKeys = new Set(rebuilt.map(key));
          const missing = rebuilt.filter((i) => !liveKeys.has(key(i)));
          const extra = live.filter((i) => !rebuiltKeys.has(key(i)));
          // Items of events after the live checkpoint are not indexed yet: not a mismatch.
          const liveCheckpoint = await liveCheckpointOf(config, backend, await runtime.indexer.checkpointName());
          const pending = missing.filter((i) => i.globalPosition > liveCheckpoint);
          const result = {
            live: live.length,
            rebuilt: rebuilt.length,
            missingFromLive: missing.length - pending.length,
            notInLog: extra.length,
            notIndexedYet: pending.length,
          };
          context.io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          if (result.missingFromLive > 0 || extra.length > 0) {
            context.io.stderr.write('The live memory index does not match the event log. Run `rewind memory rebuild` (with the API stopped) to replace it.\n');
            return EXIT_FAILURE;
          }
          context.io.stderr.write('The live memory index matches the event log.\n');
          return EXIT_OK;
        }
        if (runtime.policies instanceof SqlitePolicyStore) {
          // Memory policies live in the same file: carry them over.
          new SqlitePolicyStore(freshFile.db);
          freshFile.db.prepare('ATTACH DATABASE ? AS live').run(config.sqliteFile);
          freshFile.db.exec('INSERT OR REPLACE INTO memory_policies SELECT * FROM live.memory_policies; DETACH DATABASE live');
        }
        await progress.close();
        await freshIndex.close();
        await runtime.close();
        refuseWhileHeld(config.sqliteFile); // again: a process may have started during the build
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${config.sqliteFile}${suffix}`, { force: true });
        renameSync(fresh, config.sqliteFile);
        context.io.stdout.write(`${JSON.stringify({ items: built.items, checkpoint: built.checkpoint, file: config.sqliteFile }, null, 2)}\n`);
        return EXIT_OK;
      } finally {
        await progress.close();
        await freshIndex.close();
        await runtime.close();
        for (const suffix of ['', '-wal', '-shm']) if (existsSync(`${fresh}${suffix}`)) rmSync(`${fresh}${suffix}`, { force: true });
        if (scratch) rmSync(scratch, { recursive: true, force: true });
      }
    });
  },
};

export const memoryCommands: CommandSpec[] = [status, rebuild];
