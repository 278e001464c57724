import { WORKSPACE_TOOL, WorkspaceFiles, type FileChange, type WorkspaceOptions } from '@rewind/sagas/workspace';
import type { Rewind, RewindSession } from './rewind';

export { WORKSPACE_TOOL, WorkspacePathError, type RetentionPolicy, type WorkspaceOptions } from '@rewind/sagas/workspace';

/**
 * Files under a workspace root as an effect (seed 004's RollbackManager): create, update and
 * delete are tool calls whose undo puts the previous content back. Contents are kept by
 * SHA-256 (identical contents once) before the change is recorded, so a crash mid-change can
 * still be undone; `prune()` applies the retention policy. The worker's workspace channel
 * records and undoes the same changes (`@rewind/sagas/workspace`).
 */
export class Workspace {
  private readonly files: WorkspaceFiles;

  constructor(rewind: Rewind, options: WorkspaceOptions) {
    const files = (this.files = new WorkspaceFiles(options));
    rewind.tool<FileChange, FileChange>(WORKSPACE_TOOL, {
      kind: 'reversible',
      run: (change) => (files.apply(change.path, change.next), change),
      undo: ({ input }) => files.undo(input),
    });
  }

  get root(): string {
    return this.files.root;
  }

  get blobDir(): string {
    return this.files.blobDir;
  }

  /** Creates or replaces a file; returns the content's hash. */
  async write(session: RewindSession, path: string, content: string | Buffer): Promise<string> {
    const change = this.files.prepareChange(path, Buffer.from(content));
    await session.call(WORKSPACE_TOOL, change);
    return change.next!;
  }

  async delete(session: RewindSession, path: string): Promise<void> {
    await session.call(WORKSPACE_TOOL, this.files.prepareChange(path, null));
  }

  read(path: string): string | null {
    return this.files.read(path);
  }

  /** Deletes kept contents unused for longer than the retention policy allows; returns how many. */
  prune(now: number = Date.now()): number {
    return this.files.prune(now);
  }
}
