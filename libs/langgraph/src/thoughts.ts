/** Reasoning found on a LangChain message, as a Rewind thought records it. */
export interface MessageReasoning {
  content: string;
  steps: string[];
}

/** Where the saver looks for the agent's thoughts: new AI messages of this channel (null: nowhere). */
export const DEFAULT_THOUGHTS_CHANNEL = 'messages';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' && value.trim().length > 0 ? value : null);

/** The message's type as LangChain names it ("ai", "human", …), for an instance or its plain form. */
function messageType(message: Record<string, unknown>): unknown {
  for (const method of ['getType', '_getType']) {
    const fn = message[method];
    if (typeof fn === 'function') {
      try {
        return (fn as () => unknown).call(message);
      } catch {
        return undefined;
      }
    }
  }
  return message.type;
}

/**
 * The reasoning an AI message carries, in the shapes LangChain's chat models give it:
 * `additional_kwargs.reasoning_content` (DeepSeek, Qwen and other OpenAI-compatible servers),
 * `additional_kwargs.reasoning.summary` (OpenAI's Responses API: one step per summary part),
 * and content blocks of type `thinking` (Anthropic) or `reasoning` (LangChain's standard
 * blocks). Null for any other message, and for an AI message without reasoning.
 */
export function reasoningOf(message: unknown): MessageReasoning | null {
  if (!isRecord(message) || messageType(message) !== 'ai') return null;
  const parts: string[] = [];
  const kwargs = isRecord(message.additional_kwargs) ? message.additional_kwargs : {};
  const direct = text(kwargs.reasoning_content);
  if (direct) parts.push(direct);
  const summary = isRecord(kwargs.reasoning) && Array.isArray(kwargs.reasoning.summary) ? kwargs.reasoning.summary : [];
  const steps = summary.map((part) => (isRecord(part) ? text(part.text) : null)).filter((s): s is string => s !== null);
  if (Array.isArray(message.content)) {
    for (const block of message.content) {
      if (!isRecord(block)) continue;
      const found = block.type === 'thinking' ? text(block.thinking) : block.type === 'reasoning' ? text(block.reasoning) : null;
      if (found) parts.push(found);
    }
  }
  if (parts.length === 0 && steps.length === 0) return null;
  return { content: parts.length > 0 ? parts.join('\n\n') : steps.join('\n'), steps };
}
