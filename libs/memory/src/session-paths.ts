import { ancestry, type JsonValue, type SessionState } from '@rewind/domain';

/** What recall needs to know about one session at one point of its timeline. */
export interface SessionPath {
  /** Versions on the ancestry of the head (or of `at`): only items at these versions are recalled. */
  versions: ReadonlySet<number>;
  /** The memory store on that path: a memory write whose key was since erased or rewritten is not recalled. */
  memory: Readonly<Record<string, JsonValue>>;
  /** The newest messages on the path, oldest first (what a follow-up question refers to). */
  recentMessages: { role: 'user' | 'agent'; content: string }[];
}

/**
 * The port recall uses to see sessions' timelines (the engine behind it in the apps).
 * `pathOf` throws the engine's not-found error for a session the tenant does not have.
 */
export interface SessionPaths {
  pathOf(tenantId: string, sessionId: string, at?: number): Promise<SessionPath>;
}

/** The path view of a session state (the fold of its head's ancestry). */
export function sessionPathOf(state: SessionState, recent = 8): SessionPath {
  const messages = state.path.turns.flatMap((turn) => turn.messages.filter((m) => m.content.length > 0).map((m) => ({ role: m.role, content: m.content })));
  return {
    versions: new Set(ancestry(state.timeline, state.head)),
    memory: state.path.memory,
    recentMessages: messages.slice(Math.max(0, messages.length - recent)),
  };
}
