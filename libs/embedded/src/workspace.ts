import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Rewind, RewindSession } from './rewind';
import { ToolCallError } from './tools';

/** How long previous contents are kept for undo (seed 004's backups), counted from their last use. */
export interface RetentionPolicy {
  maxAgeMs: number;
}

export interface WorkspaceOptions {
  /** The only folder the agent's files may live in. */
  root: string;
  /** Where contents are kept by hash (default `<root>/../.rewind-blobs`, outside the root). */
  blobDir?: string;
  retention?: RetentionPolicy;
}

/** A file change as recorded: the contents before and after, by hash (null: no file). */
interface FileChange {
  [key: string]: string | null;
  path: string;
  previous: string | null;
  next: string | null;
}

export const WORKSPACE_TOOL = 'workspace.file';

/** A path the workspace refuses: outside the root, through a symlink, or not a file path. */
export class WorkspacePathError extends ToolCallError {
  constructor(path: string, why: string) {
    super(`Refused workspace path "${path}": ${why}. Use a relative path inside the workspace root, with no ".." and no symbolic links.`, false);
    this.name = 'WorkspacePathError';
  }
}

/**
 * Files under a workspace root as an effect (seed 004's RollbackManager): create, update and
 * delete are tool calls whose undo puts the previous content back. Contents are kept by
 * SHA-256 (identical contents once) before the change is recorded, so a crash mid-change can
 * still be undone; `prune()` applies the retention policy.
 */
export class Workspace {
  readonly root: string;
  readonly blobDir: string;

  constructor(
    rewind: Rewind,
    private readonly options: WorkspaceOptions,
  ) {
    mkdirSync(options.root, { recursive: true });
    this.root = realpathSync(options.root);
    this.blobDir = options.blobDir ?? join(dirname(this.root), '.rewind-blobs');
    mkdirSync(this.blobDir, { recursive: true });
    rewind.tool<FileChange, FileChange>(WORKSPACE_TOOL, {
      kind: 'reversible',
      run: (change) => (this.apply(change.path, change.next), change),
      undo: ({ input }) => this.apply(input.path, input.previous),
    });
  }

  /** Creates or replaces a file; returns the content's hash. */
  async write(session: RewindSession, path: string, content: string | Buffer): Promise<string> {
    const file = this.resolveInside(path);
    const next = this.keep(Buffer.from(content));
    await session.call(WORKSPACE_TOOL, { path: relative(this.root, file), previous: this.backup(file), next });
    return next;
  }

  async delete(session: RewindSession, path: string): Promise<void> {
    const file = this.resolveInside(path);
    if (!existsSync(file)) throw new WorkspacePathError(path, 'there is no such file to delete');
    await session.call(WORKSPACE_TOOL, { path: relative(this.root, file), previous: this.backup(file), next: null });
  }

  read(path: string): string | null {
    const file = this.resolveInside(path);
    return existsSync(file) ? readFileSync(file, 'utf8') : null;
  }

  /** Deletes kept contents unused for longer than the retention policy allows; returns how many. */
  prune(now: number = Date.now()): number {
    const maxAgeMs = this.options.retention?.maxAgeMs;
    if (maxAgeMs === undefined) return 0;
    let removed = 0;
    for (const name of readdirSync(this.blobDir)) {
      const blob = join(this.blobDir, name);
      if (now - statSync(blob).mtimeMs > maxAgeMs) {
        rmSync(blob);
        removed++;
      }
    }
    return removed;
  }

  /** The absolute path of `path` inside the root, refusing "..", absolute paths and symlinks on the way. */
  private resolveInside(path: string): string {
    if (path.length === 0 || path.includes('\u0000')) throw new WorkspacePathError(path, 'empty or contains NUL');
    if (isAbsolute(path)) throw new WorkspacePathError(path, 'it is absolute');
    const file = resolve(this.root, path);
    const rel = relative(this.root, file);
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new WorkspacePathError(path, 'it leads outside the workspace root');
    let at = this.root;
    for (const part of rel.split(sep)) {
      at = join(at, part);
      const stat = lstatSync(at, { throwIfNoEntry: false });
      if (!stat) break;
      if (stat.isSymbolicLink()) throw new WorkspacePathError(path, `"${relative(this.root, at)}" is a symbolic link`);
    }
    return file;
  }

  /** Keeps the file's current content (if any) before it changes; returns its hash. */
  private backup(file: string): string | null {
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (!stat) return null;
    if (!stat.isFile()) throw new WorkspacePathError(relative(this.root, file), 'it is not a regular file');
    return this.keep(readFileSync(file));
  }

  private keep(content: Buffer): string {
    const hash = createHash('sha256').update(content).digest('hex');
    const blob = join(this.blobDir, hash);
    if (existsSync(blob)) {
      const now = new Date();
      utimesSync(blob, now, now); // in use again: retention counts from now
    } else {
      const temporary = `${blob}.${process.pid}.tmp`;
      writeFileSync(temporary, content);
      renameSync(temporary, blob);
    }
    return hash;
  }

  /** Makes the file hold the content `hash` (or not exist, for null), atomically. */
  private apply(path: string, hash: string | null): void {
    const file = this.resolveInside(path);
    if (hash === null) {
      rmSync(file, { force: true });
      return;
    }
    const blob = join(this.blobDir, hash);
    if (!existsSync(blob)) {
      throw new ToolCallError(
        `The content ${hash.slice(0, 12)}… of "${path}" is no longer kept (the retention policy removed it): restore the file by hand, then resolve the effect.`,
        false,
      );
    }
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.rewind-${process.pid}.tmp`;
    writeFileSync(temporary, readFileSync(blob));
    renameSync(temporary, file);
  }
}
