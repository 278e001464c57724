import type { JsonValue } from './json';
import type { PathState } from './state';

export type ContextItem =
  | { kind: 'message'; role: 'user' | 'agent'; content: string; turnId: string; version: number; interrupted: boolean }
  | {
      kind: 'tool_result';
      toolCallId: string;
      tool: string;
      input: JsonValue;
      output: JsonValue | null;
      error: string | null;
      turnId: string | null;
      version: number;
    }
  | { kind: 'thought'; content: string; steps: string[]; turnId: string | null; version: number };

export interface ContextWindowOptions {
  /** Keep only the newest N turns (items outside any turn are always kept). */
  maxTurns?: number;
  /** Drop the oldest items until the text fits in this many characters. */
  maxChars?: number;
  /**
   * Add the agent's recorded thoughts. Off by default: reasoning is for people debugging the
   * agent, and fed back to the model it would steer the next answer by stale guesses.
   */
  includeThoughts?: boolean;
}

export interface ContextWindow {
  items: ContextItem[];
  /** How many items were left out to fit the budget. */
  omitted: number;
  /** Tool calls left out because they never finished (crash, interrupt). */
  strippedToolCalls: string[];
}

function size(item: ContextItem): number {
  if (item.kind === 'message') return item.content.length;
  if (item.kind === 'thought') return item.content.length + item.steps.reduce((sum, s) => sum + s.length, 0);
  return JSON.stringify([item.input, item.output, item.error]).length;
}

/**
 * What an LLM should see (seed 003): only the head's path (rolled-back steps are not in
 * it), interrupted turns reduced to what was visible, unfinished tool calls stripped,
 * completed results kept, oldest dropped first to fit the budget. The agent's thoughts only
 * when asked for (`includeThoughts`).
 */
export function buildContextWindow(path: PathState, options: ContextWindowOptions = {}): ContextWindow {
  const keptTurns = options.maxTurns === undefined ? path.turns : path.turns.slice(Math.max(0, path.turns.length - options.maxTurns));
  const keptTurnIds = new Set(keptTurns.map((t) => t.turnId));
  const allTurnIds = new Set(path.turns.map((t) => t.turnId));
  const inWindow = (turnId: string | null) => turnId === null || !allTurnIds.has(turnId) || keptTurnIds.has(turnId);

  const items: ContextItem[] = [];
  for (const turn of keptTurns) {
    for (const message of turn.messages) {
      if (message.content.length === 0) continue;
      items.push({
        kind: 'message',
        role: message.role,
        content: message.content,
        turnId: turn.turnId,
        version: message.version,
        interrupted: message.partial,
      });
    }
  }
  const strippedToolCalls: string[] = [];
  for (const call of Object.values(path.toolCalls)) {
    if (call.status === 'started') {
      strippedToolCalls.push(call.toolCallId);
      continue;
    }
    if (!inWindow(call.turnId)) continue;
    items.push({
      kind: 'tool_result',
      toolCallId: call.toolCallId,
      tool: call.tool,
      input: call.input,
      output: call.output,
      error: call.error,
      turnId: call.turnId,
      version: call.finishedVersion ?? call.startedVersion,
    });
  }
  if (options.includeThoughts === true) {
    for (const thought of path.thoughts) {
      if (!inWindow(thought.turnId)) continue;
      items.push({ kind: 'thought', content: thought.content, steps: thought.steps, turnId: thought.turnId, version: thought.version });
    }
  }
  items.sort((a, b) => a.version - b.version);

  let omitted = 0;
  if (options.maxChars !== undefined) {
    let total = items.reduce((sum, item) => sum + size(item), 0);
    while (items.length > 0 && total > options.maxChars) {
      total -= size(items.shift()!);
      omitted++;
    }
  }
  return { items, omitted, strippedToolCalls };
}
