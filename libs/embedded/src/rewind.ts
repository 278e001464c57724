import { randomUUID } from 'node:crypto';
import {
  assertComponentName,
  buildContextWindow,
  componentStates,
  saveComponentState,
  type ContextWindow,
  type ContextWindowOptions,
  type EffectKind,
  type JsonValue,
  type MoveHead,
  type RetryPolicy,
  type RollbackRecord,
} from '@rewind/domain';
import { presentState, sessionStreamId, type Caller, type SessionService, type SessionView } from '@rewind/engine';
import { type EventStore, type StoredEvent } from '@rewind/event-store';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SubscriptionLoop } from '@rewind/event-store/subscriptions';
import { InProcessMessageBus } from '@rewind/messaging/in-process';
import { InMemoryCheckpointStore, type CheckpointStore } from '@rewind/event-store/subscriptions';
import { openSqliteBackend, type Backend } from '@rewind/runtime';
import { EngineSessionPaths, type RecallRequest, type RecallResult } from '@rewind/memory';
import { MemoryRuntime, memoryConfigFromEnv } from '@rewind/memory/runtime';
import { holdIndexFile } from '@rewind/memory/sqlite-vec';
import { CompensationError, createSessionRuntime, RollbackSubscription, type InlineCompensationChannel, type RollbackSaga } from '@rewind/sagas';
import { persists, type ComponentDefinition } from './components';
import { describeFailure, finalFailureMessage, ToolCallError, waitBeforeNextAttempt, type ToolDefinition } from './tools';

export { CompensationError };

/** How the library waits between attempts; replaceable so that tests need not wait. */
export interface RewindTiming {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

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
  /** Tells `rewind memory rebuild` that this process has the embedded index open (as the API and worker do). */
  private memoryHolder: { release(): void } | null = null;
  /** The stores of `<dataDir>/rewind.db` (Rewind.open), or null over a store the caller gave. */
  private backend: Backend | null = null;
  /** Components registered by name (see `registerComponent`). */
  readonly components = new Map<string, ComponentDefinition<never>>();
  /** Tools registered by name (see `tool`). */
  readonly tools = new Map<string, ToolDefinition<never, never>>();
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;

  private constructor(
    readonly store: EventStore,
    readonly sessions: SessionService,
    private readonly saga: RollbackSaga,
    readonly compensators: InlineCompensationChannel,
    readonly tenantId: string,
    timing: RewindTiming,
    private readonly dataDir: string | null = null,
  ) {
    this.sleep = timing.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = timing.random ?? Math.random;
  }

