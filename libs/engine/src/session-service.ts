import { randomUUID } from 'node:crypto';
import {
  buildContextWindow,
  cloneState,
  decide,
  diffJson,
  DomainError,
  evolveInPlace,
  forkForSteps,
  invalid,
  isStepCommand,
  EVENT_SCHEMA_VERSION,
  notFound,
  planHeadMove,
  resolveHeadMoveTarget,
  timelineView,
  type ContextWindow,
  type EffectDescriptor,
  type ContextWindowOptions,
  type HeadMovePlan,
  type JsonObject,
  type JsonValue,
  type MoveHead,
  type PathState,
  type PendingEvent,
  type SessionCommand,
  type SessionState,
  type StepCommand,
} from '@rewind/domain';
import { ConcurrencyError, IdempotencyKeyReusedError, type IdempotencyRecord, type NewEvent, type StoredEvent } from '@rewind/event-store';
import { fingerprint } from './fingerprint';
import { KeyedMutex } from './keyed-mutex';
import { asSessionEvent, SessionRepository } from './session-repository';
import { sessionIdFromStream, sessionStreamId, sessionStreamPrefix } from './stream-id';
import type { ToolRegistry } from './tool-registry';

/** Who is acting: every read and write is scoped to the caller's tenant. */
export interface Caller {
  tenantId: string;
  /** Recorded in each event's metadata (e.g. `key:<id>`). */
  actor: string;
}

export interface WriteOptions {
  idempotencyKey?: string;
  /** If-Match: the stream version the caller believes is current. */
  expectedVersion?: number;
  commandId?: string;
  correlationId?: string;
  causationId?: string;
}

export interface WriteResult {
  sessionId: string;
  /** Stream version after the write. */
  version: number;
  head: number;
  status: SessionState['status'];
  /** True when this answers a retry of an idempotent request: nothing new was written. */
  duplicate: boolean;
  events: { eventId: string; type: string; streamVersion: number; parentVersion: number | null }[];
  /** Set when the write started a rollback (see GET /v1/rollbacks/:rollbackId). */
  rollbackId?: string;
}

export interface SessionServiceOptions {
  newId?: () => string;
  now?: () => Date;
  /** Registered tools: a call that does not declare its effect gets the tool's. */
  tools?: ToolRegistry;
  /** True when a rollback saga runs: head moves across effects start it instead of answering 409. */
  compensationEnabled?: boolean;
  /** Called after each commit (not for idempotent replays), e.g. to start the saga. */
  onCommitted?: (tenantId: string, sessionId: string, events: StoredEvent[]) => void;
}

const MAX_CONFLICT_RETRIES = 5;
/** Steps in one `executeSteps` call: one append, one transaction. */
export const MAX_STEPS_PER_WRITE = 1000;

/** Commands and queries on agent sessions: load, decide, append, answer. */
export class SessionService {
  private readonly mutex = new KeyedMutex();
  private readonly newId: () => string;
  private readonly now: () => Date;

  constructor(
    readonly repository: SessionRepository,
    private readonly options: SessionServiceOptions = {},
  ) {
    this.newId = options.newId ?? randomUUID;
    this.now = options.now ?? (() => new Date());
  }

  private get store() {
    return this.repository.store;
  }

  async startSession(caller: Caller, input: { sessionId?: string; title?: string; metadata?: JsonObject }, options: WriteOptions = {}): Promise<WriteResult> {
    // Canonical JSON + SHA-256 is only needed to recognise a retried idempotent request.
    const print = options.idempotencyKey === undefined ? '' : fingerprint({ op: 'StartSession', input });
    const replayed = await this.replayIdempotent(caller, options, print);
    if (replayed) return replayed;
    const sessionId = input.sessionId ?? this.newId();
    return this.write(caller, sessionId, { type: 'StartSession', sessionId, title: input.title ?? null, metadata: input.metadata ?? {} }, options, print);
  }

