/* global process, console */
// Runs the Vite bundle under Node: the stand-in hotel service here, the app in dist/app.js.
import { createServer } from 'node:http';
import { run } from './dist/app.js';

const cancelled = [];
const server = createServer((request, response) => {
  const match = /^\/bookings\/([^/]+)\/cancel$/.exec(request.url ?? '');
  if (request.method === 'POST' && match) cancelled.push(match[1]);
  response.end('{}');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
try {
  const hotel = { url: `http://127.0.0.1:${server.address().port}`, cancelled };
  console.log(await run({ baseUrl: process.env.REWIND_URL, apiKey: process.env.REWIND_API_KEY, hotel }));
} finally {
  server.close();
}
