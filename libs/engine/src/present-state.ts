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
    checkpoints: Object.values(state.checkpoints),
  };
}
