import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenApiResponseValidator } from './openapi-validator';

/**
 * A proxy in front of a live API that checks every answer against docs/openapi.json with no
 * undeclared property (what strict generated clients need), for scripts/openapi-clients/run.sh:
 *
 *   node dist/test/support/validating-proxy.js <upstream url> <report file>
 *
 * Prints the port it listens on (127.0.0.1), forwards every request unchanged, and appends one
 * line per answer that does not match the document to the report file (created empty), which the
 * script fails on. Streams (text/event-stream) pass through unchecked.
 */
function main(): void {
  const [upstream, report] = process.argv.slice(2);
  if (!upstream || !report) {
    console.error('usage: validating-proxy <upstream url, e.g. http://127.0.0.1:3000> <report file>');
    process.exit(2);
  }
  const target = new URL(upstream);
  const validator = new OpenApiResponseValidator(undefined, { refuseUndeclared: true });
  writeFileSync(report, '');
  let checked = 0;

  const server = createServer((incoming, outgoing) => {
    const forwarded = request(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: target.host } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        if (/event-stream/.test(answer.headers['content-type'] ?? '')) return void answer.pipe(outgoing);
        void readAll(answer).then((body) => {
          outgoing.end(body);
          checked++;
          const mismatch = validator.check(
            incoming.method ?? 'GET',
            incoming.url ?? '/',
            answer.statusCode ?? 0,
            answer.headers['content-type'] ?? null,
            parse(body),
          );
          if (mismatch) appendFileSync(report, `${mismatch}\n`);
        });
      },
    );
    forwarded.on('error', (error) => {
      appendFileSync(report, `${incoming.method} ${incoming.url}: the upstream did not answer (${error.message})\n`);
      outgoing.writeHead(502).end();
    });
    incoming.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
  process.on('SIGTERM', () => {
    console.error(`validating-proxy: ${checked} answers checked against the OpenAPI document`);
    server.close();
    process.exit(0);
  });
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function parse(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

main();
