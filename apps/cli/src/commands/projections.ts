import type { EventStore } from '@rewind/event-store';
import {
  formatVerification,
  PROJECTION_NAMES,
  projectionStatuses,
  ProjectionSupervisor,
  ReadModelDatabase,
  ReadModelUnavailableError,
  RebuildBusyError,
  rebuildProjections,
  selectProjections,
  SILENT_LOGGER,
  UnknownProjectionError,
  type RebuildProgress,
} from '@rewind/projections';
import { CliError, EXIT_FAILURE, EXIT_OK, formatTable, stringFlag, UsageError, type CommandContext, type CommandSpec, type Flags } from '../command';

/** What the projection commands work on. */
export interface ProjectionTarget {
  store: EventStore;
  db: ReadModelDatabase;
  where: string;
}

/** The event store and the read models the API uses, from the command's backend. */
export async function withProjections<T>(context: CommandContext, use: (target: ProjectionTarget) => Promise<T>): Promise<T> {
  const backend = await context.backend();
  let db: ReadModelDatabase;
  try {
    db = await backend.readModels();
  } catch (error) {
    if (error instanceof ReadModelUnavailableError) throw new CliError(error.message);
    throw error;
  }
  try {
    return await use({ store: backend.events, db, where: backend.describe() });
  } catch (error) {
    if (error instanceof RebuildBusyError || error instanceof ReadModelUnavailableError) throw new CliError(error.message);
    throw error;
  }
}

function projectionNames(flags: Flags): string[] {
  const raw = stringFlag(flags, 'projection');
  const names = raw ? raw.split(/[\s,]+/).filter((n) => n.length > 0) : [];
  try {
    selectProjections(names);
  } catch (error) {
    if (error instanceof UnknownProjectionError) throw new UsageError(`--projection: ${error.message}`);
    throw error;
  }
  return names;
}

function positiveInt(flags: Flags, name: string, fallback: number): number {
  const raw = stringFlag(flags, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) throw new UsageError(`--${name} "${raw}" is not valid: expected a whole number from 1`);
  return value;
}

const number = (n: number) => Math.round(n).toLocaleString('en-US');

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)}s`;
  const m = Math.floor(seconds / 60);
  return `${m}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
}

/** A progress bar (TTY) or plain lines at most once a second (pipes, logs, CI). */
export function progressPrinter(out: { write(chunk: string): unknown }, tty: boolean): { update(p: RebuildProgress): void; finish(): void } {
  let lastLine = 0;
  let drawn = false;
  const describe = (p: RebuildProgress) => {
    const pct = p.fraction === null ? '' : `${Math.floor(p.fraction * 100)}%`;
    const eta = p.etaSeconds === null ? '' : `, ETA ${duration(p.etaSeconds)}`;
    const phase = p.phase === 'rebuilding' ? '' : ` (${p.phase})`;
    return { pct, text: `${number(p.events)} events, ${number(p.eventsPerSecond)} events/s${eta}${phase}` };
  };
  return {
    update(p) {
      const now = Date.now();
      const { pct, text } = describe(p);
      if (tty) {
        const width = 28;
        const filled = p.fraction === null ? 0 : Math.round(p.fraction * width);
        out.write(`\r\x1b[2K[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${pct.padStart(4)}  ${text}`);
        drawn = true;
        return;
      }
      if (p.phase !== 'done' && now - lastLine < 1000) return;
      lastLine = now;
      out.write(`rebuild: ${pct ? `${pct} ` : ''}${text}\n`);
    },
    finish() {
      if (tty && drawn) out.write('\n');
    },
  };
}

/**
 * Projection names may also be given as words after the command (`rewind projections rebuild
 * sessions audit`) once the CLI passes positionals through (`positionals` below: joined with
 * "," into the `projection` flag); until then `--projection sessions,audit`.
 */
type SpecWithPositionals = CommandSpec & { positionals?: { name: string; placeholder: string; description: string } };
const NAMES = { name: 'projection', placeholder: '[name...]', description: `projections (default all: ${PROJECTION_NAMES.join(', ')})` };

const batchSizeFlag = { type: 'string', placeholder: '<n>', description: 'events per transaction (default 5000)' } as const;
const projectionFlag = (verb: string) =>
  ({
    type: 'string',
    placeholder: '<names>',
    description: `projections to ${verb}, comma-separated (default all: ${PROJECTION_NAMES.join(', ')})`,
  }) as const;

