import { SpanStatusCode, TraceFlags, trace, type Span } from '@opentelemetry/api';
import { handleType, retry } from 'cockatiel';
import { DomainError, EVENT_SCHEMA_VERSION } from '@rewind/domain';
import {
  ConcurrencyError,
  IdempotencyKeyReusedError,
  type EventBody,
  type EventStore,
  type IdempotencyRecord,
  type NewEvent,
  type StoredEvent,
} from '@rewind/event-store';
import { KeyedMutex } from '../keyed-mutex';
import type { Caller, WriteOptions } from './write-request';
import { timeOrderedId } from './time-ordered-id';

const MAX_CONFLICT_RETRIES = 5;
/** Tries a write up to MAX_CONFLICT_RETRIES times in all while it meets another process's commit, at once. */
const CONFLICT_RETRY = retry(handleType(ConcurrencyError), { maxAttempts: MAX_CONFLICT_RETRIES - 1 });

/** Where an idempotent write landed: enough to answer its retry. */
export type WrittenRange = Pick<IdempotencyRecord, 'streamId' | 'firstVersion' | 'lastVersion'>;

/**
 * How one kind of stream (a session, a tool) takes part in the pipeline: how its state is
 * loaded, how appended events (of type E, kept from the decision to the fold) are folded in,
 * and what the caller is answered.
 */
export interface CommandStream<State extends { readonly version: number }, Context, Result, E extends EventBody = EventBody> {
  /** `trustCache`: false under If-Match, where the comparison must be against the store. */
  load(streamId: string, trustCache: boolean): Promise<State>;
  /** Another process wrote first: whatever is cached for the stream is stale. */
  forget(streamId: string): void;
  /** The events were appended: fold them into the state decided on and answer. */
  committed(streamId: string, decidedOn: State, stored: StoredEvent<E>[], context: Context): Promise<Result>;
  /** The answer to a retried idempotent request: nothing new is written. */
  replayed(written: WrittenRange): Promise<Result>;
  /** Subscribers told after each commit (not after a replay), e.g. the rollback saga. */
  onCommitted?(request: CommandRequest, stored: StoredEvent<E>[]): void;
}

export interface CommandRequest {
  /** The command's name on its span (`StartSession`, `RecordSteps`, `Undo`…). */
  commandType: string;
  caller: Caller;
  streamId: string;
  /** Recorded in every event's metadata ('' for streams that are not a session's). */
  sessionId: string;
  options: WriteOptions;
  /** Canonical hash of the command: recognises a retried idempotent request ('' without a key). */
  fingerprint: string;
}

/** An event as a decider returns it, before ids and metadata. */
export type DecidedEvent<E extends EventBody = EventBody> = E & { parentVersion: number | null };

/** Turns decided events into events to append: ids and metadata stamped, the type kept. */
export type StampEvents<E extends EventBody = EventBody> = (decided: readonly DecidedEvent<E>[]) => NewEvent<E>[];

export interface Decision<Context, E extends EventBody = EventBody> {
  events: NewEvent<E>[];
  /** Whatever `committed` needs besides the events (e.g. the path a head move lands on). */
  context: Context;
}

/** Decides on the loaded state (a promise only when it needs I/O); throws a DomainError to refuse (nothing is written). */
export type Decide<State, Context, E extends EventBody = EventBody> = (
  state: State,
  stamp: StampEvents<E>,
) => Decision<Context, E> | Promise<Decision<Context, E>>;

export interface CommandPipelineOptions {
  newId?: () => string;
  now?: () => Date;
}

/**
 * The one write path (after Emmett's `handleCommand`): idempotency replay, one writer per
 * stream with conflict retries, load, If-Match, decide, stamp metadata, one idempotent
 * append, commit, notify. Everything stream-specific comes from the `CommandStream` and
 * the `Decide` function; the I/O happens here and nowhere else.
 */
const tracer = trace.getTracer('rewind');

export class CommandPipeline {
  private readonly mutex = new KeyedMutex();
  readonly newId: () => string;
  private readonly now: () => Date;

  constructor(
    readonly store: EventStore,
    options: CommandPipelineOptions = {},
  ) {
    // Time-ordered ids (UUIDv7): the stores' unique index on event ids grows at its end, as the log
    // does, instead of at random pages (random v4 ids cost a SQLite insert ~35 % more CPU and 3× the
    // I/O once the index outgrows the page cache; session 9's measurement in BENCHMARKS.md).
    this.newId = options.newId ?? timeOrderedId;
    this.now = options.now ?? (() => new Date());
  }

