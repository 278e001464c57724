import { connect } from 'node:net';

/**
 * One request as raw bytes over a fresh connection (what fetch and inject refuse to send):
 * the status (0 when no answer came) and the body. The request should say `Connection: close`.
 */
export function sendRaw(port: number, head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const headEnd = text.indexOf('\r\n\r\n');
      let body = headEnd < 0 ? '' : text.slice(headEnd + 4);
      // Chunked bodies: keep the JSON between the chunk sizes.
      if (/transfer-encoding: chunked/i.test(text.slice(0, headEnd))) body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
      resolve({ status, body });
    });
    // Not end(): a half-closed socket may make the server drop a slow answer.
    socket.write(Buffer.from(head, 'latin1'));
  });
}
