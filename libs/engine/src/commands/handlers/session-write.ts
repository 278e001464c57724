import { cloneState, HistoryNotLoaded, invalid, type DecideContext, type PathState, type SessionEvent, type SessionState } from '@rewind/domain';
import { fingerprint } from '../../fingerprint';
import type { SessionRepository } from '../../session-repository';
import { touchedBy, type Touched } from '../../snapshot-encoder';
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
    return context.pipeline.handle(context.stream, request, (state, stamp) =>
      decideInMemory(
        context.repository,
        state,
        () => namedBy(print()),
        () => decide(state, stamp, request.streamId),
      ),
    );
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

type SessionDecision = ReturnType<DecideSession>;

/**
 * How often a decision may find more sealed history missing before all of the state's is loaded.
 * Each retry loads only what one lookup found missing, and a request of several steps looks up
 * several things (a turn, its tool calls, the newest turn), each of which may have left the segment
 * cache since the last write: at 2 the fallback to everything (O(the session)) fired once the
 * sealed history of 32 busy sessions outgrew the cache, and a write cost 4× more by 6 000 turns
 * (3.4 segments read a turn instead of 0.27; the soak's last minutes at 14 % of minute 2).
 */
const HISTORY_RETRIES = 8;

/**
 * Decides with what the decision reads in memory. A state whose sealed history stays in its
 * snapshot segments (sealed-history.ts) reads a sealed turn or tool call from its segment: the
 * segments that may hold what the command names are loaded first (`prepare`), and a decision that
 * still reads one that is not in memory (a head move walks the timeline; a step without a turn id
 * lands on the newest turn) throws HistoryNotLoaded, which loads it and decides again: decide is
 * pure, so deciding twice is safe. A whole state (the common case) decides at once, with no await.
 */
function decideInMemory(repository: SessionRepository, state: SessionState, named: () => Touched, decide: () => SessionDecision): SessionDecision {
  const loading = repository.prepare(state, named);
  if (loading) return loading.then(() => decideLoading(repository, state, decide));
  try {
    const decided = decide();
    return decided instanceof Promise ? decided.catch((error: unknown) => loadAndDecide(repository, state, decide, error, 0)) : decided;
  } catch (error) {
    return loadAndDecide(repository, state, decide, error, 0);
  }
}

async function decideLoading(repository: SessionRepository, state: SessionState, decide: () => SessionDecision): Promise<Awaited<SessionDecision>> {
  try {
    return await decide();
  } catch (error) {
    return loadAndDecide(repository, state, decide, error, 0);
  }
}

async function loadAndDecide(
  repository: SessionRepository,
  state: SessionState,
  decide: () => SessionDecision,
  error: unknown,
  attempt: number,
): Promise<Awaited<SessionDecision>> {
  if (!(error instanceof HistoryNotLoaded)) throw error;
  await repository.loadHistory(state, attempt < HISTORY_RETRIES ? error.segmentIds : 'all');
  try {
    return await decide();
  } catch (next) {
    if (attempt > HISTORY_RETRIES) throw next;
    return loadAndDecide(repository, state, decide, next, attempt + 1);
  }
}

/** The turn and tool-call ids a request names (its command, or its steps): their segments are loaded before deciding. */
function namedBy(request: unknown): Touched {
  const { command, steps } = request as { command?: unknown; steps?: unknown };
  const commands = Array.isArray(steps) ? (steps as unknown[]) : command !== undefined ? [command] : [];
  return touchedBy(commands.map((data) => ({ data })));
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
