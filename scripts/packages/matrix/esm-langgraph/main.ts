// ESM TypeScript (nodenext) with LangGraph: the in-process saver (@rewind/langgraph on
// @rewind/embedded) and the HTTP saver (@rewind/langgraph/http on @rewind/client), each passed
// to LangGraph's own `compile({ checkpointer })`, which must type-check against LangGraph's ESM typings.
import { createRewindClient } from '@rewind/client';
import { Rewind } from '@rewind/embedded';
import { RewindCheckpointSaver } from '@rewind/langgraph';
import { RewindHttpCheckpointSaver } from '@rewind/langgraph/http';
import { clientScenario } from './client-scenario.js';
import { embeddedScenario } from './embedded-scenario.js';
import { startHotel } from './hotel.js';
import { bookingGraph, rollBackTheBooking } from './langgraph-scenario.js';

console.log(await embeddedScenario());

const cancelled: string[] = [];
const rewind = Rewind.inMemory();
rewind.tool('book_hotel', {
  run: (input: { city: string }) => ({ bookingId: `B-${input.city}` }),
  undo: ({ output }) => void cancelled.push(output!.bookingId),
});
const saver = new RewindCheckpointSaver(rewind);
const inProcess = bookingGraph(async (config) => {
  const booking = await (await saver.session(config)).call<{ city: string }, { bookingId: string }>('book_hotel', { city: 'Porto' });
  return booking.bookingId;
}).compile({ checkpointer: saver });
console.log(await rollBackTheBooking(inProcess, 'in-process-trip', (config) => saver.rollbackTo(config), cancelled));
await rewind.close();

const hotel = await startHotel();
try {
  const client = createRewindClient({ baseUrl: process.env.REWIND_URL!, apiKey: process.env.REWIND_API_KEY! });
  const run = Date.now().toString(36);
  console.log(await clientScenario(client, hotel, `esm-${run}`));
  const httpSaver = new RewindHttpCheckpointSaver(client);
  const overHttp = bookingGraph(async (config) => {
    const sessionId = await httpSaver.thread(config);
    const compensation = { channel: 'http' as const, target: `${hotel.url}/bookings/{{output.bookingId}}/cancel` };
    await client.startToolCall(sessionId, {
      toolCallId: 'graph-h1',
      tool: 'book_hotel',
      input: { city: 'Faro' },
      effect: { kind: 'compensable', compensation },
    });
    await client.succeedToolCall(sessionId, 'graph-h1', { bookingId: 'B-Faro' });
    return 'B-Faro';
  }).compile({ checkpointer: httpSaver });
  console.log(await rollBackTheBooking(overHttp, `esm-graph-${run}`, (config) => httpSaver.rollbackTo(config), hotel.cancelled));
} finally {
  hotel.close();
}
