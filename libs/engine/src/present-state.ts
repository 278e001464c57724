import { redoBlockedBy, type SessionState } from '@rewind/domain';

/** A session as clients see it: HTTP, Kafka results, the CLI and the library all answer this shape. */
export type SessionView = ReturnType<typeof presentState>;

/** The public shape of a session state (internal indexes such as the parent array stay inside). */
export function presentState(state: SessionState) {
  const blockedBy = redoBlockedBy(state);
  return {
    sessionId: state.sessionId,
    title: state.title,
    metadata: state.metadata,
    startedAt: state.startedAt,
    version: state.version,
    head: state.head,
    status: state.status,
    activeRollbackId: state.activeRollbackId,
    // Redo is refused when it would walk back onto effects a rollback undid: say so, and why.
    canRedo: state.redoStack.length > 0 && blockedBy === null,
    redoBlockedBy: blockedBy,
    conversation: { turns: state.path.turns },
    memory: state.path.memory,
    contextVars: state.path.contextVars,
    tasks: state.path.tasks,
    toolCalls: Object.values(state.path.toolCalls).map((call) => ({
      ...call,
      compensation: state.effectOutcomes[call.startedVersion]?.status ?? null,
    })),
    thoughts: state.path.thoughts,
    proposals: Object.values(state.path.proposals),
    checkpoints: Object.values(state.checkpoints),
  };
}

/** What a windowed state read left out (`GET …/state?turns=last:N`). */
export interface StateWindow {
  /** The N asked for (at least 1). */
  lastTurns: number;
  /** Turns and tool calls on the state's path; the answer holds the last N turns and the calls started during them. */
  totalTurns: number;
  totalToolCalls: number;
  /** The stream version the window starts at: the first kept turn's, or 1 when every turn is kept. */
  fromVersion: number;
}

/**
 * A session view with only its last `lastTurns` (≥ 1) turns and the tool calls started since the
 * first of them: what an agent or a timeline slider shows, at a size that does not grow with the
 * session. Everything else (memory, context variables, tasks, checkpoints, head, status) is whole.
 */
export function windowOfTurns(view: SessionView, lastTurns: number): SessionView & { window: StateWindow } {
  const all = view.conversation.turns;
  const fromVersion = lastTurns >= all.length ? 1 : all[all.length - lastTurns]!.startedVersion;
  return {
    ...view,
    conversation: { turns: lastTurns >= all.length ? all : all.slice(-lastTurns) },
    toolCalls: view.toolCalls.filter((call) => call.startedVersion >= fromVersion),
    thoughts: view.thoughts.filter((thought) => thought.version >= fromVersion),
    window: { lastTurns, totalTurns: all.length, totalToolCalls: view.toolCalls.length, fromVersion },
  };
}
