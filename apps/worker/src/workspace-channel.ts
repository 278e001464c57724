import {
  DomainError,
  type EffectDescriptor,
  type ErrorDetail,
  type HeadMovePlan,
  type JsonObject,
  type MoveHead,
  type SessionCommand,
  type StartToolCall,
  type ToolCall,
} from '@rewind/domain';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';
import { CommandRejection, type SessionCommandDispatch } from '@rewind/messaging';
import { WORKSPACE_TOOL, WORKSPACE_UNDO_TARGET, WorkspaceFiles, WorkspacePathError, type FileChange } from '@rewind/sagas/workspace';

/** What a workspace change is recorded with: undone by the saga (the worker's, or the API's with the same folder) putting the previous content back. */
export const WORKSPACE_EFFECT: EffectDescriptor = {
  kind: 'reversible',
  compensation: { channel: 'inline', target: WORKSPACE_UNDO_TARGET, payload: { input: '{{input}}', output: '{{output}}' } },
};

/** The input of a workspace `StartToolCall` command: the file, and what it should hold (null: delete it). */
interface WorkspaceRequest {
  path: string;
  content: Buffer | null;
}

const INPUT_FIELD = 'payload.input';

function invalid(field: string, message: string): CommandRejection {
  return new CommandRejection(
    'validation_failed',
    `The workspace change is not valid: ${field}: ${message}. Send {"path": "<relative path>", "content": "<text>" | null, "encoding"?: "utf8" | "base64"} as the input of a StartToolCall of tool "${WORKSPACE_TOOL}".`,
    [{ field, message }],
  );
}

function workspaceRequest(command: StartToolCall): WorkspaceRequest {
  const input = command.input;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid(INPUT_FIELD, 'must be an object');
  const unknown = Object.keys(input).filter((key) => !['path', 'content', 'encoding'].includes(key));
  if (unknown.length > 0) throw invalid(`${INPUT_FIELD}.${unknown[0]}`, 'is not a field of a workspace change');
  const { path, content, encoding = 'utf8' } = input as { path?: unknown; content?: unknown; encoding?: unknown };
  if (typeof path !== 'string') throw invalid(`${INPUT_FIELD}.path`, 'must be a string');
  if (encoding !== 'utf8' && encoding !== 'base64') throw invalid(`${INPUT_FIELD}.encoding`, 'must be "utf8" or "base64"');
  if (content !== null && typeof content !== 'string') throw invalid(`${INPUT_FIELD}.content`, 'must be a string, or null to delete the file');
  if (command.effect !== undefined)
    throw invalid('payload.effect', `must be left out: the worker records a workspace change as reversible and undoes it itself`);
  return { path, content: content === null ? null : Buffer.from(content, encoding) };
}

function refusedPath(error: WorkspacePathError): CommandRejection {
  const detail: ErrorDetail = { field: `${INPUT_FIELD}.path`, message: error.message };
  return new CommandRejection('workspace_path_refused', error.message, [detail]);
}

/**
 * The worker's workspace channel at its edge (seed 004's RollbackManager, distributed): a
 * `StartToolCall` of tool `workspace.file` arriving over Kafka is carried out here, where the
 * workspace root is, in the tenant's own folder under it. The path is checked first (outside the root, `..`, symbolic links: the
 * command is rejected and nothing is recorded); the previous content is kept by hash before
 * the call is recorded (so even a crash mid-change can be undone), then the file is changed
 * and the call completed. The call is recorded with the change's hashes, not its content,
 * as the library's Workspace records it, with the worker's proof that it made the change (the
 * compensator undoes nothing else), and undone by the same compensator.
 * Every other command goes to the application unchanged.
 */
export class WorkspaceCommandDispatch implements SessionCommandDispatch {
  constructor(
    private readonly inner: SessionCommandDispatch,
    private readonly files: WorkspaceFiles | null,
    /** The call as the session recorded it (on its current path), if it was. */
    private readonly recordedCall: (caller: Caller, sessionId: string, toolCallId: string) => Promise<ToolCall | undefined>,
  ) {}

