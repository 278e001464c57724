import { cloneState, invalid, type DecideContext, type PathState, type SessionEvent, type SessionState } from '@rewind/domain';
import { fingerprint } from '../../fingerprint';
import type { SessionRepository } from '../../session-repository';
import { sessionStreamId } from '../../stream-id';
import type { ToolRegistry } from '../../tool-registry';
import type { CommandPipeline, Decision, StampEvents } from '../command-pipeline';
import type { SessionCommitContext, SessionStream } from '../session-stream';
import type { Caller, WriteOptions, WriteResult } from '../write-request';

/** What every session command handler works with: the one pipeline and the session's lookups. */
export interface SessionWriteContext {
  readonly pipeline: CommandPipeline;
  readonly stream: SessionStream;
  readonly repository: SessionRepository;
  /** Registered tools: a call that does not declare its effect gets the tool's. */
  readonly tools: ToolRegistry | undefined;
  /** True when a rollback saga runs: head moves across effects start it instead of answering 409. */
  readonly compensationEnabled: boolean;
}

/** Decides on the loaded session state; `streamId` for the lookups a decision needs. */
export type DecideSession = (
  state: SessionState,
  stamp: StampEvents<SessionEvent>,
  streamId: string,
) => Decision<SessionCommitContext, SessionEvent> | Promise<Decision<SessionCommitContext, SessionEvent>>;

/**
 * Runs one command on a session through the pipeline. `print` is what identifies the
 * request for idempotent retries (canonical JSON + SHA-256, only computed under a key);
 * `commandType` names the command on its span (`RecordSteps` for a batch).
 * Not async (one promise fewer per write): a synchronous refusal still arrives as a rejection.
 */
export function writeSession(
  context: SessionWriteContext,
  caller: Caller,
  sessionId: string,
  options: WriteOptions,
  print: () => unknown,
  decide: DecideSession,
  commandType: string,
): Promise<WriteResult> {
  try {
    const request = {
      commandType,
      caller,
      streamId: sessionStreamId(caller.tenantId, sessionId),
      sessionId,
      options,
      fingerprint: options.idempotencyKey === undefined ? '' : fingerprint(print()),
    };
    return context.pipeline.handle(context.stream, request, (state, stamp) => decide(state, stamp, request.streamId));
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** The decider's context for one command: ids, the actor and, when looked up, a target path and tool effects. */
export function decideContext(context: SessionWriteContext, caller: Caller, lookups: Partial<DecideContext> = {}): DecideContext {
  return { newId: context.pipeline.newId, actor: caller.actor, compensationEnabled: context.compensationEnabled, ...lookups };
}

/** A path looked up before deciding, handed to the decider as its own copy. */
export function pathFrom(path: PathState): (version: number) => PathState {
  return () => cloneState(path);
}

/** The saga's own records: refused to anyone else, whichever door they come in by. */
export function assertSagaCaller(caller: Caller, type: string): void {
  if (caller.scope === 'saga') return;
  throw invalid('validation_failed', `A ${type} cannot be sent as a command on a session: only the rollback saga records it.`, [
    { field: 'type', message: `${type} is not accepted here` },
  ]);
}
