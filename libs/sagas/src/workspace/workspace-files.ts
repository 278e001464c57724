import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { CompensationError } from '../channels/inline-channel';
import { WorkspaceProvenance } from './provenance';

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

/** A file change as recorded: the path under the root, and its contents before and after by hash (null: no file). */
export interface FileChange {
  /** Also `proof`: the worker's proof that it made this change (WorkspaceProvenance); the library's changes have none. */
  [key: string]: string | null;
  path: string;
  previous: string | null;
  next: string | null;
}

/** The tool name a workspace change is recorded under, in library mode and in the worker alike. */
export const WORKSPACE_TOOL = 'workspace.file';
/** The inline compensator that undoes a workspace change (the library's tool undo handler for WORKSPACE_TOOL). */
export const WORKSPACE_UNDO_TARGET = `tool:${WORKSPACE_TOOL}`;

const CONTENT_HASH = /^[0-9a-f]{64}$/;

/** A path the workspace refuses: outside the root, through a symlink, or not a file path. Permanent: retrying cannot help. */
export class WorkspacePathError extends CompensationError {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`Refused workspace path "${path}": ${why}. Use a relative path inside the workspace root, with no ".." and no symbolic links.`, false);
    this.name = 'WorkspacePathError';
  }
}

/**
 * Files under a workspace root and the contents they had (seed 004's RollbackManager):
 * contents are kept by SHA-256 (identical contents once) in a folder outside the root, so a
 * change can be undone by putting the previous content back; `prune()` applies the retention
 * policy. Paths are checked on every use: "..", absolute paths and symbolic links on the way
 * are refused. Used by the library's `Workspace` and by the worker's workspace channel.
 */
export class WorkspaceFiles {
  readonly root: string;
  readonly blobDir: string;
  /** Signs and checks the worker's changes (the key lives beside the kept contents). */
  readonly provenance: WorkspaceProvenance;
  private readonly tenants = new Map<string, WorkspaceFiles>();

  constructor(private readonly options: WorkspaceOptions) {
    mkdirSync(options.root, { recursive: true });
    this.root = realpathSync(options.root);
    this.blobDir = options.blobDir ?? join(dirname(this.root), '.rewind-blobs');
    mkdirSync(this.blobDir, { recursive: true });
    this.provenance = new WorkspaceProvenance(this.blobDir);
  }

  /**
   * The tenant's own folder, `<root>/<tenant>` (the worker's and the API's workspace: one root
   * per tenant, so no tenant's path reaches another's files). Contents are kept in the shared
   * blob folder by hash; only a change the worker signed can name one.
   */
  forTenant(tenantId: string): WorkspaceFiles {
    let files = this.tenants.get(tenantId);
    if (!files) {
      const folder =
        /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(tenantId) && !/^\.+$/.test(tenantId)
          ? tenantId
          : `t-${createHash('sha256').update(tenantId).digest('hex').slice(0, 32)}`;
      files = new WorkspaceFiles({ ...this.options, root: join(this.root, folder), blobDir: this.blobDir });
      this.tenants.set(tenantId, files);
    }
    return files;
  }

  /** `path` as recorded (relative to the root, normalised); throws WorkspacePathError when it is not inside the root. */
  relativePath(path: string): string {
    return relative(this.root, this.resolveInside(path));
  }

  /** The change that would make `path` hold `content` (null: delete), its contents kept first so it can be undone. */
  prepareChange(path: string, content: Buffer | null): FileChange {
    const file = this.resolveInside(path);
    const previous = this.backup(file);
    if (content === null && previous === null) throw new WorkspacePathError(path, 'there is no such file to delete');
    return { path: relative(this.root, file), previous, next: content === null ? null : this.keep(content) };
  }

  read(path: string): string | null {
    const file = this.resolveInside(path);
    return existsSync(file) ? readFileSync(file, 'utf8') : null;
  }

  /** Whether the content `hash` is still kept (the retention policy may have removed it). */
  has(hash: string): boolean {
    return CONTENT_HASH.test(hash) && existsSync(join(this.blobDir, hash));
  }

  /** Deletes kept contents unused for longer than the retention policy allows; returns how many. */
  prune(now: number = Date.now()): number {
    const maxAgeMs = this.options.retention?.maxAgeMs;
    if (maxAgeMs === undefined) return 0;
    let removed = 0;
    for (const name of readdirSync(this.blobDir)) {
      if (!CONTENT_HASH.test(name)) continue; // the provenance key, temporary files
      const blob = join(this.blobDir, name);
      if (now - statSync(blob).mtimeMs > maxAgeMs) {
        rmSync(blob, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** Makes the file hold the content `hash` (or not exist, for null), atomically. */
  apply(path: string, hash: string | null): void {
    const file = this.resolveInside(path);
    if (hash === null) {
      rmSync(file, { force: true });
      return;
    }
    if (!CONTENT_HASH.test(hash)) throw new CompensationError(`"${hash.slice(0, 80)}" is not a content hash (64 lowercase hex digits, SHA-256).`, false);
    const blob = join(this.blobDir, hash);
    if (!existsSync(blob)) {
      throw new CompensationError(
        `The content ${hash.slice(0, 12)}… of "${path}" is no longer kept (the retention policy removed it): restore the file by hand, then resolve the effect.`,
        false,
      );
    }
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.rewind-${process.pid}.tmp`;
    writeFileSync(temporary, readFileSync(blob));
    renameSync(temporary, file);
  }

  /** Puts back what a recorded change replaced: the compensation of a workspace tool call. */
  undo(change: FileChange): { path: string; restored: string | null } {
    this.apply(change.path, change.previous);
    return { path: change.path, restored: change.previous };
  }

  /** Keeps `content` by its hash (once); returns the hash. */
  keep(content: Buffer): string {
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

  /** The absolute path of `path` inside the root, refusing "..", absolute paths and symlinks on the way. */
  private resolveInside(path: string): string {
    if (typeof path !== 'string' || path.length === 0 || path.includes('\u0000')) throw new WorkspacePathError(String(path), 'empty or contains NUL');
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
}
