import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does to the next request it sees:
 * - `lose-answer`: forwards it (the server applies it), then answers 503 instead of the real answer;
 * - `drop-connection`: forwards it, then cuts the connection without answering;
 * - `too-many-requests`: does not forward it; answers 429 with Retry-After.
 */
export type Fault = 'lose-answer' | 'drop-connection' | 'too-many-requests';

export interface SeenRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  fault: Fault | null;
}

/**
 * A real HTTP proxy in front of the real server that injects the failures a network and a
 * busy server cause, so the SDK's retries are tested against what actually happens to a
 * write whose answer is lost.
 */
export class FaultyProxy {
  readonly seen: SeenRequest[] = [];
  private readonly faults: Fault[] = [];
  private server: Server | undefined;
  url = '';

  constructor(private readonly target: string) {}

  /** The next requests meet these faults, in order; later ones pass through. */
  inject(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const fault = this.faults.shift() ?? null;
    const key = request.headers['idempotency-key'];
    this.seen.push({ method: request.method!, path: request.url!, idempotencyKey: Array.isArray(key) ? key[0] : key, fault });
    if (fault === 'too-many-requests') {
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      response.end(JSON.stringify({ error: { code: 'too_many_requests', message: 'Slow down: retry after 1 s.', details: [] } }));
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name, value]) => typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)),
    ) as Record<string, string>;
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const answer = await fetch(this.target + request.url, { method: request.method!, headers, ...(body ? { body } : {}) });
    const text = await answer.text();
    if (fault === 'drop-connection') {
      request.socket.destroy();
      return;
    }
    if (fault === 'lose-answer') {
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
      response.end(JSON.stringify({ error: { code: 'store_unavailable', message: 'The answer was lost on the way.', details: [] } }));
      return;
    }
    response.writeHead(
      answer.status,
      Object.fromEntries([...answer.headers].filter(([name]) => !['content-length', 'transfer-encoding', 'connection'].includes(name))),
    );
    response.end(text);
  }
}