  startSession(caller: Caller, input: { sessionId?: string; title?: string; metadata?: JsonObject }, options: WriteOptions): Promise<WriteResult> {
    return this.inner.startSession(caller, input, options);
  }

  planHeadMove(caller: Caller, sessionId: string, move: MoveHead): Promise<HeadMovePlan> {
    return this.inner.planHeadMove(caller, sessionId, move);
  }

  async executeSteps(caller: Caller, sessionId: string, steps: readonly SessionCommand[], options: WriteOptions): Promise<WriteResult> {
    const index = steps.findIndex(isWorkspaceCall);
    if (index >= 0) {
      throw invalid(`payload.steps[${index}]`, `a workspace change cannot be one of several steps: send it as its own StartToolCall command`);
    }
    return this.inner.executeSteps(caller, sessionId, steps, options);
  }

  async execute(caller: Caller, sessionId: string, command: SessionCommand, options: WriteOptions): Promise<WriteResult> {
    if (!isWorkspaceCall(command)) return this.inner.execute(caller, sessionId, command, options);
    if (!this.files) {
      throw new CommandRejection(
        'workspace_not_configured',
        `This worker has no workspace: tool "${WORKSPACE_TOOL}" changes files under REWIND_WORKSPACE_ROOT. Set it on the workers (the same folder for every worker), or record the call under another tool name.`,
      );
    }
    const request = workspaceRequest(command);
    // A redelivered command (the worker stopped mid-change) finishes with the change it recorded:
    // the file may already hold the new content, so its "previous" content is not the file's now.
    const recorded = await this.recordedCall(caller, sessionId, command.toolCallId);
    const files = this.files.forTenant(caller.tenantId);
    const change =
      recorded?.tool === WORKSPACE_TOOL
        ? (recorded.input as FileChange)
        : this.files.provenance.sign({ tenantId: caller.tenantId, sessionId, toolCallId: command.toolCallId }, this.prepare(files, request));
    const call = { toolCallId: command.toolCallId };
    const started = await this.inner.execute(
      caller,
      sessionId,
      { type: 'StartToolCall', ...call, tool: WORKSPACE_TOOL, input: change, effect: WORKSPACE_EFFECT, ...(command.turnId ? { turnId: command.turnId } : {}) },
      options,
    );
    // Already finished: answer as before, and never write the file again (later changes may have followed).
    if (recorded && recorded.status !== 'started') return started;
    // One command, three steps: each its own idempotency key, so a redelivered command finishes what a crash interrupted.
    const step = (name: string): WriteOptions => ({
      ...options,
      expectedVersion: undefined,
      idempotencyKey: `${options.idempotencyKey ?? command.toolCallId}:${name}`,
    });
    try {
      files.apply(change.path, change.next);
    } catch (error) {
      const message = `Changing "${change.path}" failed: ${(error as Error).message}`;
      await this.inner.execute(caller, sessionId, { type: 'FailToolCall', ...call, error: message, retryable: false }, step('failed'));
      throw new CommandRejection('workspace_change_failed', `${message}. The call is recorded as failed; nothing was changed.`);
    }
    return this.inner.execute(caller, sessionId, { type: 'CompleteToolCall', ...call, output: change }, step('completed'));
  }

  private prepare(files: WorkspaceFiles, request: WorkspaceRequest): FileChange {
    try {
      return files.prepareChange(request.path, request.content);
    } catch (error) {
      if (error instanceof WorkspacePathError) throw refusedPath(error);
      throw error;
    }
  }
}

/** Reads the call from the session, none when the session does not exist (the command is then refused as usual). */
export function recordedCallOf(getState: (caller: Caller, sessionId: string) => Promise<{ path: { toolCalls: Record<string, ToolCall> } }>) {
  return async (caller: Caller, sessionId: string, toolCallId: string): Promise<ToolCall | undefined> => {
    try {
      return (await getState(caller, sessionId)).path.toolCalls[toolCallId];
    } catch (error) {
      if (error instanceof DomainError && error.code === 'session_not_found') return undefined;
      throw error;
    }
  };
}

function isWorkspaceCall(command: SessionCommand): command is StartToolCall {
  return command.type === 'StartToolCall' && command.tool === WORKSPACE_TOOL;
}
