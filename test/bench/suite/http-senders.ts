/** Minimal JSON-over-HTTP clients for the benchmark: node:http with a keep-alive Agent, or fetch (undici, keep-alive). */
import { Agent, request as httpRequest } from 'node:http';

export type Send = (method: string, path: string, body: unknown) => Promise<{ status: number; text: string }>;

export function httpSender(spec: { baseUrl: string; apiKey: string }, maxSockets = 10): Send {
  const url = new URL(spec.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets });
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      // A GET (body undefined) sends no body and no content headers, as a client's read does.
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = httpRequest(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: {
            authorization: `Bearer ${spec.apiKey}`,
            ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
}

export function fetchSender(spec: { baseUrl: string; apiKey: string }): Send {
  return async (method, path, body) => {
    const response = await fetch(spec.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${spec.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, text: await response.text() };
  };
}
