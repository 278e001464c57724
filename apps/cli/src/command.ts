import { ID_PATTERN } from '@rewind/engine';
import type { RewindConfig } from '@rewind/config';
import type { Backend } from '@rewind/runtime';

/** Where the CLI writes: `process.stdout`/`process.stderr` fit, and so does a test's collector. */
export interface CliOutput {
  write(chunk: string): unknown;
}

export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  env: NodeJS.ProcessEnv;
}

export interface FlagSpec {
  type: 'string' | 'boolean';
  description: string;
  /** Shown in usage, e.g. `<id>`; string flags only. */
  placeholder?: string;
  required?: boolean;
}

export type Flags = Record<string, string | boolean | undefined>;

export interface CommandContext {
  io: CliIo;
  config: RewindConfig;
  /**
   * The configured stores, opened at the first call and closed after the command. On SQLite
   * the file must exist unless `create` (a read never leaves an empty database behind).
   */
  backend(options?: { create?: boolean }): Promise<Backend>;
}

/** One command of the CLI. Add a command by adding a spec to a group's list (see cli.ts). */
export interface CommandSpec {
  /** The words that select it, e.g. `keys create`. */
  name: string;
  summary: string;
  flags: Record<string, FlagSpec>;
  /** Resolves to the exit code. Throw UsageError for bad input (exit 2), CliError for a failure (exit 1). */
  run(context: CommandContext, flags: Flags): Promise<number>;
}

/** Bad or missing arguments: exit code 2, with a usage hint. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose usage to point at, when known. */
    readonly command?: CommandSpec,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command could not do its work (no database, no such session...): exit code 1. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export function commandUsage(command: CommandSpec): string {
  const parts = Object.entries(command.flags).map(([name, flag]) => {
    const text = flag.type === 'string' ? `--${name} ${flag.placeholder ?? '<value>'}` : `--${name}`;
    return flag.required ? text : `[${text}]`;
  });
  return ['rewind', command.name, ...parts].join(' ');
}

// ---- flag readers ------------------------------------------------------------------

export function stringFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

export function idFlag(flags: Flags, name: string, fallback?: string): string {
  const value = stringFlag(flags, name) ?? fallback;
  if (value === undefined) throw new UsageError(`missing required option --${name}`);
  if (!ID_PATTERN.test(value))
    throw new UsageError(`--${name} "${value}" is not a valid id: use 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)`);
  return value;
}

export function positiveIntFlag(flags: Flags, name: string): number {
  const raw = stringFlag(flags, name);
  if (raw === undefined) throw new UsageError(`missing required option --${name}`);
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) throw new UsageError(`--${name} "${raw}" is not valid: expected a whole number from 1`);
  return value;
}

/** Pads each column to its widest cell; the first row is the header. */
export function formatTable(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}
