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

/**
 * The LangGraph node a step was written by, when the writer says so: Rewind's LangGraph saver
 * records each task's pending writes as the context variable `langgraph.writes/<ns>` (libs/langgraph
 * thread-index.ts), with LangGraph's task path, `~__pregel_pull, <node>` for a node's own task.
 */
export function langGraphNodeOf(data: unknown): string | null {
  if (data === null || typeof data !== 'object') return null;
  const { name, value } = data as { name?: unknown; value?: unknown };
  if (typeof name !== 'string' || !name.startsWith('langgraph.writes/') || value === null || typeof value !== 'object') return null;
  const path = (value as { path?: unknown }).path;
  const node = typeof path === 'string' ? /^~__pregel_pull, ([^,~]+)$/.exec(path)?.[1] : undefined;
  return node ?? null;
}
