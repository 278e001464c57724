import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { EffectKind, JsonValue, MoveHead, RetryPolicy, RollbackRecord } from '@rewind/domain';
import { presentState, type Caller, type SessionService, type SessionView } from '@rewind/engine';
import { type EventStore } from '@rewind/event-store';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { InProcessMessageBus } from '@rewind/messaging/in-process';
import { InMemoryCheckpointStore, type CheckpointStore } from '@rewind/messaging';
import { SqliteCheckpointStore } from '@rewind/messaging/sqlite';
import { EngineSessionPaths, type RecallRequest, type RecallResult } from '@rewind/memory';
import { MemoryRuntime, memoryConfigFromEnv } from '@rewind/memory/runtime';
import { CompensationError, createSessionRuntime, type InlineCompensationChannel, type RollbackSaga } from '@rewind/sagas';

export { CompensationError };

/** How to undo a step, given what it was called with and what it returned. */
export type Undo<I, O> = (call: { input: I; output: O | null }) => Promise<unknown> | unknown;

export interface StepOptions<I, O> {
  /** Default: `reversible` when `undo` is given, else `none`. */
  kind?: EffectKind;
  undo?: Undo<I, O>;
  /** Required for irreversible steps: the user said yes. */
  confirmed?: boolean;
  retry?: RetryPolicy;
  toolCallId?: string;
}

/** A rollback that could not undo everything: what is left is in `rollback`. */
export class RollbackNeedsAttention extends Error {
  constructor(readonly rollback: RollbackRecord | null) {
    super(`Rollback ${rollback?.rollbackId ?? ''} could not undo every effect; it needs attention (see its failed effects).`);
    this.name = 'RollbackNeedsAttention';
  }
}

/**
 * Rewind as a library: the same engine, store and saga as the service, in-process. Steps
 * are recorded as events; `step()` declares how to undo a side effect (seed 000's
 * `@rollback_step` / `set_compensation`), and `rollbackTo()` / `undo()` run the undos,
 * newest first, before making the earlier state current.
 */
export class Rewind {
  private memoryRuntime: { runtime: MemoryRuntime; checkpoints: CheckpointStore } | undefined;

  private constructor(
    readonly store: EventStore,
    readonly sessions: SessionService,
    private readonly saga: RollbackSaga,
    readonly compensators: InlineCompensationChannel,
    private readonly tenantId: string,
    private readonly dataDir: string | null = null,
  ) {}

  /**
   * Long-term memory (loaded on first use: the first call may download the embedding model).
   * Indexed on demand: each recall first indexes what was recorded since the last one.
   */
  memory(): MemoryRuntime {
    if (!this.memoryRuntime) {
      const config = memoryConfigFromEnv(process.env, this.dataDir ?? '.');
      if (this.dataDir === null) config.sqliteFile = ':memory:';
      const checkpoints = this.dataDir === null ? new InMemoryCheckpointStore() : new SqliteCheckpointStore(join(this.dataDir, 'rewind.db'));
      const runtime = new MemoryRuntime({ config, paths: new EngineSessionPaths(this.sessions), store: this.store, checkpoints });
      this.memoryRuntime = { runtime, checkpoints };
    }
    return this.memoryRuntime.runtime;
  }

  /** Branch-aware recall for one of this tenant's sessions (see RewindSession.recall). */
  async recall(request: Omit<RecallRequest, 'tenantId'>): Promise<RecallResult> {
    const memory = this.memory();
    await memory.indexer.open();
    await memory.indexer.catchUp();
    return memory.recall.recall({ tenantId: this.tenantId, ...request });
  }

  /** Nothing persisted: for tests and short-lived agents. */
  static inMemory(options: { tenantId?: string } = {}): Rewind {
    return Rewind.over(new InMemoryEventStore(), options.tenantId ?? 'local');
  }

  /** Persisted in `<dataDir>/rewind.db` (the embedded store the service uses). */
  static open(options: { dataDir: string; tenantId?: string; snapshotEvery?: number }): Rewind {
    return Rewind.over(
      new SqliteEventStore({ filename: join(options.dataDir, 'rewind.db') }),
      options.tenantId ?? 'default',
      options.snapshotEvery,
      options.dataDir,
    );
  }

  private static over(store: EventStore, tenantId: string, snapshotEvery = 100, dataDir: string | null = null): Rewind {
    const runtime = createSessionRuntime(store, { snapshotEvery, bus: new InProcessMessageBus() });
    return new Rewind(store, runtime.sessions, runtime.saga, runtime.inline, tenantId, dataDir);
  }

  async startSession(sessionId: string = randomUUID(), title?: string): Promise<RewindSession> {
    const caller = { tenantId: this.tenantId, actor: 'library' };
    await this.sessions.startSession(caller, { sessionId, ...(title ? { title } : {}) });
    return new RewindSession(this, this.saga, caller, sessionId);
  }

