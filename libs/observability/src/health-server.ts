import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readiness } from './readiness';

export interface HealthServerOptions {
  port: number;
  host: string;
  ready(): Promise<Readiness>;
  /** Prometheus text exposition of this process. */
  metrics(): Promise<string>;
  metricsContentType: string;
}

export interface HealthServer {
  /** The port actually bound (differs from the option when it was 0). */
  readonly port: number;
  close(): Promise<void>;
}

const json = (status: number, body: unknown) => ({ status, type: 'application/json; charset=utf-8', body: JSON.stringify(body) });

/**
 * A small HTTP server for a process without an API (the worker): GET /health/live,
 * /health/ready and /metrics. Every other request gets the documented error shape.
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const answer = async (method: string | undefined, path: string) => {
    if (method !== 'GET' && method !== 'HEAD') {
      return json(405, { error: { code: 'method_not_allowed', message: `${method} is not served here: use GET.`, details: [] } });
    }
    if (path === '/health/live') return json(200, { status: 'ok' });
    if (path === '/health/ready' || path === '/health') {
      const readiness = await options.ready();
      return readiness.ready
        ? json(200, { status: 'ready', checks: readiness.checks })
        : json(503, {
            error: {
              code: 'not_ready',
              message: 'This process is not ready: see details.',
              details: readiness.checks.filter((c) => !c.ok).map((c) => ({ field: c.name, message: c.detail })),
            },
            checks: readiness.checks,
          });
    }
    if (path === '/metrics') return { status: 200, type: options.metricsContentType, body: await options.metrics() };
    return json(404, { error: { code: 'not_found', message: `Nothing at ${path}: this server has /health/live, /health/ready and /metrics.`, details: [] } });
  };
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    answer(request.method, path)
      .catch((error: unknown) =>
        json(503, {
          error: { code: 'not_ready', message: `The check itself failed: ${error instanceof Error ? error.message : String(error)}.`, details: [] },
        }),
      )
      .then(
        (r) => {
          response.writeHead(r.status, { 'content-type': r.type, 'cache-control': 'no-store' });
          response.end(request.method === 'HEAD' ? undefined : r.body);
        },
        () => response.destroy(),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