  async execute(caller: Caller, sessionId: string, command: SessionCommand, options: WriteOptions = {}): Promise<WriteResult> {
    const print = options.idempotencyKey === undefined ? '' : fingerprint({ sessionId, command });
    const replayed = await this.replayIdempotent(caller, options, print);
    if (replayed) return replayed;
    return this.write(caller, sessionId, command, options, print);
  }

  /**
   * Several steps in one atomic write: each is decided on the state the ones before it leave,
   * all are appended in one transaction, and a refused step (named by its index) refuses the
   * whole batch, so nothing is persisted. One Idempotency-Key and one If-Match cover the batch.
   */
  async executeSteps(caller: Caller, sessionId: string, commands: readonly SessionCommand[], options: WriteOptions = {}): Promise<WriteResult> {
    if (commands.length === 0 || commands.length > MAX_STEPS_PER_WRITE) {
      throw invalid('validation_failed', `Send between 1 and ${MAX_STEPS_PER_WRITE} steps (got ${commands.length}).`, [
        { field: 'steps', message: `must hold 1 to ${MAX_STEPS_PER_WRITE} steps` },
      ]);
    }
    const steps = commands.map((command, index) => {
      if (!isStepCommand(command)) {
        throw invalid('validation_failed', `steps[${index}]: a ${command.type} cannot be sent among steps; send it on its own.`, [
          { field: `steps.${index}`, message: 'not a step' },
        ]);
      }
      return command;
    });
    if (steps.length === 1) return this.execute(caller, sessionId, steps[0]!, options);
    const print = options.idempotencyKey === undefined ? '' : fingerprint({ sessionId, steps });
    const replayed = await this.replayIdempotent(caller, options, print);
    if (replayed) return replayed;
    const streamId = sessionStreamId(caller.tenantId, sessionId);
    return this.withRetries(streamId, options, () => this.writeStepsOnce(caller, streamId, sessionId, steps, options, print));
  }

  /** A head move's plan without doing anything (dry run). */
  async planHeadMove(caller: Caller, sessionId: string, command: MoveHead): Promise<HeadMovePlan> {
    const streamId = sessionStreamId(caller.tenantId, sessionId);
    const state = await this.existing(streamId);
    const target = resolveHeadMoveTarget(state, command);
    return planHeadMove(state, target, await this.repository.pathAt(streamId, target.toVersion));
  }

  private async replayIdempotent(caller: Caller, options: WriteOptions, print: string): Promise<WriteResult | null> {
    if (options.idempotencyKey === undefined) return null;
    const record = await this.store.findIdempotency(caller.tenantId, options.idempotencyKey);
    if (!record) return null;
    if (record.fingerprint !== print) throw new IdempotencyKeyReusedError(options.idempotencyKey);
    return this.resultOf(record);
  }

  private async resultOf(record: Pick<IdempotencyRecord, 'streamId' | 'firstVersion' | 'lastVersion'>): Promise<WriteResult> {
    const events = await this.store.readStream(record.streamId, { fromVersion: record.firstVersion, toVersion: record.lastVersion });
    const state = await this.repository.restore(record.streamId, record.lastVersion);
    return { ...this.summary(record.streamId, state, events), duplicate: true };
  }

  private summary(streamId: string, state: SessionState, events: StoredEvent[]): WriteResult {
    return {
      sessionId: sessionIdFromStream(streamId),
      version: events[events.length - 1]?.streamVersion ?? state.version,
      head: state.head,
      status: state.status,
      duplicate: false,
      events: events.map((e) => ({ eventId: e.eventId, type: e.type, streamVersion: e.streamVersion, parentVersion: e.parentVersion })),
      ...rollbackIdOf(events),
    };
  }

  private async write(caller: Caller, sessionId: string, command: SessionCommand, options: WriteOptions, print: string): Promise<WriteResult> {
    const streamId = sessionStreamId(caller.tenantId, sessionId);
    return this.withRetries(streamId, options, () => this.writeOnce(caller, streamId, sessionId, command, options, print));
  }

