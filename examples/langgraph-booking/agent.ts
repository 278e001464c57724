/**
 * A LangGraph agent checkpointed on Rewind, with a booking tool that has an undo.
 * The "model" is a few lines of rules so that the example runs anywhere; swap in a chat model
 * node and nothing else changes. Run: npx vitest run test/examples
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { Rewind } from '@rewind/embedded';
import { RewindCheckpointSaver } from '@rewind/langgraph';

/** The hotel's system: what the tool books and its undo cancels. */
export class HotelDesk {
  readonly bookings = new Map<string, string>();
  private next = 1;
  book(hotel: string): string {
    const id = `H-${this.next++}`;
    this.bookings.set(id, hotel);
    return id;
  }
  cancel(id: string): void {
    this.bookings.delete(id);
  }
}

function agent(state: typeof MessagesAnnotation.State): { messages: BaseMessage[] } {
  const last = state.messages[state.messages.length - 1]!;
  if (last instanceof ToolMessage) return { messages: [new AIMessage(`Booked: ${String(last.content)}`)] };
  const hotel = /book (?:the )?(\w+)/i.exec(String(last.content))?.[1];
  if (!hotel) return { messages: [new AIMessage('Which hotel should I book?')] };
  return {
    messages: [new AIMessage({ content: '', tool_calls: [{ id: `book-${state.messages.length}`, name: 'book_hotel', args: { hotel }, type: 'tool_call' }] })],
  };
}

export async function main(dataDir: string, log: (line: string) => void = console.log): Promise<{ desk: HotelDesk; rewind: Rewind }> {
  const desk = new HotelDesk();
  const rewind = Rewind.open({ dataDir });
  rewind.tool<{ hotel: string }, { bookingId: string }>('book_hotel', {
    run: ({ hotel }) => ({ bookingId: desk.book(hotel) }),
    undo: ({ output }) => desk.cancel(output!.bookingId),
  });
  const saver = new RewindCheckpointSaver(rewind);
  const bookHotel = tool(
    async ({ hotel }: { hotel: string }, config: RunnableConfig) => {
      const { bookingId } = await (await saver.session(config)).call<{ hotel: string }, { bookingId: string }>('book_hotel', { hotel });
      return bookingId;
    },
    { name: 'book_hotel', description: 'Books a hotel room', schema: z.object({ hotel: z.string() }) },
  );
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', agent)
    .addNode('tools', new ToolNode([bookHotel]))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s) => ((s.messages[s.messages.length - 1] as AIMessage).tool_calls?.length ? 'tools' : END))
    .addEdge('tools', 'agent')
    .compile({ checkpointer: saver });

  const thread = { configurable: { thread_id: 'lisbon-trip' } };
  await graph.invoke({ messages: [new HumanMessage('Please book the Alfama')] }, thread);
  const beforeSecond = (await graph.getState(thread)).config;
  await graph.invoke({ messages: [new HumanMessage('Also book the Baixa')] }, thread);
  log(`bookings: ${[...desk.bookings.values()].join(', ')}`);

  await saver.rollbackTo(beforeSecond); // Rewind cancels the Baixa booking, LangGraph goes on from there
  log(`after rolling back: ${[...desk.bookings.values()].join(', ')}`);
  const messages = ((await graph.getState(thread)).values as { messages: BaseMessage[] }).messages;
  log(`last message: ${String(messages[messages.length - 1]!.content)}`);
  return { desk, rewind };
}
