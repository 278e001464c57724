import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { MessagesAnnotation } from '@langchain/langgraph';

/**
 * A deterministic agent (no model needed): "book X" makes it call the booking tool; the
 * tool's answer makes it confirm. The graph, its tool node and the checkpointer are LangGraph's own.
 */
export function agent(state: typeof MessagesAnnotation.State): { messages: BaseMessage[] } {
  const last = state.messages[state.messages.length - 1]!;
  if (last instanceof ToolMessage) return { messages: [new AIMessage(`Done: ${String(last.content)}`)] };
  const hotel = /book (\w+)/.exec(String(last.content))?.[1];
  if (!hotel) return { messages: [new AIMessage('How can I help?')] };
  return { messages: [new AIMessage({ content: '', tool_calls: [{ id: `call-${hotel}`, name: 'book_hotel', args: { hotel }, type: 'tool_call' }] })] };
}
