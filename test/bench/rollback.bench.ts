/**
 * Rollback latency (issue 4): undo over 10 effectful calls, each compensated by a local
 * HTTP service, through the HTTP API. Usage: npm run build && node dist/test/bench/rollback.bench.js [--quick]
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@rewind/config';
import { createApp } from '@rewind/api';
import { TravelService } from '@rewind/demo';
import { httpClient } from '../support/http-client';
import { fmt, summarize } from './stats';

async function main(): Promise<void> {
  const runs = process.argv.includes('--quick') ? 30 : 200;
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-bench-rollback-'));
  const adminKey = randomBytes(16).toString('hex');
  const { app } = await createApp(loadConfig({ REWIND_DATA_DIR: dataDir, REWIND_ADMIN_KEY: adminKey, REWIND_LOG_LEVEL: 'error' }));
  await app.listen(0, '127.0.0.1');
  const http = httpClient(`http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`, adminKey);
  const travel = new TravelService();
  await travel.start();
  try {
    await http('PUT', '/v1/tools/book_hotels', {
      kind: 'reversible',
      compensation: { channel: 'http', target: `${travel.url}/hotels/{{output.bookingId}}/cancel` },
    });
    const samples: number[] = [];
    for (let run = 0; run < runs + 5; run++) {
      const id = `bench-${run}`;
      await http('POST', '/v1/sessions', { sessionId: id });
      for (let c = 0; c < 10; c++) {
        await http('POST', `/v1/sessions/${id}/tool-calls`, { toolCallId: `h${c}`, tool: 'book_hotels', input: { night: c } });
        const booked = (await (
          await fetch(`${travel.url}/hotels`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
        ).json()) as { bookingId: string };
        await http('POST', `/v1/sessions/${id}/tool-calls/h${c}/succeed`, { output: booked });
      }
      const start = performance.now();
      const res = await http('POST', `/v1/sessions/${id}/rollback`, { toVersion: 1, waitMs: 30_000 });
      const elapsed = performance.now() - start;
      if (res.status !== 200 || res.body.rollback.status !== 'completed') throw new Error(`rollback did not complete: ${JSON.stringify(res.body)}`);
      if (run >= 5) samples.push(elapsed); // the first runs warm up
    }
    console.log(`rollback over 10 effects with local HTTP compensators (HTTP request to completion): ${fmt(summarize(samples))}`);
  } finally {
    await travel.stop();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