  /** One writer per session in this process; a conflict with another process decides again. */
  private withRetries(streamId: string, options: WriteOptions, writeOnce: () => Promise<WriteResult>): Promise<WriteResult> {
    return this.mutex.run(streamId, async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await writeOnce();
        } catch (error) {
          // Another process wrote first: decide again on fresh state, unless the caller pinned a version.
          if (!(error instanceof ConcurrencyError) || options.expectedVersion !== undefined || attempt >= MAX_CONFLICT_RETRIES) throw error;
          this.repository.forget(streamId);
        }
      }
    });
  }

  private async writeOnce(
    caller: Caller,
    streamId: string,
    sessionId: string,
    command: SessionCommand,
    options: WriteOptions,
    print: string,
  ): Promise<WriteResult> {
    // With If-Match the comparison must be against the store, not a possibly stale cache.
    const state = await this.repository.load(streamId, undefined, { trustCache: options.expectedVersion === undefined });
    if (options.expectedVersion !== undefined && options.expectedVersion !== state.version) {
      throw new ConcurrencyError(streamId, options.expectedVersion, state.version);
    }
    let targetPath: PathState | undefined;
    if (command.type === 'MoveHead' && state.version > 0 && state.activeRollbackId === null) {
      const target = resolveHeadMoveTarget(state, command);
      targetPath = await this.repository.pathAt(streamId, target.toVersion);
    }
    const registered =
      command.type === 'StartToolCall' && this.options.tools ? ((await this.options.tools.get(caller.tenantId, command.tool))?.effect ?? undefined) : undefined;
    const decision = decide(state, command, {
      newId: this.newId,
      actor: caller.actor,
      pathAt: () => cloneState(targetPath!),
      toolEffect: () => registered,
      compensationEnabled: this.options.compensationEnabled ?? false,
    });
    const completion = decision.events.find((e) => e.type === 'RollbackCompleted');
    if (completion && targetPath === undefined) targetPath = await this.repository.pathAt(streamId, (completion.data as { toVersion: number }).toVersion);
    const events = this.toNewEvents(decision.events, caller, sessionId, options, options.commandId ?? this.newId(), this.now().toISOString());
    const appended = await this.store.append(streamId, events, {
      expectedVersion: state.version === 0 ? 'no_stream' : state.version,
      ...(options.idempotencyKey !== undefined ? { idempotency: { scope: caller.tenantId, key: options.idempotencyKey, fingerprint: print } } : {}),
    });
    if (appended.duplicate) return this.resultOf(appended);
    const stored: StoredEvent[] = events.map((event, i) => ({ ...event, streamId, streamVersion: appended.firstVersion + i, globalPosition: 0 }));
    const next = await this.repository.committed(streamId, state, stored, targetPath);
    this.options.onCommitted?.(caller.tenantId, sessionId, stored);
    return this.summary(streamId, next, stored);
  }

  private async writeStepsOnce(
    caller: Caller,
    streamId: string,
    sessionId: string,
    commands: StepCommand[],
    options: WriteOptions,
    print: string,
  ): Promise<WriteResult> {
    const state = await this.repository.load(streamId, undefined, { trustCache: options.expectedVersion === undefined });
    if (options.expectedVersion !== undefined && options.expectedVersion !== state.version) {
      throw new ConcurrencyError(streamId, options.expectedVersion, state.version);
    }
    const effects = await this.registeredEffects(caller, commands);
    const commandId = options.commandId ?? this.newId();
    const occurredAt = this.now().toISOString();
    // Each step is decided on what the steps before it leave: a private fork, since the cached
    // state is what readers see until the append commits.
    const scratch = forkForSteps(state);
    const events: NewEvent[] = [];
    commands.forEach((command, index) => {
      let decided: PendingEvent[];
      try {
        decided = decide(scratch, command, {
          newId: this.newId,
          actor: caller.actor,
          toolEffect: (tool) => effects.get(tool),
          compensationEnabled: this.options.compensationEnabled ?? false,
        }).events;
      } catch (error) {
        throw error instanceof DomainError ? atStep(error, index) : error;
      }
      for (const event of this.toNewEvents(decided, caller, sessionId, options, commandId, occurredAt)) {
        const recorded: StoredEvent = { ...event, streamId, streamVersion: scratch.version + 1, globalPosition: 0 };
        evolveInPlace(scratch, asSessionEvent(recorded), () => {
          throw new Error(`steps never switch paths (${event.type} at steps[${index}])`);
        });
        events.push(event);
      }
    });
    const appended = await this.store.append(streamId, events, {
      expectedVersion: state.version === 0 ? 'no_stream' : state.version,
      ...(options.idempotencyKey !== undefined ? { idempotency: { scope: caller.tenantId, key: options.idempotencyKey, fingerprint: print } } : {}),
    });
    if (appended.duplicate) return this.resultOf(appended);
    const stored: StoredEvent[] = events.map((event, i) => ({ ...event, streamId, streamVersion: appended.firstVersion + i, globalPosition: 0 }));
    const next = await this.repository.committed(streamId, state, stored);
    this.options.onCommitted?.(caller.tenantId, sessionId, stored);
    return this.summary(streamId, next, stored);
  }

  /** The registered effect of every tool the steps start (a call that declares none gets it). */
  private async registeredEffects(caller: Caller, commands: StepCommand[]) {
    const effects = new Map<string, EffectDescriptor>();
    if (!this.options.tools) return effects;
    for (const command of commands) {
      if (command.type !== 'StartToolCall' || effects.has(command.tool)) continue;
      const effect = (await this.options.tools.get(caller.tenantId, command.tool))?.effect;
      if (effect) effects.set(command.tool, effect);
    }
    return effects;
  }

  private toNewEvents(decided: PendingEvent[], caller: Caller, sessionId: string, options: WriteOptions, commandId: string, occurredAt: string): NewEvent[] {
    return decided.map(({ parentVersion, ...event }) => ({
      eventId: this.newId(),
      type: event.type,
      data: event.data,
      parentVersion,
      metadata: {
        tenantId: caller.tenantId,
        sessionId,
        commandId,
        causationId: options.causationId ?? null,
        correlationId: options.correlationId ?? commandId,
        actor: caller.actor,
        occurredAt,
        schemaVersion: EVENT_SCHEMA_VERSION,
      },
    }));
  }

  // ---- queries -------------------------------------------------------------------

  private async existing(streamId: string, version?: number): Promise<SessionState> {
    const current = await this.repository.load(streamId);
    if (current.version === 0) throw notFound('session_not_found', 'No such session for this tenant.');
    if (version === undefined || version === current.version) return current;
    if (!Number.isInteger(version) || version < 1 || version > current.version) {
      throw notFound('version_not_found', `Version ${version} does not exist: the session has versions 1 to ${current.version}.`, [
        { field: 'at', message: `must be between 1 and ${current.version}` },
      ]);
    }
    return this.repository.load(streamId, version);
  }

  async getState(caller: Caller, sessionId: string, at?: number): Promise<SessionState> {
    return this.existing(sessionStreamId(caller.tenantId, sessionId), at);
  }

  /**
   * The DAG with each node's event type and summary. With a `page` (versions from `from`,
   * or the newest `limit`), only that span's nodes are detailed, and `parents` carries the
   * whole DAG compactly: a 20 000-event session answers in kilobytes, not megabytes.
   */
  async timeline(caller: Caller, sessionId: string, page?: { from?: number; limit: number }) {
    const streamId = sessionStreamId(caller.tenantId, sessionId);
    const state = await this.existing(streamId);
    const view = timelineView(state.timeline, state.head);
    const from = page ? (page.from ?? Math.max(1, state.version - page.limit + 1)) : 1;
    const to = page ? from + page.limit - 1 : state.version;
    const read = await this.store.readStream(streamId, page ? { fromVersion: from, limit: page.limit } : undefined);
    const events = new Map(read.map((e) => [e.streamVersion, asSessionEvent(e)]));
    return {
      sessionId,
      version: state.version,
      head: state.head,
      status: state.status,
      ...(page ? { parents: state.timeline, page: { from, to: Math.min(to, state.version) } } : {}),
      nodes: view.nodes
        .filter((node) => node.version >= from && node.version <= to)
        .map((node) => {
          const event = events.get(node.version);
          return { ...node, type: event?.type ?? 'unknown', occurredAt: event?.metadata.occurredAt ?? null, summary: event ? summarize(event.data) : null };
        }),
      branches: view.branches,
      checkpoints: Object.values(state.checkpoints),
      rollbacks: Object.values(state.rollbacks).map(({ plan, ...rest }) => ({ ...rest, effects: plan.length })),
    };
  }

  async events(caller: Caller, sessionId: string, from = 1, limit = 100): Promise<StoredEvent[]> {
    const streamId = sessionStreamId(caller.tenantId, sessionId);
    await this.existing(streamId);
    return this.store.readStream(streamId, { fromVersion: from, limit });
  }

  async diff(caller: Caller, sessionId: string, from: number, to: number) {
    const streamId = sessionStreamId(caller.tenantId, sessionId);
    const a = sessionView(await this.existing(streamId, from));
    const b = sessionView(await this.existing(streamId, to));
    return { sessionId, from, to, changes: diffJson(a, b) };
  }

  async context(
    caller: Caller,
    sessionId: string,
    options: ContextWindowOptions & { at?: number },
  ): Promise<ContextWindow & { sessionId: string; head: number }> {
    const state = await this.getState(caller, sessionId, options.at);
    return { sessionId, head: state.head, ...buildContextWindow(state.path, options) };
  }

  async listSessions(caller: Caller, options: { after?: string; limit: number }) {
    const prefix = sessionStreamPrefix(caller.tenantId);
    const streams = await this.store.listStreams({ prefix, limit: options.limit, ...(options.after ? { after: prefix + options.after } : {}) });
    const items = streams.map((s) => ({ sessionId: sessionIdFromStream(s.streamId), version: s.version, createdAt: s.createdAt, updatedAt: s.updatedAt }));
    return { items, nextCursor: items.length === options.limit ? items[items.length - 1]!.sessionId : null };
  }
}

