import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Logger } from '@rewind/config';
import {
  DEFAULT_RETRY_POLICY,
  DomainError,
  destinationProblems,
  fillCompensation,
  needsOperatorReason,
  unfillableRefs,
  type RecordCompensationOutcome,
  type RollbackRecord,
} from '@rewind/domain';
import { CompleteRollbackCommand, RecordCompensationOutcomeCommand, type Caller, type SessionService } from '@rewind/engine';
import type { CompensationChannel, CompensationRequest, CompensationResult } from './compensation-channel';
import type { RollbackLeases } from './leases/rollback-leases';
import { nextDelay } from './retry-policy';

export interface RollbackSagaOptions {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  logger?: Logger;
  /**
   * Several processes on one database: a rollback runs only where its lease is held, and stops
   * when the lease is lost (another process took it over). None: one process (SQLite, library).
   */
  leases?: RollbackLeases;
}

/** How often `follow` looks again at a rollback another process is carrying out, in ms. */
const FOLLOW_POLL_MS = 250;

/** Spans of the saga (no-ops unless tracing is on): one per rollback run, one per compensation attempt. */
const tracer = trace.getTracer('rewind');

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

  /**
   * Starts (or joins) the run of one rollback; resolves with its record when it stops, or
   * null when it stopped unfinished (the saga stopping, its lease lost, or another process
   * holding its lease: that process carries it out).
   */
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
          this.leased({ tenantId, actor: 'saga' }, sessionId, rollbackId).then(
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
    this.run(tenantId, sessionId, rollbackId).catch((error: unknown) =>
      this.options.logger?.warn(
        `rollback ${rollbackId} stopped on an error and will resume ${this.options.leases ? 'within seconds (a process takes it over)' : 'on the next start'}: ${(error as Error).message}`,
      ),
    );
  }

  /**
   * Runs the rollback here, or, while another process holds its lease, waits for that process
   * to finish it (taking it over if that process dies); resolves when it is no longer in
   * progress, or after `waitMs`.
   */
  async follow(tenantId: string, sessionId: string, rollbackId: string, waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      if ((await this.run(tenantId, sessionId, rollbackId)) !== null || this.stopped) return;
      if ((await this.statusOf(tenantId, sessionId, rollbackId)) !== 'in_progress') return;
      const left = deadline - Date.now();
      if (left <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(FOLLOW_POLL_MS, left)));
    }
  }

  /** True while this process is carrying the rollback out. */
  isRunning(tenantId: string, rollbackId: string): boolean {
    return this.running.has(`${tenantId}\u0000${rollbackId}`);
  }

  /** A rollback's status now, as the saga sees it (undefined: no such rollback). */
  async statusOf(tenantId: string, sessionId: string, rollbackId: string): Promise<RollbackRecord['status'] | undefined> {
    return (await this.sessions.getState({ tenantId, actor: 'saga' }, sessionId)).rollbacks[rollbackId]?.status;
  }

  get runningCount(): number {
    return this.running.size;
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  /** Stops after each run's step in progress; with leases, every lease is given up so that other processes go on at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.drain();
    await this.options.leases?.close();
  }

  /** With leases: under the rollback's lease, given up when the run stops (another process may then go on at once). */
  private async leased(caller: Caller, sessionId: string, rollbackId: string): Promise<RollbackRecord | null> {
    const leases = this.options.leases;
    if (!leases) return this.execute(caller, sessionId, rollbackId);
    const ref = { tenantId: caller.tenantId, rollbackId };
    if (!leases.holds(ref) && (await leases.take([ref])).length === 0) return null;
    try {
      return await this.execute(caller, sessionId, rollbackId);
    } finally {
      await leases
        .release(ref)
        .catch((error: unknown) =>
          this.options.logger?.warn(`rollback ${rollbackId}: could not give its lease up (${(error as Error).message}); it expires in ${leases.ttlMs} ms.`),
        );
    }
  }

  private async execute(caller: Caller, sessionId: string, rollbackId: string): Promise<RollbackRecord | null> {
    for (;;) {
      if (this.stopped) return null;
      // Lost (taken over after this process stalled or lost the database): the new holder re-reads the records and goes on.
      if (this.options.leases && !this.options.leases.holds({ tenantId: caller.tenantId, rollbackId })) return null;
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
      } else if (destinationProblems(spec).length > 0) {
        // Recorded before the egress policy existed: a destination a call's data could choose is never used.
        result = { status: 'failed', retryable: false, error: `the compensation's destination is refused: ${destinationProblems(spec)[0]!.message}` };
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
        this.options.logger?.warn(
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