  /** An existing session (for example after a restart). */
  session(sessionId: string): RewindSession {
    return new RewindSession(this, this.saga, { tenantId: this.tenantId, actor: 'library' }, sessionId);
  }

  async close(): Promise<void> {
    if (this.memoryRuntime) {
      await this.memoryRuntime.runtime.close();
      await this.memoryRuntime.checkpoints.close();
    }
    await this.saga.stop();
    await this.sessions.repository.flushSnapshots();
    await this.store.close();
  }
}

export class RewindSession {
  constructor(
    private readonly rewind: Rewind,
    private readonly saga: RollbackSaga,
    private readonly caller: Caller,
    readonly id: string,
  ) {}

  /**
   * Runs `run(input)` as a recorded tool call. Its effect is declared before it runs, so
   * a crash during the call can still be undone; `undo` is called on rollback.
   */
  async step<I extends JsonValue, O extends JsonValue | void>(
    tool: string,
    input: I,
    run: (input: I) => Promise<O> | O,
    options: StepOptions<I, O> = {},
  ): Promise<O> {
    const toolCallId = options.toolCallId ?? randomUUID();
    const kind = options.kind ?? (options.undo ? 'reversible' : 'none');
    const handler = `library:${this.id}:${toolCallId}`;
    if (options.undo) {
      const undo = options.undo;
      this.rewind.compensators.register(handler, async (request) => {
        const call = request.payload as { input: I; output: O | null };
        return ((await undo(call)) ?? null) as JsonValue;
      });
    }
    await this.rewind.sessions.execute(this.caller, this.id, {
      type: 'StartToolCall',
      toolCallId,
      tool,
      input,
      effect: {
        kind,
        ...(options.undo ? { compensation: { channel: 'inline' as const, target: handler, payload: { input: '{{input}}', output: '{{output}}' } } } : {}),
        ...(options.retry ? { retry: options.retry } : {}),
      },
      ...(options.confirmed !== undefined ? { confirmed: options.confirmed } : {}),
    });
    let output: O;
    try {
      output = await run(input);
    } catch (error) {
      await this.rewind.sessions.execute(this.caller, this.id, {
        type: 'FailToolCall',
        toolCallId,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
    await this.rewind.sessions.execute(this.caller, this.id, { type: 'CompleteToolCall', toolCallId, output: (output ?? null) as JsonValue });
    return output;
  }

  async say(role: 'user' | 'agent', content: string): Promise<number> {
    return (await this.rewind.sessions.execute(this.caller, this.id, { type: 'RecordMessage', role, content })).version;
  }

  async remember(key: string, value: JsonValue): Promise<number> {
    return (await this.rewind.sessions.execute(this.caller, this.id, { type: 'WriteMemory', key, value })).version;
  }

  /** Labels the current step; returns its version. */
  async checkpoint(label: string): Promise<number> {
    await this.rewind.sessions.execute(this.caller, this.id, { type: 'CreateCheckpoint', label });
    return (await this.state()).head;
  }

  /** Undoes every effect after the target (newest first), then makes the target current. */
  async rollbackTo(target: number | string, options: { acknowledgeIrreversible?: boolean } = {}): Promise<SessionView> {
    return this.move({ type: 'MoveHead', kind: 'rollback', ...(typeof target === 'number' ? { toVersion: target } : { toCheckpoint: target }), ...options });
  }

  async undo(steps = 1, options: { acknowledgeIrreversible?: boolean } = {}): Promise<SessionView> {
    return this.move({ type: 'MoveHead', kind: 'undo', steps, ...options });
  }

  private async move(command: MoveHead): Promise<SessionView> {
    const result = await this.rewind.sessions.execute(this.caller, this.id, command);
    if (result.rollbackId && result.status === 'rolling_back') {
      const rollback = await this.saga.run(this.caller.tenantId, this.id, result.rollbackId);
      if (rollback?.status !== 'completed') throw new RollbackNeedsAttention(rollback);
    }
    return this.state();
  }

  /**
   * What long-term memory recalls for a question: hybrid, branch-aware (what was rolled back
   * is not recalled, and comes back on redo), a vague follow-up rewritten from the recent turns.
   */
  recall(query: string, options: Omit<RecallRequest, 'tenantId' | 'sessionId' | 'query'> = {}): Promise<RecallResult> {
    return this.rewind.recall({ sessionId: this.id, query, ...options });
  }

  /** The session at its head (or at version `at`), in the shape `GET /v1/sessions/:id` answers. */
  async state(at?: number): Promise<SessionView> {
    return presentState(await this.rewind.sessions.getState(this.caller, this.id, at));
  }
}

export type { SessionView };