function rollbackIdOf(events: StoredEvent[]): { rollbackId?: string } {
  const requested = events.find((e) => e.type === 'RollbackRequested');
  return requested ? { rollbackId: (requested.data as { rollbackId: string }).rollbackId } : {};
}

/** The parts of a state that a person compares between two versions. */
export function sessionView(state: SessionState): JsonValue {
  return {
    head: state.head,
    status: state.status,
    turns: state.path.turns,
    memory: state.path.memory,
    contextVars: state.path.contextVars,
    tasks: state.path.tasks,
    toolCalls: state.path.toolCalls,
    checkpoints: state.checkpoints,
  } as unknown as JsonValue;
}

function summarize(data: unknown): string | null {
  if (data === null || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  const text = d.content ?? d.tool ?? d.key ?? d.name ?? d.title ?? d.label ?? null;
  if (typeof text !== 'string') return null;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** A refused step, named by its place in the batch. */
function atStep(error: DomainError, index: number): DomainError {
  const details = error.details.length > 0 ? error.details : [{ message: error.message }];
  return new DomainError(
    error.kind,
    error.code,
    `steps[${index}]: ${error.message}`,
    details.map((d) => ({ ...d, field: d.field ? `steps.${index}.${d.field}` : `steps.${index}` })),
  );
}
