import { resolve } from 'node:path';
import type { EnvReader } from './env-reader';

/** The workspace channel's settings, the same for the API and the worker (they must see the same folder). */
export interface WorkspaceSettings {
  /** The only folder workspace changes may touch. */
  root: string;
  /** Where previous contents are kept by hash (default: `.rewind-blobs` beside the root). */
  blobDir: string | undefined;
  /** Kept contents unused for this long are deleted (0: kept for ever). */
  retentionMs: number;
}

/** REWIND_WORKSPACE_ROOT, _BLOB_DIR and _RETENTION_HOURS; null when no root is set (the channel is off). */
export function loadWorkspaceSettings(env: NodeJS.ProcessEnv, read: EnvReader): WorkspaceSettings | null {
  if (!env.REWIND_WORKSPACE_ROOT) return null;
  return {
    root: resolve(env.REWIND_WORKSPACE_ROOT),
    blobDir: env.REWIND_WORKSPACE_BLOB_DIR ? resolve(env.REWIND_WORKSPACE_BLOB_DIR) : undefined,
    retentionMs: read.integer('REWIND_WORKSPACE_RETENTION_HOURS', 0, 0, 87_600) * 3_600_000,
  };
}
