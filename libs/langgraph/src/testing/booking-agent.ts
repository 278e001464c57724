import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';

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

/**
 * The booking agent's graph: the agent, a tool node with `book_hotel` (whose effect `book` performs
 * and returns the booking id), and the loop between them, checkpointed by `checkpointer`.
 */
export function bookingGraph(book: (hotel: string, config: RunnableConfig) => Promise<string>, checkpointer: BaseCheckpointSaver) {
  const bookHotel = tool(async ({ hotel }: { hotel: string }, config: RunnableConfig) => book(hotel, config), {
    name: 'book_hotel',
    description: 'Books a hotel room',
    schema: z.object({ hotel: z.string() }),
  });
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', agent)
    .addNode('tools', new ToolNode([bookHotel]))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s) => ((s.messages[s.messages.length - 1] as AIMessage).tool_calls?.length ? 'tools' : END))
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
}
