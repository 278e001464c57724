import {
  cloneState,
  decide,
  DomainError,
  evolveInPlace,
  forkForSteps,
  invalid,
  isStepCommand,
  resolveHeadMoveTarget,
  type DecideContext,
  type EffectDescriptor,
  type JsonObject,
  type MoveHead,
  type PathState,
  type SessionCommand,
  type SessionState,
  type StepCommand,
} from '@rewind/domain';
import type { NewEvent, StoredEvent } from '@rewind/event-store';
import { fingerprint } from '../fingerprint';
import { asSessionEvent, type SessionRepository } from '../session-repository';
import { sessionStreamId } from '../stream-id';
import type { ToolRegistry } from '../tool-registry';
import { CommandPipeline, type Decision, type StampEvents } from './command-pipeline';
import { SessionStream, type SessionCommitListener } from './session-stream';
import type { Caller, WriteOptions, WriteResult } from './write-request';

export interface SessionCommandsOptions {
  newId?: () => string;
  now?: () => Date;
  /** Registered tools: a call that does not declare its effect gets the tool's. */
  tools?: ToolRegistry;
  /** True when a rollback saga runs: head moves across effects start it instead of answering 409. */
  compensationEnabled?: boolean;
  /** Called after each commit (not for idempotent replays), e.g. to start the saga. */
  onCommitted?: SessionCommitListener;
}

/** Steps in one `executeSteps` call: one append, one transaction. */
export const MAX_STEPS_PER_WRITE = 1000;

const NO_EFFECTS: ReadonlyMap<string, EffectDescriptor> = new Map();

/**
 * The session's write side: each command is validated and fingerprinted here, then runs
 * through the one pipeline as a batch (a single command is a batch of one) decided on the
 * session's state.
 */
export class SessionCommands {
  readonly pipeline: CommandPipeline;
  private readonly stream: SessionStream;

