import { projectionsCommands } from './commands/projections';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type RewindConfig } from '@rewind/config';
import { CliError, commandUsage, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, type CliIo, type CommandSpec, type Flags } from './command';
import { auditCommands } from './commands/audit';
import { tenantsCommands } from './commands/tenants';
import { retentionCommands } from './commands/retention';
import { eventsCommands } from './commands/events';
import { keysCommands } from './commands/keys';
import { memoryCommands } from './commands/memory';
import { signingKeysCommands } from './commands/signing-keys';
import { stateCommands } from './commands/state';
import { cliBackend } from './stores';

/** Every command, in the order usage lists them. A new group is one more spread here. */
export const COMMANDS: readonly CommandSpec[] = [
  ...keysCommands,
  ...signingKeysCommands,
  ...stateCommands,
  ...eventsCommands,
  ...projectionsCommands,
  ...memoryCommands,
  ...auditCommands,
  ...tenantsCommands,
  ...retentionCommands,
];

/** Environment variables the CLI reads (the API's, so both see the same data). */
const ENV_VARS: [string, string][] = [
  ['REWIND_DATA_DIR', 'data directory holding the embedded database rewind.db (default ./data)'],
  ['REWIND_SNAPSHOT_EVERY', 'snapshot cadence; 0 reads state by full replay (default 100)'],
  ['REWIND_SQLITE_SYNCHRONOUS', 'FULL, NORMAL or EXTRA (default FULL)'],
  ['REWIND_STORE', 'sqlite, postgres or eventstoredb (default sqlite)'],
  ['DATABASE_URL', 'PostgreSQL URL when REWIND_STORE=postgres'],
  ['EVENTSTOREDB_URL', 'EventStoreDB URL when REWIND_STORE=eventstoredb (events there, the rest in rewind.db)'],
  ['REWIND_ESDB_NAMESPACE', 'prefix of the EventStoreDB streams (default rewind)'],
  ['REWIND_PG_SCHEMA', 'event store schema (default rewind)'],
  ['REWIND_READ_SCHEMA', 'read-model schema (default rewind_read)'],
  ['REWIND_MEMORY', 'on or off: long-term memory (default on); see docs/operations/configuration.md for REWIND_EMBEDDING_*, QDRANT_URL'],
];

const HELP_WORDS = new Set(['help', '--help', '-h']);

export function usage(commands: readonly CommandSpec[] = COMMANDS): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const envWidth = Math.max(...ENV_VARS.map(([name]) => name.length));
  return [
    'Usage: rewind <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${'help'.padEnd(width)}  Show this help (or "rewind help <command>", "rewind <command> --help")`,
    '',
    'Options:',
    ...commands.map((c) => `  ${commandUsage(c)}`),
    '',
    'Environment:',
    ...ENV_VARS.map(([name, text]) => `  ${name.padEnd(envWidth)}  ${text}`),
    '',
    'Exit codes: 0 success, 1 failure, 2 bad command or options.',
    '',
  ].join('\n');
}

function commandHelp(command: CommandSpec): string {
  const flags = Object.entries(command.flags);
  const width = Math.max(...flags.map(([name, f]) => `--${name}${f.type === 'string' ? ` ${f.placeholder ?? '<value>'}` : ''}`.length));
  return [
    `Usage: ${commandUsage(command)}`,
    '',
    command.summary + '.',
    '',
    ...flags.map(
      ([name, f]) =>
        `  ${`--${name}${f.type === 'string' ? ` ${f.placeholder ?? '<value>'}` : ''}`.padEnd(width)}  ${f.description}${f.required ? ' (required)' : ''}`,
    ),
    '',
  ].join('\n');
}

/** The command named by the leading words of argv (longest match), and the arguments left. */
function resolveCommand(argv: string[], commands: readonly CommandSpec[]): { command: CommandSpec; rest: string[] } | null {
  let best: { command: CommandSpec; rest: string[] } | null = null;
  for (const command of commands) {
    const words = command.name.split(' ');
    if (words.every((word, i) => argv[i] === word) && (!best || words.length > best.command.name.split(' ').length)) {
      best = { command, rest: argv.slice(words.length) };
    }
  }
  return best;
}