  handle<State extends { readonly version: number }, Context, Result, E extends EventBody>(
    stream: CommandStream<State, Context, Result, E>,
    request: CommandRequest,
    decide: Decide<State, Context, E>,
  ): Promise<Result> {
    // One span per command (a no-op unless tracing is on): the store's append and the HTTP or Kafka work around it nest under it.
    const attributes = {
      'rewind.command.type': request.commandType,
      'rewind.stream_id': request.streamId,
      ...(request.sessionId ? { 'rewind.session_id': request.sessionId } : {}),
    };
    return tracer.startActiveSpan('rewind.command', { attributes }, (span) => {
      // Not async: without an Idempotency-Key the hot path goes straight to the writer queue.
      const result =
        request.options.idempotencyKey !== undefined
          ? this.replayOrWrite(stream, request, decide, request.options.idempotencyKey, span)
          : this.write(stream, request, decide, span);
      return result.then(
        (value) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          span.end();
          throw error;
        },
      );
    });
  }

  private async replayOrWrite<State extends { readonly version: number }, Context, Result, E extends EventBody>(
    stream: CommandStream<State, Context, Result, E>,
    request: CommandRequest,
    decide: Decide<State, Context, E>,
    key: string,
    span: Span,
  ): Promise<Result> {
    const record = await this.store.findIdempotency(request.caller.tenantId, key);
    if (!record) return this.write(stream, request, decide, span);
    if (record.fingerprint !== request.fingerprint) throw new IdempotencyKeyReusedError(key);
    span.setAttribute('rewind.event_count', 0);
    return stream.replayed(record);
  }

  /** One writer per stream in this process; a conflict with another process decides again. */
  private write<State extends { readonly version: number }, Context, Result, E extends EventBody>(
    stream: CommandStream<State, Context, Result, E>,
    request: CommandRequest,
    decide: Decide<State, Context, E>,
    span: Span,
  ): Promise<Result> {
    return this.mutex.run(request.streamId, () => {
      // A caller that pinned a version gets the conflict as its answer.
      if (request.options.expectedVersion !== undefined) return this.writeOnce(stream, request, decide, span);
      // Another process wrote first: decide again on fresh state.
      return CONFLICT_RETRY.execute(({ attempt }) => {
        if (attempt > 0) stream.forget(request.streamId);
        return this.writeOnce(stream, request, decide, span);
      });
    });
  }

  private async writeOnce<State extends { readonly version: number }, Context, Result, E extends EventBody>(
    stream: CommandStream<State, Context, Result, E>,
    request: CommandRequest,
    decide: Decide<State, Context, E>,
    span: Span,
  ): Promise<Result> {
    const { caller, streamId, options } = request;
    const state = await stream.load(streamId, options.expectedVersion === undefined);
    const conflict = options.expectedVersion !== undefined && options.expectedVersion !== state.version;
    // A stream that does not exist (e.g. another tenant's session) is the decider's to refuse
    // first, so If-Match cannot tell it apart from any other missing stream (a 404, not a 409).
    if (conflict && state.version > 0) throw new ConcurrencyError(streamId, options.expectedVersion!, state.version);
    const commandId = options.commandId ?? this.newId();
    const occurredAt = this.now().toISOString();
    const traceparent = sampledTraceparent(span);
    let decision: Decision<Context, E>;
    try {
      const decided = decide(state, (events) => this.stamp(events, request, commandId, occurredAt, traceparent));
      // Most decisions need no I/O: no await (and no extra turn of the event loop) for those.
      decision = decided instanceof Promise ? await decided : decided;
    } catch (error) {
      // A refusal decided on a cached state may be another process's write unseen (a tool call
      // started through another replica is "not found" here): a stale cache is caught by the
      // append's expected version only when something is appended. So before refusing, compare
      // with the store; when it moved, decide again on fresh state (the conflict retry).
      if (error instanceof DomainError && options.expectedVersion === undefined && state.version > 0) {
        const latest = await this.store.streamVersion(streamId);
        if (latest !== state.version) throw new ConcurrencyError(streamId, state.version, latest);
      }
      throw error;
    }
    if (conflict) throw new ConcurrencyError(streamId, options.expectedVersion!, state.version);
    const appended = await this.store.append(streamId, decision.events, {
      expectedVersion: state.version === 0 ? 'no_stream' : state.version,
      ...(options.idempotencyKey !== undefined
        ? { idempotency: { scope: caller.tenantId, key: options.idempotencyKey, fingerprint: request.fingerprint } }
        : {}),
    });
    span.setAttribute('rewind.event_count', appended.duplicate ? 0 : decision.events.length);
    if (appended.duplicate) return stream.replayed(appended);
    const stored: StoredEvent<E>[] = decision.events.map((event, i) => ({ ...event, streamId, streamVersion: appended.firstVersion + i, globalPosition: 0 }));
    const result = await stream.committed(streamId, state, stored, decision.context);
    stream.onCommitted?.(request, stored);
    return result;
  }

  private stamp<E extends EventBody>(
    decided: readonly DecidedEvent<E>[],
    request: CommandRequest,
    commandId: string,
    occurredAt: string,
    traceparent: string | undefined,
  ): NewEvent<E>[] {
    const { caller, options, sessionId } = request;
    return decided.map((event) => ({
      eventId: this.newId(),
      ...event,
      metadata: {
        tenantId: caller.tenantId,
        sessionId,
        commandId,
        causationId: options.causationId ?? null,
        correlationId: options.correlationId ?? commandId,
        actor: caller.actor,
        occurredAt,
        schemaVersion: EVENT_SCHEMA_VERSION,
        ...(traceparent !== undefined ? { traceparent } : {}),
      },
    }));
  }
}

/**
 * The command span as a W3C traceparent, kept in each event's metadata so that the relay's
 * publish continues the write's trace; only for a sampled trace (an unsampled one is never
 * exported, and the bytes are stored with every event).
 */
function sampledTraceparent(span: Span): string | undefined {
  const { traceId, spanId, traceFlags } = span.spanContext();
  if ((traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
  return `00-${traceId}-${spanId}-01`;
}
