import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/openapi';
import { RewindError } from './rewind-error';
import { DEFAULT_RETRY_POLICY, retryingFetch, type RetryPolicy } from './retrying-fetch';

type Schemas = components['schemas'];
export type WriteResult = Schemas['WriteResult'];
export type SessionState = Schemas['SessionState'];
export type Rollback = Schemas['Rollback'];
export type HeadMoveResult = Schemas['HeadMoveResult'];
export type DryRun = Schemas['DryRun'];
export type Timeline = Schemas['Timeline'];
export type EventPage = Schemas['EventPage'];
export type Diff = Schemas['Diff'];
export type Context = Schemas['Context'];
export type Tool = Schemas['Tool'];
export type Recall = Schemas['Recall'];
export type JsonValue = unknown;

export interface RewindClientOptions {
  /** e.g. http://localhost:3000 */
  baseUrl: string;
  /** An API key (rwd_…). */
  apiKey: string;
  retry?: Partial<RetryPolicy>;
  /** Makes the Idempotency-Key of each logical write (default: a random UUID). */
  newIdempotencyKey?: () => string;
  fetch?: typeof fetch;
}

/** Per write: pin the version (If-Match), choose the idempotency key, correlate. */
export interface WriteOptions {
  /** The stream version you read (state.version, or an ETag): the write is refused with 409 version_conflict if it moved. */
  ifMatch?: number | string;
  /** Default: a fresh key per call, reused on that call's retries. Pass your own to make a write idempotent across processes. */
  idempotencyKey?: string;
  correlationId?: string;
}

/** `If-Match` value for a stream version: `"12"`. */
export const ifMatch = (version: number): string => `"${version}"`;

/** The stream version an ETag (or If-Match value) names, e.g. `"12"` → 12. */
export function versionOf(etag: string | null | undefined): number | undefined {
  const match = etag ? /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(etag) : null;
  return match ? Number(match[1]) : undefined;
}

export interface WaitOptions {
  /** Give up after this long (default 30 s): a RewindError rollback_wait_timeout, the rollback still running. */
  timeoutMs?: number;
  /** Poll interval (default 200 ms). */
  intervalMs?: number;
}

type HeadMoveBody = { acknowledgeIrreversible?: boolean; waitMs?: number };

/**
 * The Rewind API, typed from its OpenAPI document. Every method returns the documented
 * body or throws a RewindError; `api` is the full generated client for anything else.
 */
export class RewindClient {
  readonly api: Client<paths>;