  /**
   * Long-term memory (loaded on first use: the first call may download the embedding model).
   * Indexed on demand: each recall first indexes what was recorded since the last one.
   */
  memory(): MemoryRuntime {
    if (!this.memoryRuntime) {
      const config = memoryConfigFromEnv(process.env, this.dataDir ?? '.');
      if (this.dataDir === null) config.sqliteFile = ':memory:';
      // The backend's closes with it; one of our own otherwise.
      const checkpoints = this.backend?.checkpoints ?? new InMemoryCheckpointStore();
      // Library mode catches up right before each recall, in the caller's process: no background thread to manage.
      const runtime = new MemoryRuntime({ config, paths: new EngineSessionPaths(this.sessions), store: this.store, checkpoints, placement: 'process' });
      if (config.index === 'sqlite' && config.sqliteFile !== ':memory:') this.memoryHolder = holdIndexFile(config.sqliteFile, 'Rewind library');
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
  static inMemory(options: { tenantId?: string } & RewindTiming = {}): Rewind {
    return Rewind.over(new InMemoryEventStore(), options.tenantId ?? 'local', undefined, options);
  }

  /** Persisted in `<dataDir>/rewind.db` (the embedded store the service uses). */
  static open(options: { dataDir: string; tenantId?: string; snapshotEvery?: number } & RewindTiming): Rewind {
    const backend = openSqliteBackend({ dataDir: options.dataDir });
    const rewind = Rewind.over(backend.events, options.tenantId ?? 'default', options.snapshotEvery, options, options.dataDir);
    rewind.backend = backend;
    return rewind;
  }

  /** Over a store you opened (e.g. `PostgresEventStore` from `@rewind/event-store/postgres`); `close()` closes it. */
  static on(store: EventStore, options: { tenantId?: string; snapshotEvery?: number } & RewindTiming = {}): Rewind {
    return Rewind.over(store, options.tenantId ?? 'default', options.snapshotEvery, options);
  }

  private static over(store: EventStore, tenantId: string, snapshotEvery = 100, timing: RewindTiming = {}, dataDir: string | null = null): Rewind {
    const runtime = createSessionRuntime(store, { snapshotEvery, bus: new InProcessMessageBus() });
    return new Rewind(store, runtime.sessions, runtime.saga, runtime.inline, tenantId, timing, dataDir);
  }

  /**
   * Registers a tool by name: `session.call(name, input)` runs it, and a rollback finds its
   * undo by this name, in this process or in the next one once the tool is registered again.
   */
  tool<I extends JsonValue, O extends JsonValue | void>(name: string, definition: ToolDefinition<I, O>): this {
    this.tools.set(name, definition as unknown as ToolDefinition<never, never>);
    const undo = definition.undo;
    if (undo) {
      this.compensators.register(toolUndoHandler(name), async (request) => {
        const call = request.payload as { input: I; output: O | null };
        try {
          return ((await undo({ ...call, idempotencyKey: request.idempotencyKey, toolCallId: request.toolCallId })) ?? null) as JsonValue;
        } catch (error) {
          throw error instanceof ToolCallError ? new CompensationError(error.message, error.retryable) : error;
        }
      });
    }
    return this;
  }

  /** Registers a component whose own state the session keeps (see ComponentDefinition). */
  registerComponent<S extends JsonValue>(component: ComponentDefinition<S>): this {
    assertComponentName(component.name);
    this.components.set(component.name, component as unknown as ComponentDefinition<never>);
    return this;
  }

  /**
   * Finishes rollbacks that a stopped process left in progress (call it after registering
   * the tools again); resolves when they have stopped, with how many there were.
   */
  async resumeRollbacks(): Promise<number> {
    // One pass of the saga's follower over the whole log (library mode runs no background loop).
    const rollbacks = new RollbackSubscription(this.saga, this.store);
    await new SubscriptionLoop(this.store, rollbacks).catchUp();
    await this.saga.drain();
    return rollbacks.resumed;
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
      this.memoryHolder?.release();
      if (!this.backend) await this.memoryRuntime.checkpoints.close();
    }
    await this.saga.stop();
    await this.sessions.repository.flushSnapshots();
    await (this.backend ?? this.store).close();
  }
}

/** The in-process compensation handler that undoes calls of a registered tool. */
export function toolUndoHandler(tool: string): string {
  return `tool:${tool}`;
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

  /**
   * Calls a tool registered with `rewind.tool(name, …)`. Each attempt is recorded (started,
   * then failed or succeeded); a failed attempt is retried with the tool's policy unless its
   * error is permanent, and the last error is rethrown.
   */
  async call<I extends JsonValue, O extends JsonValue | void>(name: string, input: I, options: { toolCallId?: string; confirmed?: boolean } = {}): Promise<O> {
    const tool = this.rewind.tools.get(name) as ToolDefinition<I, O> | undefined;
    if (!tool) {
      throw new Error(`No tool is registered as "${name}" in this process: register it with rewind.tool("${name}", { run, undo }) before calling it.`);
    }
    const toolCallId = options.toolCallId ?? randomUUID();
    const kind = tool.kind ?? (tool.undo ? 'reversible' : 'none');
    const effect = {
      kind,
      ...(tool.undo
        ? { compensation: { channel: 'inline' as const, target: toolUndoHandler(name), payload: { input: '{{input}}', output: '{{output}}' } } }
        : {}),
      ...(tool.retry ? { retry: { timeoutMs: 10_000, ...tool.retry } } : {}),
    };
    for (let attempt = 1; ; attempt++) {
      await this.rewind.sessions.execute(this.caller, this.id, {
        type: 'StartToolCall',
        toolCallId,
        tool: name,
        input,
        effect,
        ...(options.confirmed !== undefined ? { confirmed: options.confirmed } : {}),
      });
      let output: O;
      try {
        output = await tool.run(input, { attempt, toolCallId });
      } catch (error) {
        const failure = describeFailure(error);
        const wait = waitBeforeNextAttempt(tool.retry, attempt, failure, this.rewind.random);
        await this.rewind.sessions.execute(this.caller, this.id, {
          type: 'FailToolCall',
          toolCallId,
          error: wait === null ? finalFailureMessage(name, attempt, failure) : `attempt ${attempt} failed, retrying in ${wait} ms: ${failure.error}`,
          retryable: wait !== null,
        });
        if (wait === null) throw error;
        await this.rewind.sleep(wait);
        continue;
      }
      await this.rewind.sessions.execute(this.caller, this.id, { type: 'CompleteToolCall', toolCallId, output: (output ?? null) as JsonValue });
      return output;
    }
  }

  async say(role: 'user' | 'agent', content: string): Promise<number> {
    return (await this.rewind.sessions.execute(this.caller, this.id, { type: 'RecordMessage', role, content })).version;
  }

  /** Records the agent's reasoning (a timeline step that `context()` leaves out unless asked); returns its version. */
  async think(content: string, steps?: string[]): Promise<number> {
    return (await this.rewind.sessions.execute(this.caller, this.id, { type: 'RecordThought', content, ...(steps ? { steps } : {}) })).version;
  }

  /** What the LLM should see, as `GET /v1/sessions/:id/context` answers it (thoughts only with `includeThoughts`). */
  async context(options: ContextWindowOptions & { at?: number } = {}): Promise<ContextWindow & { sessionId: string; head: number }> {
    const { at, ...window } = options;
    const state = await this.rewind.sessions.getState(this.caller, this.id, at);
    return { sessionId: this.id, head: state.head, ...buildContextWindow(state.path, window) };
  }

  async remember(key: string, value: JsonValue): Promise<number> {
    return (await this.rewind.sessions.execute(this.caller, this.id, { type: 'WriteMemory', key, value })).version;
  }

  /** Sets a context variable (a step of the timeline, so time travel and rollback restore it); returns its version. */
  async setVariable(name: string, value: JsonValue): Promise<number> {
    return (await this.rewind.sessions.execute(this.caller, this.id, { type: 'SetContextVariable', name, value })).version;
  }

  /** Saves the state of every persisting component whose state changed; returns the head version. */
  async saveComponents(): Promise<number> {
    const saved = componentStates((await this.rewind.sessions.getState(this.caller, this.id)).path.contextVars);
    let head: number | undefined;
    for (const component of this.rewind.components.values()) {
      if (!persists(component)) continue;
      const state = (await component.getState()) as JsonValue;
      if (JSON.stringify(state) === JSON.stringify(saved[component.name])) continue;
      head = (await this.rewind.sessions.execute(this.caller, this.id, saveComponentState(component.name, state))).version;
    }
    return head ?? (await this.rewind.sessions.getState(this.caller, this.id)).head;
  }

  /** Hands every persisting component the state it had at version `at` (default: the head). */
  async restoreComponents(at?: number): Promise<void> {
    const saved = componentStates((await this.rewind.sessions.getState(this.caller, this.id, at)).path.contextVars);
    for (const component of this.rewind.components.values()) {
      if (persists(component)) await component.restoreState(saved[component.name] as never);
    }
  }

  /** Saves the components' state, then labels the current step; returns its version. */
  async checkpoint(label: string): Promise<number> {
    await this.saveComponents();
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
    await this.restoreComponents();
    return this.state();
  }

  /**
   * What long-term memory recalls for a question: hybrid, branch-aware (what was rolled back
   * is not recalled, and comes back on redo), a vague follow-up rewritten from the recent turns.
   */
  recall(query: string, options: Omit<RecallRequest, 'tenantId' | 'sessionId' | 'query'> = {}): Promise<RecallResult> {
    return this.rewind.recall({ sessionId: this.id, query, ...options });
  }

  /** Every event of the session, oldest first: its audit trail (every attempt, compensation and head move). */
  async events(fromVersion?: number): Promise<StoredEvent[]> {
    return this.rewind.store.readStream(sessionStreamId(this.caller.tenantId, this.id), fromVersion ? { fromVersion } : {});
  }

  /** The session at its head (or at version `at`), in the shape `GET /v1/sessions/:id` answers. */
  async state(at?: number): Promise<SessionView> {
    return presentState(await this.rewind.sessions.getState(this.caller, this.id, at));
  }
}

export type { SessionView };
