import type { JsonValue, SessionState } from '@rewind/domain';

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
    thoughts: state.path.thoughts,
    proposals: state.path.proposals,
    checkpoints: state.checkpoints,
  } as unknown as JsonValue;
}

/** A timeline node's one-line summary: the first telling field of its event's data. */
export function summarizeEventData(data: unknown): string | null {
  if (data === null || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  const text = d.content ?? d.tool ?? d.key ?? d.name ?? d.title ?? d.label ?? null;
  if (typeof text !== 'string') return null;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
