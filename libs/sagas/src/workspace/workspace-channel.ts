import { CompensationError, type InlineCompensationChannel } from '../channels/inline-channel';
import { WORKSPACE_TOOL, WORKSPACE_UNDO_TARGET, WorkspaceFiles, type FileChange } from './workspace-files';

/** Where a process's workspace is, as REWIND_WORKSPACE_* configure it (`@rewind/config`'s WorkspaceSettings). */
export interface WorkspaceChannelSettings {
  root: string;
  blobDir: string | undefined;
  /** 0: kept contents are kept for ever. */
  retentionMs: number;
}

export interface WorkspaceChannel {
  readonly files: WorkspaceFiles;
  stop(): void;
}

/**
 * Opens a process's workspace channel (the worker's, or the API's when it sees the same
 * folder): registers the compensator that undoes workspace changes on the saga's inline
 * channel, and applies the retention policy now and every hour.
 */
export function openWorkspaceChannel(settings: WorkspaceChannelSettings, inline: InlineCompensationChannel, log: (message: string) => void): WorkspaceChannel {
  const files = new WorkspaceFiles({
    root: settings.root,
    ...(settings.blobDir ? { blobDir: settings.blobDir } : {}),
    ...(settings.retentionMs > 0 ? { retention: { maxAgeMs: settings.retentionMs } } : {}),
  });
  // Only a change the worker's workspace tool made and signed is undone, in the tenant's own folder.
  inline.register(WORKSPACE_UNDO_TARGET, (request) => {
    if (request.tool !== WORKSPACE_TOOL) throw new CompensationError(`Only calls of tool "${WORKSPACE_TOOL}" are undone by ${WORKSPACE_UNDO_TARGET}.`, false);
    const change = files.provenance.verify(request, (request.payload as { input?: FileChange } | null)?.input);
    return files.forTenant(request.tenantId).undo(change);
  });
  const prune = () => {
    try {
      const removed = files.prune();
      if (removed > 0) log(`Workspace: removed ${removed} kept content(s) unused for longer than REWIND_WORKSPACE_RETENTION_HOURS.`);
    } catch (error) {
      log(`Workspace: the retention pass failed and will run again in an hour: ${(error as Error).message}`);
    }
  };
  prune();
  const timer = setInterval(prune, 3_600_000);
  timer.unref();
  return { files, stop: () => clearInterval(timer) };
}
