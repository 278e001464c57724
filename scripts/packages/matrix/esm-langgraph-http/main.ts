// ESM TypeScript (nodenext): the HTTP saver alone, as an agent in another process than Rewind
// installs it (@rewind/langgraph/http, @rewind/client and LangGraph; no driver, no embedding runtime).
import { createRewindClient } from '@rewind/client';
import { RewindHttpCheckpointSaver } from '@rewind/langgraph/http';
import { clientScenario } from './client-scenario.js';
import { startHotel } from './hotel.js';
import { bookingGraph, rollBackTheBooking } from './langgraph-scenario.js';

// An adapter used without its driver (an optional peer): the error names the package to install.
const adapter = '@rewind/event-store/postgres';
const missing = await import(adapter).then(
  () => 'loaded',
  (error: Error) => error.message,
);
if (!missing.includes("'pg'")) throw new Error(`${adapter} without pg: ${missing}`);
console.log(`adapter without its driver: ${missing.split('\n')[0]}`);

const hotel = await startHotel();
try {
  const client = createRewindClient({ baseUrl: process.env.REWIND_URL!, apiKey: process.env.REWIND_API_KEY! });
  const run = Date.now().toString(36);
  console.log(await clientScenario(client, hotel, `esm-http-${run}`));
  const saver = new RewindHttpCheckpointSaver(client);
  const graph = bookingGraph(async (config) => {
    const sessionId = await saver.thread(config);
    const compensation = { channel: 'http' as const, target: `${hotel.url}/bookings/{{output.bookingId}}/cancel` };
    await client.startToolCall(sessionId, {
      toolCallId: 'graph-h1',
      tool: 'book_hotel',
      input: { city: 'Faro' },
      effect: { kind: 'compensable', compensation },
    });
    await client.succeedToolCall(sessionId, 'graph-h1', { bookingId: 'B-Faro' });
    return 'B-Faro';
  }).compile({ checkpointer: saver });
  console.log(await rollBackTheBooking(graph, `esm-http-graph-${run}`, (config) => saver.rollbackTo(config), hotel.cancelled));
} finally {
  hotel.close();
}
