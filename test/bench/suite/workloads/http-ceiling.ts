/**
 * The HTTP reference: requests/s of a server that does nothing but what every HTTP API must
 * (Fastify, the version Rewind's API runs on: route, parse the JSON body, answer a small JSON
 * 201), driven by W4's own load client (100 keep-alive connections, the same requests), on the
 * same machine. No API on this machine can answer one-event requests faster than this, so it
 * bounds W4's "1 event per request" figure the way the INSERT ceiling bounds the database.
 */
import Fastify from 'fastify';
import type { Row } from '../results';
import type { Sizes } from '../sizes';
import { runLoadClient } from './w4-throughput';

/**
 * The null server: a write (POST/PUT, any path) parses its JSON body and answers a small 201; a
 * read (GET, any path) answers `readAnswer` — the same document Rewind would send, so the two
 * serialise the same bytes. Listens on a free local port.
 */
export async function startNullServer(readAnswer: unknown = {}): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  let version = 0;
  const answer = async (_request: unknown, reply: { code(status: number): unknown }) => {
    reply.code(201);
    return { sessionId: 'null', version: ++version, head: version, eventIds: ['00000000-0000-4000-8000-000000000000'] };
  };
  app.post('/*', answer);
  app.put('/*', answer);
  app.get('/*', async () => readAnswer);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { baseUrl: `http://127.0.0.1:${port}`, close: () => app.close() };
}

export async function measureHttpCeiling(sizes: Sizes): Promise<Row> {
  const server = await startNullServer();
  try {
    const result = await runLoadClient({
      baseUrl: server.baseUrl,
      apiKey: 'null-server',
      sessions: sizes.concurrentSessions,
      steps: sizes.throughputSteps,
      warmup: sizes.throughputWarmup,
      prefix: 'null',
    });
    console.error(`  HTTP ceiling (null Fastify server): ${Math.round(result.requestsPerSecond)} requests/s, p50 ${result.latency.p50.toFixed(2)} ms`);
    return {
      workload: 'DB',
      key: 'DB.http',
      label: `HTTP requests/s of a null server (Fastify: route, parse the JSON body, answer 201), W4's load client with ${sizes.concurrentSessions} keep-alive connections`,
      system: 'http',
      store: 'none',
      path: 'http',
      throughput: result.requestsPerSecond,
      latency: result.latency,
      notes: ['no storage, no validation, no authentication: what HTTP alone costs on this machine with client and server sharing its cores'],
      extra: { requests: result.requests, clientCpuMs: result.clientCpuMs, elapsedMs: result.elapsedMs },
    };
  } finally {
    await server.close();
  }
}