function unknownCommand(argv: string[], commands: readonly CommandSpec[]): UsageError {
  const first = argv[0]!;
  if (first.startsWith('-')) return new UsageError(`unknown option ${first}: options come after the command`);
  const group = commands.filter((c) => c.name.startsWith(`${first} `));
  if (group.length > 0) {
    const subs = group.map((c) => c.name.slice(first.length + 1)).join(', ');
    return argv[1] === undefined || argv[1].startsWith('-')
      ? new UsageError(`"${first}" needs a subcommand: ${subs}`)
      : new UsageError(`unknown command "${first} ${argv[1]}": "${first}" has ${subs}`);
  }
  return new UsageError(`unknown command "${first}"`);
}

function parseFlags(command: CommandSpec, args: string[]): Flags | 'help' {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, flag] of Object.entries(command.flags)) options[name] = { type: flag.type };
  let values: Flags;
  try {
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values as Flags;
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    const option = /'(-{1,2}[^' ]+)/.exec(e.message)?.[1];
    const positional = /argument '([^']*)'/.exec(e.message)?.[1];
    switch (e.code) {
      case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
        throw new UsageError(`unknown option ${option ?? args.find((a) => a.startsWith('-'))} for "rewind ${command.name}"`, command);
      case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
        throw new UsageError(
          /does not take an argument/.test(e.message) ? `${option} does not take a value` : `${option ?? 'an option'} needs a value`,
          command,
        );
      case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
        throw new UsageError(`unexpected argument "${positional ?? args.find((a) => !a.startsWith('-'))}" for "rewind ${command.name}"`, command);
      default:
        throw new UsageError(e.message.split('\n')[0]!, command);
    }
  }
  if (values.help === true) return 'help';
  delete values.help;
  for (const [name, flag] of Object.entries(command.flags)) {
    if (flag.required && values[name] === undefined) throw new UsageError(`missing required option --${name}`, command);
  }
  return values;
}

/**
 * Runs the CLI on `argv` (the arguments after `rewind`) and resolves to the exit code:
 * 0 success, 1 the command failed, 2 bad command or options. Never exits the process.
 */
export async function runCli(argv: string[], io: CliIo, commands: readonly CommandSpec[] = COMMANDS): Promise<number> {
  let command: CommandSpec | undefined;
  try {
    if (argv.length === 0 || HELP_WORDS.has(argv[0]!)) {
      const topic = argv.length > 1 ? resolveCommand(argv.slice(1), commands) : null;
      if (argv.length > 1 && (!topic || topic.rest.length > 0)) throw unknownCommand(argv.slice(1), commands);
      io.stdout.write(topic ? commandHelp(topic.command) : usage(commands));
      return EXIT_OK;
    }
    const resolved = resolveCommand(argv, commands);
    if (!resolved) throw unknownCommand(argv, commands);
    command = resolved.command;
    const flags = parseFlags(command, resolved.rest);
    if (flags === 'help') {
      io.stdout.write(commandHelp(command));
      return EXIT_OK;
    }
    let config: RewindConfig;
    try {
      config = loadConfig(io.env);
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message, command);
      throw error;
    }
    const backend = cliBackend(io, config);
    try {
      return await command.run({ io, config, backend: (options) => backend.open(options) }, flags);
    } finally {
      await backend.close();
    }
  } catch (error) {
    if (error instanceof UsageError) {
      const about = error.command ?? command;
      io.stderr.write(`rewind: ${error.message}\n`);
      io.stderr.write(about ? `Usage: ${commandUsage(about)}  (see "rewind ${about.name} --help")\n` : 'Run "rewind help" for the list of commands.\n');
      return EXIT_USAGE;
    }
    if (error instanceof CliError) {
      io.stderr.write(`rewind: ${error.message}\n`);
      return EXIT_FAILURE;
    }
    const e = error as Error;
    io.stderr.write(`rewind: ${command ? `"${command.name}" failed: ` : ''}${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT_FAILURE;
  }
}
