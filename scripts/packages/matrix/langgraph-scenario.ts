// Shared by the LangGraph projects: a one-node graph whose node books a hotel through the
// thread's Rewind session; rolling the thread back to the checkpoint before the node cancels
// the booking.
import { Annotation, END, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { expectEqual } from './client-scenario.js';

const BookingState = Annotation.Root({
  bookings: Annotation<string[]>({ reducer: (all, added) => [...all, ...added], default: () => [] }),
});

/** The graph, to compile with a checkpointer (`compile({ checkpointer })` is what the matrix type-checks). */
export function bookingGraph(book: (config: LangGraphRunnableConfig) => Promise<string>) {
  return new StateGraph(BookingState)
    .addNode('book', async (_state, config) => ({ bookings: [await book(config)] }))
    .addEdge(START, 'book')
    .addEdge('book', END);
}

type BookingGraph = ReturnType<ReturnType<typeof bookingGraph>['compile']>;

export async function rollBackTheBooking(
  graph: BookingGraph,
  threadId: string,
  rollbackTo: (config: LangGraphRunnableConfig) => Promise<unknown>,
  cancelled: string[],
): Promise<string> {
  const config = { configurable: { thread_id: threadId } };
  const result = await graph.invoke({ bookings: [] }, { ...config, durability: 'sync' });
  expectEqual(result.bookings.length, 1, "the graph's bookings");
  const history = [];
  for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
  const beforeBooking = history.find((snapshot) => snapshot.next.includes('book'));
  if (!beforeBooking) throw new Error(`no checkpoint before the booking node in ${history.length} checkpoints`);
  const before = cancelled.length;
  await rollbackTo(beforeBooking.config);
  expectEqual(cancelled.slice(before), result.bookings, 'bookings cancelled by the rollback of the thread');
  // Which checkpoint getState() answers after a rollback is issue 23's item 4 (the LangGraph
  // savers), checked by the savers' own suites: this checks the packages, and the compensation.
  return `langgraph: thread ${threadId} rolled back to the checkpoint before its booking, cancelled ${result.bookings.join(', ')}`;
}