/** Runs a rebuild with the CLI's progress and report; the exit code says whether the read models matched the log. */
async function runRebuild(context: CommandContext, flags: Flags, mode: 'verify' | 'rebuild'): Promise<number> {
  const names = projectionNames(flags);
  const batchSize = positiveInt(flags, 'batch-size', 5000);
  const json = flags.json === true;
  const force = flags.force === true;
  const swap = mode === 'verify' ? 'never' : force ? 'always' : 'when-identical';
  const out = context.io.stdout;
  const tty = !json && (out as { isTTY?: boolean }).isTTY === true;
  return withProjections(context, async ({ store, db, where }) => {
    const progress = json ? null : progressPrinter(out, tty);
    const what = names.length ? names.join(', ') : 'all projections';
    if (!json) {
      out.write(
        mode === 'verify'
          ? `Verifying ${what} against a rebuild from the event log in ${where} (read-only: nothing is swapped).\n`
          : `Rebuilding ${what} from the event log in ${where}${swap === 'always' ? (flags.verify ? ', then verifying' : '') : ', then comparing with the live tables'}.\n`,
      );
    }
    const result = await rebuildProjections(store, db, {
      projections: names,
      verify: flags.verify === true,
      swap,
      batchSize,
      ...(progress ? { onProgress: (p: RebuildProgress) => progress.update(p) } : {}),
    });
    progress?.finish();
    // Snapshots are a cache of the same log: verify also checks each one's seal (a forged one is never served, but it is reported).
    const snapshots = mode === 'verify' && store.checkSnapshots ? await store.checkSnapshots({}) : null;
    const identical = (result.verification === null || result.verification.identical) && !snapshots?.rejected.length;
    if (json) {
      out.write(`${JSON.stringify(snapshots ? { ...result, snapshots } : result, null, 2)}\n`);
    } else {
      const seconds = result.elapsedMs / 1000;
      const outcome = result.swapped
        ? `swapped in at position ${result.position} (tables locked ${number(result.swapMs)} ms)`
        : `compared at position ${result.position}; nothing swapped, the live tables are untouched`;
      out.write(
        `Rebuilt ${result.projections.join(', ')}: ${number(result.events)} events in ${duration(seconds)} (${number(result.events / Math.max(seconds, 0.001))} events/s); ${outcome}.\n`,
      );
      if (result.verification) out.write(formatVerification(result.verification));
      if (snapshots) out.write(`Snapshots: ${number(snapshots.checked)} checked against their seals, ${number(snapshots.rejected.length)} altered.\n`);
    }
    for (const rejected of snapshots?.rejected ?? []) {
      context.io.stderr.write(
        `rewind: the snapshot of ${rejected.streamId} at version ${rejected.version} does not match its seal: ${rejected.problem}. It is not served (reads replay the events); \`rewind audit verify\` lists them all.\n`,
      );
    }
    if (identical) return EXIT_OK;
    if (result.verification === null || result.verification.identical) return EXIT_FAILURE;
    context.io.stderr.write(
      result.swapped
        ? 'rewind: verification failed: the live read models did not match the event log (see the report above); they have been replaced by the rebuilt ones (--force).\n'
        : mode === 'verify'
          ? 'rewind: verification failed: the live read models do not match the event log (see the report above); nothing was changed. `rewind projections rebuild --force` replaces them with the rebuild.\n'
          : 'rewind: the rebuild differs from the live read models (see the report above), so it was not swapped in. If the event log is right and the read models are wrong, run again with --force to replace them.\n',
    );
    return EXIT_FAILURE;
  });
}

const rebuild: SpecWithPositionals = {
  name: 'projections rebuild',
  positionals: NAMES,
  summary:
    'Rebuild projections from the event log into shadow tables, compare them with the live ones and swap them in when identical; --force swaps in any case',
  flags: {
    projection: projectionFlag('rebuild'),
    force: { type: 'boolean', description: 'swap the rebuilt tables in even when they differ from the live ones (without comparing, unless --verify)' },
    verify: { type: 'boolean', description: 'with --force: still compare first and report the differences (exit 1 if any)' },
    'batch-size': batchSizeFlag,
    json: { type: 'boolean', description: 'print the result as JSON instead of text' },
  },
  run: (context, flags) => runRebuild(context, flags, 'rebuild'),
};

const verify: SpecWithPositionals = {
  name: 'projections verify',
  positionals: NAMES,
  summary: 'Prove the read models match the event log: rebuild into shadow tables, compare, swap nothing; exit 1 with the differing rows',
  flags: {
    projection: projectionFlag('verify'),
    'batch-size': batchSizeFlag,
    json: { type: 'boolean', description: 'print the result as JSON instead of text' },
  },
  run: (context, flags) => runRebuild(context, flags, 'verify'),
};

const status: CommandSpec = {
  name: 'projections status',
  summary: "Show each projection's position, the head of the event log, the lag, and any rebuild in progress",
  flags: {
    json: { type: 'boolean', description: 'print JSON instead of a table' },
  },
  async run(context, flags) {
    return withProjections(context, async ({ store, db }) => {
      const statuses = await projectionStatuses(store, db);
      if (flags.json === true) {
        context.io.stdout.write(
          `${JSON.stringify(
            statuses.map(({ state: _state, lastError: _lastError, ...s }) => s),
            null,
            2,
          )}\n`,
        );
        return EXIT_OK;
      }
      const rows = [['projection', 'position', 'head', 'lag', 'updated', 'rebuild']];
      for (const s of statuses) {
        rows.push([
          s.name,
          String(s.position),
          String(s.head),
          s.lag === 0 ? '0 (up to date)' : String(s.lag),
          s.updatedAt ?? '-',
          s.rebuild ? `in progress or interrupted, shadow at ${s.rebuild.position}` : '-',
        ]);
      }
      context.io.stdout.write(formatTable(rows));
      return EXIT_OK;
    });
  },
};

const catchUp: SpecWithPositionals = {
  name: 'projections catch-up',
  positionals: NAMES,
  summary: 'Apply the event log to the projections up to its head now (what the API does in the background)',
  flags: {
    projection: { type: 'string', placeholder: '<names>', description: `projections, comma-separated (default all: ${PROJECTION_NAMES.join(', ')})` },
  },
  async run(context, flags) {
    const names = projectionNames(flags);
    return withProjections(context, async ({ store, db }) => {
      const runners = new ProjectionSupervisor(store, db, { projections: names, batchSize: 5000, logger: SILENT_LOGGER });
      try {
        const applied = await runners.catchUp();
        const statuses = (await runners.status()).filter((s) => names.length === 0 || names.includes(s.name));
        context.io.stdout.write(
          `Applied ${number(applied)} events; ${statuses.map((s) => `${s.name} at ${s.position}`).join(', ')} (head ${statuses[0]?.head ?? 0}).\n`,
        );
      } finally {
        await runners.stop();
      }
      return EXIT_OK;
    });
  },
};

export const projectionsCommands: CommandSpec[] = [status, verify, rebuild, catchUp];
