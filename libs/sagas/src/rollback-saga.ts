import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  DEFAULT_RETRY_POLICY,
  DomainError,
  fillCompensation,
  needsOperatorReason,
  unfillableRefs,
  type RecordCompensationOutcome,
  type RollbackRecord,
} from '@rewind/domain';
import { CompleteRollbackCommand, RecordCompensationOutcomeCommand, sessionIdFromStream, type Caller, type SessionService } from '@rewind/engine';
import type { EventStore } from '@rewind/event-store';
import type { CheckpointStore } from '@rewind/messaging';
import type { CompensationChannel, CompensationRequest, CompensationResult } from './compensation-channel';
import { nextDelay } from './retry-policy';

export interface RollbackSagaOptions {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  log?: (message: string) => void;
}

/** Spans of the saga (no-ops unless tracing is on): one per rollback run, one per compensation attempt. */
const tracer = trace.getTracer('rewind');

/** Where the restart scan may start (see resumeAll). */
export const SAGA_CHECKPOINT = 'saga:rollbacks';

/** The rollback id carries its session, so `GET /v1/rollbacks/:id` needs no index. */
export function sessionOfRollback(rollbackId: string): string | null {
  const cut = rollbackId.lastIndexOf('~');
  return cut > 0 ? rollbackId.slice(0, cut) : null;
}

/**
 * Carries out rollbacks: compensates each planned effect newest first, with retries, and
 * records every attempt and outcome as events, then completes the rollback. All progress
 * is in the session stream, so a process killed midway resumes where it stopped; the
 * compensation's idempotency key is the same on every attempt, so no effect is undone twice.
 */
export class RollbackSaga {
  private readonly running = new Map<string, Promise<RollbackRecord | null>>();
  private readonly channels: Map<string, CompensationChannel>;
  private readonly sleep: (ms: number) => Promise<void>;
  private stopped = false;

