import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompensationError } from '../channels/inline-channel';

/** A workspace change as recorded (workspace-files.ts' FileChange, restated: that file builds on this one). */
interface FileChange {
  [key: string]: string | null;
  path: string;
  previous: string | null;
  next: string | null;
}

/** The file, beside the kept contents, holding the key that signs workspace changes. */
export const PROVENANCE_KEY_FILE = 'provenance.key';

/** Whose call a workspace change belongs to: the proof binds it to exactly this call. */
export interface WorkspaceCallRef {
  tenantId: string;
  sessionId: string;
  toolCallId: string;
}

/**
 * Proof that a workspace change was prepared by the workspace tool the worker itself ran, not
 * declared by a client: an HMAC over the call and the change with a key only the processes that
 * see the workspace folder can read (created once in the blob folder, mode 0600). A tenant can
 * record a call of tool `workspace.file` with an inline `tool:workspace.file` compensation over
 * HTTP, but not its proof: the compensator refuses to undo it.
 */
export class WorkspaceProvenance {
  private key: Buffer | undefined;

  constructor(private readonly blobDir: string) {}

  sign(call: WorkspaceCallRef, change: FileChange): FileChange {
    const unsigned: FileChange = { path: change.path, previous: change.previous, next: change.next };
    return { ...unsigned, proof: this.mac(call, unsigned) };
  }

  /** Throws a permanent CompensationError unless `change` carries the proof of exactly this call. */
  verify(call: WorkspaceCallRef, change: unknown): FileChange {
    const c = change as Partial<FileChange> | null;
    const unsigned = c && typeof c === 'object' ? { path: c.path, previous: c.previous, next: c.next } : null;
    const proof = c && typeof c.proof === 'string' ? Buffer.from(c.proof, 'hex') : Buffer.alloc(0);
    const expected = unsigned ? Buffer.from(this.mac(call, unsigned as FileChange), 'hex') : Buffer.alloc(32);
    if (!unsigned || proof.length !== expected.length || !timingSafeEqual(proof, expected)) {
      throw new CompensationError(
        `This workspace change was not made by the worker's workspace tool (its provenance does not check out): nothing was changed. A workspace change can only be undone when the worker recorded it; restore the file by hand if needed, then resolve the effect.`,
        false,
      );
    }
    return unsigned as FileChange;
  }

  private mac(call: WorkspaceCallRef, change: FileChange): string {
    const message = JSON.stringify([call.tenantId, call.sessionId, call.toolCallId, change.path, change.previous, change.next]);
    return createHmac('sha256', this.secret()).update(message).digest('hex');
  }

  private secret(): Buffer {
    if (this.key) return this.key;
    const file = join(this.blobDir, PROVENANCE_KEY_FILE);
    if (!existsSync(file)) {
      // Written aside, then linked into place (atomic, fails if present): of two processes starting together, both read one key.
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, randomBytes(32).toString('hex'), { mode: 0o600 });
      try {
        linkSync(temporary, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      } finally {
        rmSync(temporary, { force: true });
      }
    }
    const hex = readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} does not hold a workspace provenance key (64 hex digits): delete it to create a new one.`);
    this.key = Buffer.from(hex, 'hex');
    return this.key;
  }
}
