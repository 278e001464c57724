// The stand-in hotel service the server compensates bookings on (POST /bookings/<id>/cancel).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hotel } from './client-scenario.js';

export async function startHotel(): Promise<Hotel & { close: () => void }> {
  const cancelled: string[] = [];
  const server = createServer((request, response) => {
    const match = /^\/bookings\/([^/]+)\/cancel$/.exec(request.url ?? '');
    if (request.method === 'POST' && match) cancelled.push(match[1]!);
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, cancelled, close: () => server.close() };
}