  constructor(
    private readonly repository: SessionRepository,
    private readonly options: SessionCommandsOptions = {},
  ) {
    this.pipeline = new CommandPipeline(repository.store, {
      ...(options.newId ? { newId: options.newId } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    this.stream = new SessionStream(repository, options.onCommitted);
  }

  startSession(caller: Caller, input: { sessionId?: string; title?: string; metadata?: JsonObject }, options: WriteOptions = {}): Promise<WriteResult> {
    const sessionId = input.sessionId ?? this.pipeline.newId();
    const command: SessionCommand = { type: 'StartSession', sessionId, title: input.title ?? null, metadata: input.metadata ?? {} };
    return this.write(caller, sessionId, [command], options, () => fingerprint({ op: 'StartSession', input }));
  }

  execute(caller: Caller, sessionId: string, command: SessionCommand, options: WriteOptions = {}): Promise<WriteResult> {
    return this.write(caller, sessionId, [command], options, () => fingerprint({ sessionId, command }));
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
    // One step answers (and is fingerprinted) exactly as the same command sent on its own.
    if (steps.length === 1) return this.execute(caller, sessionId, steps[0]!, options);
    return this.write(caller, sessionId, steps, options, () => fingerprint({ sessionId, steps }));
  }

  /** Not async (one promise fewer per write): a synchronous refusal still arrives as a rejection. */
  private write(caller: Caller, sessionId: string, commands: readonly SessionCommand[], options: WriteOptions, print: () => string): Promise<WriteResult> {
    try {
      // Canonical JSON + SHA-256 is only needed to recognise a retried idempotent request.
      const request = {
        caller,
        streamId: sessionStreamId(caller.tenantId, sessionId),
        sessionId,
        options,
        fingerprint: options.idempotencyKey === undefined ? '' : print(),
      };
      return this.pipeline.handle(this.stream, request, (state, stamp) => this.decideBatch(caller, request.streamId, state, commands, stamp));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /**
   * The events of a batch, each command decided on what the ones before it leave. A promise
   * only when the decision needs I/O: a head move's target path, registered tool effects.
   */
  private decideBatch(
    caller: Caller,
    streamId: string,
    state: SessionState,
    commands: readonly SessionCommand[],
    stamp: StampEvents,
  ): Decision<PathState | undefined> | Promise<Decision<PathState | undefined>> {
    const first = commands[0]!;
    const movesPath = first.type === 'MoveHead' && state.version > 0 && state.activeRollbackId === null;
    const startsTool = this.options.tools !== undefined && commands.some((c) => c.type === 'StartToolCall');
    if (!movesPath && !startsTool) return this.decideLoaded(caller, streamId, state, commands, stamp, undefined, NO_EFFECTS);
    return this.lookUpThenDecide(caller, streamId, state, commands, stamp, movesPath ? (first as MoveHead) : undefined);
  }

  private async lookUpThenDecide(
    caller: Caller,
    streamId: string,
    state: SessionState,
    commands: readonly SessionCommand[],
    stamp: StampEvents,
    move: MoveHead | undefined,
  ): Promise<Decision<PathState | undefined>> {
    // A head move (only ever alone) that switches paths needs the target path's state.
    const targetPath = move ? await this.repository.pathAt(streamId, resolveHeadMoveTarget(state, move).toVersion) : undefined;
    const effects = await this.registeredEffects(caller, commands);
    return this.decideLoaded(caller, streamId, state, commands, stamp, targetPath, effects);
  }

  private decideLoaded(
    caller: Caller,
    streamId: string,
    state: SessionState,
    commands: readonly SessionCommand[],
    stamp: StampEvents,
    targetPath: PathState | undefined,
    effects: ReadonlyMap<string, EffectDescriptor>,
  ): Decision<PathState | undefined> | Promise<Decision<PathState | undefined>> {
    const context: DecideContext = {
      newId: this.pipeline.newId,
      actor: caller.actor,
      pathAt: () => cloneState(targetPath!),
      toolEffect: (tool) => effects.get(tool),
      compensationEnabled: this.options.compensationEnabled ?? false,
    };
    if (commands.length > 1) return { events: decideSteps(state, commands as readonly StepCommand[], context, stamp, streamId), context: targetPath };
    // Alone, a command is decided on the loaded state itself: decide does not change it.
    const events = stamp(decide(state, commands[0]!, context).events);
    // The saga's last outcome completes a rollback: folding it needs the path the head lands on.
    const completion = targetPath === undefined ? events.find((e) => e.type === 'RollbackCompleted') : undefined;
    if (!completion) return { events, context: targetPath };
    return this.repository.pathAt(streamId, (completion.data as { toVersion: number }).toVersion).then((path) => ({ events, context: path }));
  }

  /** The registered effect of every tool the commands start (a call that declares none gets it). */
  private async registeredEffects(caller: Caller, commands: readonly SessionCommand[]): Promise<ReadonlyMap<string, EffectDescriptor>> {
    const tools = this.options.tools;
    if (!tools) return NO_EFFECTS;
    let effects: Map<string, EffectDescriptor> | undefined;
    for (const command of commands) {
      if (command.type !== 'StartToolCall' || effects?.has(command.tool)) continue;
      const effect = (await tools.get(caller.tenantId, command.tool))?.effect;
      if (effect) (effects ??= new Map()).set(command.tool, effect);
    }
    return effects ?? NO_EFFECTS;
  }
}

/**
 * Steps decided one after the other on a private fork (the cached state is what readers
 * see until the append commits); a refused step refuses the batch, named by its index.
 */
function decideSteps(state: SessionState, steps: readonly StepCommand[], context: DecideContext, stamp: StampEvents, streamId: string): NewEvent[] {
  const scratch = forkForSteps(state);
  const events: NewEvent[] = [];
  steps.forEach((command, index) => {
    let decided;
    try {
      decided = decide(scratch, command, context).events;
    } catch (error) {
      throw error instanceof DomainError ? atStep(error, index) : error;
    }
    for (const event of stamp(decided)) {
      const recorded: StoredEvent = { ...event, streamId, streamVersion: scratch.version + 1, globalPosition: 0 };
      evolveInPlace(scratch, asSessionEvent(recorded), () => {
        throw new Error(`steps never switch paths (${event.type} at steps[${index}])`);
      });
      events.push(event);
    }
  });
  return events;
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