  constructor(
    private readonly sessions: SessionService,
    channels: CompensationChannel[],
    private readonly options: RollbackSagaOptions = {},
  ) {
    this.channels = new Map(channels.map((c) => [c.name, c]));
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Starts (or joins) the run of one rollback; resolves with its record when it stops. */
  run(tenantId: string, sessionId: string, rollbackId: string): Promise<RollbackRecord | null> {
    const key = `${tenantId}\u0000${rollbackId}`;
    const existing = this.running.get(key);
    if (existing) return existing;
    // A child of whatever started it (the request or command that asked for the rollback), so one trace shows both.
    const run = tracer
      .startActiveSpan(
        'rewind.saga.rollback',
        { attributes: { 'rewind.tenant_id': tenantId, 'rewind.session_id': sessionId, 'rewind.rollback_id': rollbackId } },
        (span) =>
          this.execute({ tenantId, actor: 'saga' }, sessionId, rollbackId).then(
            (record) => {
              span.setAttribute('rewind.rollback_status', record?.status ?? 'stopped');
              span.end();
              return record;
            },
            (error: unknown) => {
              span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
              span.end();
              throw error;
            },
          ),
      )
      .finally(() => this.running.delete(key));
    this.running.set(key, run);
    return run;
  }

  /** Runs in the background; failures are logged, never thrown at the request that caused them. */
  kick(tenantId: string, sessionId: string, rollbackId: string): void {
    this.run(tenantId, sessionId, rollbackId).catch((error) =>
      this.options.log?.(`rollback ${rollbackId} stopped on an error and will resume on the next start: ${(error as Error).message}`),
    );
  }

  /**
   * After a restart: finds rollbacks still in progress in the global log and resumes them.
   * With a checkpoint store the scan starts where every earlier rollback was already
   * finished (or needed attention), so start-up does not read the whole log each time.
   */
  async resumeAll(store: EventStore, checkpoints?: Pick<CheckpointStore, 'load' | 'save'>): Promise<number> {
    const from = (await checkpoints?.load(SAGA_CHECKPOINT)) ?? 0;
    const candidates = new Map<string, { tenantId: string; sessionId: string; rollbackId: string; position: number }>();
    let scanned = from;
    for (let after = from; ; ) {
      const page = await store.readAll({ after, limit: 1000 });
      if (page.length === 0) break;
      for (const event of page) {
        if (event.type === 'RollbackRequested' || event.type === 'CompensationRetryRequested' || event.type === 'CompensationResolved') {
          const rollbackId = (event.data as { rollbackId: string }).rollbackId;
          const earlier = candidates.get(rollbackId);
          candidates.set(rollbackId, {
            tenantId: event.metadata.tenantId,
            sessionId: sessionIdFromStream(event.streamId),
            rollbackId,
            position: earlier?.position ?? event.globalPosition,
          });
        }
      }
      after = scanned = page[page.length - 1]!.globalPosition;
    }
    let resumed = 0;
    let oldestOpen = Number.POSITIVE_INFINITY;
    for (const c of candidates.values()) {
      const status = (await this.sessions.getState({ tenantId: c.tenantId, actor: 'saga' }, c.sessionId)).rollbacks[c.rollbackId]?.status;
      if (status === 'in_progress') {
        resumed++;
        this.kick(c.tenantId, c.sessionId, c.rollbackId);
      }
      // A rollback that needs attention can be retried later: keep it in the next scan.
      if (status === 'in_progress' || status === 'needs_attention') oldestOpen = Math.min(oldestOpen, c.position);
    }
    await checkpoints?.save(SAGA_CHECKPOINT, Number.isFinite(oldestOpen) ? Math.max(from, oldestOpen - 1) : scanned);
    return resumed;
  }

  get runningCount(): number {
    return this.running.size;
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.drain();
  }

  private async execute(caller: Caller, sessionId: string, rollbackId: string): Promise<RollbackRecord | null> {
    for (;;) {
      if (this.stopped) return null;
      const state = await this.sessions.getState(caller, sessionId);
      const rollback = state.rollbacks[rollbackId];
      if (!rollback || rollback.status !== 'in_progress') return rollback ?? null;
      const causation = { causationId: rollbackId, correlationId: rollbackId };
      const next = rollback.plan.find((item) => item.action === 'compensate' && state.effectOutcomes[item.startedVersion]?.status === 'pending');
      if (!next) {
        await this.write(
          new CompleteRollbackCommand(asSaga(caller), sessionId, rollbackId, { ...causation, idempotencyKey: `${rollbackId}:complete:${state.version}` }),
        );
        continue;
      }
      const call = state.path.toolCalls[next.toolCallId];
      const spec = next.effect.compensation;
      const attempt = (state.effectOutcomes[next.startedVersion]?.attempts ?? 0) + 1;
      const policy = next.effect.retry ?? DEFAULT_RETRY_POLICY;
      let result: CompensationResult;
      const channel = spec ? this.channels.get(spec.channel) : undefined;
      const unfillable = spec && call ? unfillableRefs(spec, call) : [];
      if (!spec || !call) {
        result = { status: 'failed', retryable: false, error: 'the call has no compensation recorded: undo it by hand, then resolve it' };
      } else if (unfillable.length > 0) {
        // Never send a request with a hole in it (e.g. /bookings/null/cancel): an operator decides.
        result = { status: 'failed', retryable: false, error: needsOperatorReason(call, unfillable) };
      } else if (!channel) {
        result = { status: 'failed', retryable: false, error: `no "${spec.channel}" compensation channel is configured in this process` };
      } else {
        const filled = fillCompensation(spec, { input: call.input, output: call.output });
        result = await this.compensate(channel, next.tool, next.toolCallId, attempt, {
          idempotencyKey: `rewind:${rollbackId}:${next.toolCallId}:${next.startedVersion}`,
          tenantId: caller.tenantId,
          sessionId,
          rollbackId,
          toolCallId: next.toolCallId,
          tool: next.tool,
          target: filled.target,
          payload: filled.payload,
          timeoutMs: policy.timeoutMs,
          ...(spec.replyTopic ? { replyTopic: spec.replyTopic } : {}),
        });
      }
      const recordKey = `${rollbackId}:${next.startedVersion}:${attempt}`;
      if (result.status === 'applied') {
        await this.record(caller, sessionId, rollbackId, next.startedVersion, { status: 'applied', attempts: attempt, response: result.response }, recordKey);
      } else if (!result.retryable || attempt >= policy.maxAttempts) {
        const why = result.retryable ? `gave up after ${attempt} attempts: ${result.error}` : result.error;
        await this.record(caller, sessionId, rollbackId, next.startedVersion, { status: 'failed', attempts: attempt, error: why }, recordKey);
        this.options.log?.(
          `rollback ${rollbackId}: compensating ${next.tool} call "${next.toolCallId}" failed (${why}); the session needs attention: retry or resolve it via /v1/rollbacks/${rollbackId}`,
        );
      } else {
        const delay = nextDelay(policy, attempt, result.retryAfterMs, this.options.random);
        await this.record(
          caller,
          sessionId,
          rollbackId,
          next.startedVersion,
          { status: 'attempt_failed', attempt, error: result.error, retryInMs: delay },
          recordKey,
        );
        await this.sleep(delay);
      }
    }
  }

  /** One attempt, in its span: the channel's own work (an HTTP call, a Kafka message) nests under it. */
  private compensate(
    channel: CompensationChannel,
    tool: string,
    toolCallId: string,
    attempt: number,
    request: CompensationRequest,
  ): Promise<CompensationResult> {
    const attributes = {
      'rewind.tool': tool,
      'rewind.tool_call_id': toolCallId,
      'rewind.compensation.channel': channel.name,
      'rewind.compensation.attempt': attempt,
    };
    return tracer.startActiveSpan('rewind.saga.compensation', { attributes }, async (span) => {
      try {
        const result = await channel.send(request);
        span.setAttribute('rewind.compensation.status', result.status);
        if (result.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
        return result;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  private async record(
    caller: Caller,
    sessionId: string,
    rollbackId: string,
    startedVersion: number,
    outcome: RecordCompensationOutcome['outcome'],
    key: string,
  ) {
    await this.write(
      new RecordCompensationOutcomeCommand(asSaga(caller), sessionId, rollbackId, startedVersion, outcome, {
        idempotencyKey: key,
        causationId: rollbackId,
        correlationId: rollbackId,
      }),
    );
  }

  /** Through the commands' own handlers, as the saga: the only caller whose records they accept. */
  private async write(command: CompleteRollbackCommand | RecordCompensationOutcomeCommand) {
    try {
      await this.sessions.dispatch(command);
    } catch (error) {
      // Another run (or an operator) got there first: the loop re-reads the state.
      if (!(error instanceof DomainError && error.kind === 'conflict')) throw error;
    }
  }
}

/** The saga's records are accepted from the `saga` scope only. */
function asSaga(caller: Caller): Caller {
  return { ...caller, scope: 'saga' };
}