  constructor(options: RewindClientOptions) {
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${options.apiKey}` },
      fetch: retryingFetch({
        policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
        ...(options.newIdempotencyKey ? { newIdempotencyKey: options.newIdempotencyKey } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    });
  }

  // ---- sessions and reads -------------------------------------------------------------

  startSession(body: Schemas['StartSessionDto'] = {}, write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions', { body, params: { header: headers(write) } }));
  }

  getSession(id: string): Promise<SessionState> {
    return data(this.api.GET('/v1/sessions/{id}', { params: { path: { id } } }));
  }

  /** The state at any version, on any branch (time travel). */
  getSessionState(id: string, at: number): Promise<SessionState> {
    return data(this.api.GET('/v1/sessions/{id}/state', { params: { path: { id }, query: { at } } }));
  }

  getTimeline(id: string, page?: { from?: number; limit?: number }): Promise<Timeline> {
    return data(this.api.GET('/v1/sessions/{id}/timeline', { params: { path: { id }, query: page ?? {} } }));
  }

  listEvents(id: string, page?: { from?: number; limit?: number }): Promise<EventPage> {
    return data(this.api.GET('/v1/sessions/{id}/events', { params: { path: { id }, query: page ?? {} } }));
  }

  getDiff(id: string, from: number, to: number): Promise<Diff> {
    return data(this.api.GET('/v1/sessions/{id}/diff', { params: { path: { id }, query: { from, to } } }));
  }

  /** What the LLM should see. The agent's thoughts are left out unless `includeThoughts` is true. */
  getContext(id: string, query?: { maxTurns?: number; maxChars?: number; at?: number; includeThoughts?: boolean }): Promise<Context> {
    return data(this.api.GET('/v1/sessions/{id}/context', { params: { path: { id }, query: query ?? {} } }));
  }

  // ---- steps --------------------------------------------------------------------------

  recordMessage(id: string, body: Schemas['RecordMessageDto'], write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions/{id}/messages', { params: { path: { id }, header: headers(write) }, body }));
  }

  /** Several steps in one atomic write (e.g. a whole turn). */
  recordSteps(id: string, steps: Schemas['RecordStepsDto']['steps'], write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions/{id}/steps', { params: { path: { id }, header: headers(write) }, body: { steps } }));
  }

  startToolCall(id: string, body: Schemas['StartToolCallDto'], write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions/{id}/tool-calls', { params: { path: { id }, header: headers(write) }, body }));
  }

  /** Puts a tool call to a person instead of starting it; start it (startToolCall, same id, tool and input) once approved. */
  proposeToolCall(id: string, body: Schemas['ProposeToolCallDto'], write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions/{id}/proposals', { params: { path: { id }, header: headers(write) }, body }));
  }

  /** Approves a proposed call (recorded with this key as who, and when). */
  approveToolCall(id: string, callId: string, note?: string, write?: WriteOptions): Promise<WriteResult> {
    return data(
      this.api.POST('/v1/sessions/{id}/proposals/{callId}/approve', {
        params: { path: { id, callId }, header: headers(write) },
        body: note === undefined ? {} : { note },
      }),
    );
  }

  /** Rejects a proposed call: starting it is refused from then on. */
  rejectToolCall(id: string, callId: string, reason: string, write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions/{id}/proposals/{callId}/reject', { params: { path: { id, callId }, header: headers(write) }, body: { reason } }));
  }

  succeedToolCall(id: string, callId: string, output: JsonValue, write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions/{id}/tool-calls/{callId}/succeed', { params: { path: { id, callId }, header: headers(write) }, body: { output } }));
  }

  failToolCall(id: string, callId: string, body: Schemas['FailToolCallDto'], write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions/{id}/tool-calls/{callId}/fail', { params: { path: { id, callId }, header: headers(write) }, body }));
  }

  writeMemory(id: string, key: string, value: JsonValue, write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.PUT('/v1/sessions/{id}/memory/{key}', { params: { path: { id, key }, header: headers(write) }, body: { value } }));
  }

  eraseMemory(id: string, key: string, write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.DELETE('/v1/sessions/{id}/memory/{key}', { params: { path: { id, key }, header: headers(write) } }));
  }

  setContextVariable(id: string, name: string, value: JsonValue, write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.PUT('/v1/sessions/{id}/context-vars/{name}', { params: { path: { id, name }, header: headers(write) }, body: { value } }));
  }

  pushTask(id: string, body: Schemas['PushTaskDto'], write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions/{id}/tasks', { params: { path: { id }, header: headers(write) }, body }));
  }

  popTask(id: string, write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.DELETE('/v1/sessions/{id}/tasks/top', { params: { path: { id }, header: headers(write) } }));
  }

  interruptTurn(id: string, turnId: string, partialContent: string, write?: WriteOptions): Promise<WriteResult> {
    return data(
      this.api.POST('/v1/sessions/{id}/turns/{turnId}/interrupt', { params: { path: { id, turnId }, header: headers(write) }, body: { partialContent } }),
    );
  }

  /** The agent's reasoning: a timeline step, never part of getContext unless asked for. */
  recordThought(id: string, body: Schemas['RecordThoughtDto'], write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions/{id}/thoughts', { params: { path: { id }, header: headers(write) }, body }));
  }

  /** Labels the current head; the result's `head` is the labelled node (its `version` is the record). */
  createCheckpoint(id: string, label: string, write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions/{id}/checkpoints', { params: { path: { id }, header: headers(write) }, body: { label } }));
  }

  // ---- time travel ----------------------------------------------------------------------

  /** Makes an earlier step current. A move that needs compensations may answer before they finish: see waitForRollback. */
  rollback(id: string, body: Omit<Schemas['RollbackDto'], 'dryRun'> & HeadMoveBody, write?: WriteOptions): Promise<HeadMoveResult> {
    return this.headMove(this.api.POST('/v1/sessions/{id}/rollback', { params: { path: { id }, header: headers(write) }, body: { ...body, dryRun: false } }));
  }

  undo(id: string, body: Omit<Schemas['UndoDto'], 'dryRun'> & HeadMoveBody = {}, write?: WriteOptions): Promise<HeadMoveResult> {
    return this.headMove(this.api.POST('/v1/sessions/{id}/undo', { params: { path: { id }, header: headers(write) }, body: { ...body, dryRun: false } }));
  }

  redo(id: string, body: HeadMoveBody = {}, write?: WriteOptions): Promise<HeadMoveResult> {
    return this.headMove(this.api.POST('/v1/sessions/{id}/redo', { params: { path: { id }, header: headers(write) }, body: { ...body, dryRun: false } }));
  }

  /**
   * Fork from the past: makes step `atVersion` current and starts a new branch there with `steps`
   * (messages, memory, context variables, tasks, thoughts), recorded as soon as the head lands.
   * When effects must be compensated first the answer may come before they are (see waitForRollback).
   */
  fork(id: string, body: Omit<Schemas['ForkDto'], 'dryRun'>, write?: WriteOptions): Promise<HeadMoveResult> {
    return this.headMove(this.api.POST('/v1/sessions/{id}/fork', { params: { path: { id }, header: headers(write) }, body: { ...body, dryRun: false } }));
  }

  /** Names a branch by one of its steps (getTimeline gives each branch the nearest name on its path). */
  nameBranch(id: string, version: number, name: string, write?: WriteOptions): Promise<WriteResult> {
    return data(this.api.POST('/v1/sessions/{id}/branch-names', { params: { path: { id }, header: headers(write) }, body: { version, name } }));
  }

  /** What a rollback would compensate or skip, without doing anything. */
  async planRollback(id: string, body: Omit<Schemas['RollbackDto'], 'dryRun' | 'waitMs'>): Promise<DryRun['plan']> {
    const answer = await data(this.api.POST('/v1/sessions/{id}/rollback', { params: { path: { id } }, body: { ...body, dryRun: true } }));
    return (answer as DryRun).plan;
  }

  private async headMove(request: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<HeadMoveResult> {
    return (await data(request)) as HeadMoveResult;
  }

  getRollback(rollbackId: string): Promise<Rollback> {
    return data(this.api.GET('/v1/rollbacks/{rollbackId}', { params: { path: { rollbackId } } }));
  }

  /**
   * Waits until the rollback is no longer in progress: completed, or needing attention (a
   * compensation failed for good; retryCompensation or resolveCompensation). Returns it as it stands.
   */
  async waitForRollback(rollbackId: string, options: WaitOptions = {}): Promise<Rollback> {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    for (;;) {
      const rollback = await this.getRollback(rollbackId);
      if (rollback.status !== 'in_progress') return rollback;
      if (Date.now() >= deadline) {
        throw new RewindError(
          0,
          'rollback_wait_timeout',
          `Rollback ${rollbackId} is still in progress after ${options.timeoutMs ?? 30_000} ms (${rollback.effects.filter((e) => e.status === 'pending').length} effects pending). It goes on on the server: wait again, or look at GET /v1/rollbacks/${rollbackId}.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
    }
  }

  retryCompensation(rollbackId: string, callId: string, write?: WriteOptions): Promise<Rollback> {
    return data(this.api.POST('/v1/rollbacks/{rollbackId}/effects/{callId}/retry', { params: { path: { rollbackId, callId }, header: headers(write) } }));
  }

  resolveCompensation(rollbackId: string, callId: string, note: string, write?: WriteOptions): Promise<Rollback> {
    return data(
      this.api.POST('/v1/rollbacks/{rollbackId}/effects/{callId}/resolve', {
        params: { path: { rollbackId, callId }, header: headers(write) },
        body: { note },
      }),
    );
  }

  // ---- long-term memory -----------------------------------------------------------------

  /** Branch-aware recall: what was rolled back is not recalled; a vague follow-up is rewritten first. */
  recall(id: string, body: Schemas['RecallDto']): Promise<Recall> {
    return data(this.api.POST('/v1/sessions/{id}/recall', { params: { path: { id } }, body }));
  }

  // ---- tools ----------------------------------------------------------------------------

  registerTool(name: string, body: Schemas['RegisterToolDto'], write?: WriteOptions): Promise<Tool> {
    return data(this.api.PUT('/v1/tools/{name}', { params: { path: { name }, header: headers(write) }, body }));
  }

  getTool(name: string): Promise<Tool> {
    return data(this.api.GET('/v1/tools/{name}', { params: { path: { name } } }));
  }
}

export function createRewindClient(options: RewindClientOptions): RewindClient {
  return new RewindClient(options);
}

/** The documented body of a 2xx, or the answer's error as a RewindError. */
async function data<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await request;
  } catch (error) {
    if (error instanceof RewindError) throw error;
    throw new RewindError(
      0,
      'network_error',
      `The request got no answer (${(error as Error)?.message ?? String(error)}); it was retried and may be retried again safely.`,
    );
  }
  if (answer.response.ok) return answer.data as T;
  throw RewindError.fromResponse(answer.response.status, answer.error);
}

/** The write headers, typed as every write operation declares them. */
function headers(write: WriteOptions | undefined): { 'Idempotency-Key'?: string; 'If-Match'?: string; 'X-Correlation-Id'?: string } {
  if (!write) return {};
  return {
    ...(write.idempotencyKey !== undefined ? { 'Idempotency-Key': write.idempotencyKey } : {}),
    ...(write.ifMatch !== undefined ? { 'If-Match': typeof write.ifMatch === 'number' ? ifMatch(write.ifMatch) : write.ifMatch } : {}),
    ...(write.correlationId !== undefined ? { 'X-Correlation-Id': write.correlationId } : {}),
  };
}
