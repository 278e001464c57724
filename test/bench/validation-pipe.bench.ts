/**
 * The validation pipe's CPU per request body (issue 26), load-independent: the API's global pipe
 * on the bodies W4 sends, with the fast path (as it runs) and without (ValidationPipe's own
 * transform on the same pipe: class-transformer + class-validator), measured as this thread's
 * CPU time over many bodies, alternated twice. Usage: npm run build && node dist/test/bench/validation-pipe.bench.js
 */
import 'reflect-metadata';
import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { createValidationPipe } from '@rewind/api';
import { RecordMessageDto, RecordStepsDto, StartToolCallDto, SucceedToolCallDto, ValueDto } from '@rewind/contracts';
import { stepRequest, turnRequest } from './suite/conversation';

const pipe = createValidationPipe();
type Run = (value: unknown, metadata: ArgumentMetadata) => Promise<unknown>;
const runs: [string, Run][] = [
  ['before (class-transformer + class-validator)', (v, m) => ValidationPipe.prototype.transform.call(pipe, v, m) as Promise<unknown>],
  ['now (fast path)', (v, m) => pipe.transform(v, m) as Promise<unknown>],
];
const CASES: [string, new () => object, (i: number) => unknown][] = [
  ['a turn, POST …/steps (5 steps)', RecordStepsDto, (i) => turnRequest('s', i).body],
  ['POST …/messages', RecordMessageDto, (i) => stepRequest('s', i, 0).body],
  ['POST …/tool-calls', StartToolCallDto, (i) => stepRequest('s', i, 1).body],
  ['POST …/tool-calls/:id/succeed', SucceedToolCallDto, (i) => stepRequest('s', i, 2).body],
  ['PUT …/memory/:key', ValueDto, (i) => stepRequest('s', i, 4).body],
];

async function cpuPerBody(run: Run, metadata: ArgumentMetadata, bodies: unknown[], n: number): Promise<number> {
  // Copies made beforehand: the pipe may change what it is given (it strips prototype keys in place).
  const copies = Array.from({ length: n }, (_, i) => structuredClone(bodies[i % bodies.length]));
  const start = process.threadCpuUsage();
  for (const copy of copies) await run(copy, metadata);
  const used = process.threadCpuUsage(start);
  return (used.user + used.system) / n;
}

async function main(): Promise<void> {
  const n = process.argv.includes('--quick') ? 2_000 : 20_000;
  console.log(`Validation pipe, µs of CPU per body (this thread; ${n} bodies per figure, the better of two rounds)`);
  for (const [name, metatype, make] of CASES) {
    const bodies = Array.from({ length: 200 }, (_, i) => make(i));
    const metadata: ArgumentMetadata = { type: 'body', metatype, data: '' };
    const best = new Map<string, number>();
    for (let round = 0; round < 2; round++) {
      for (const [label, run] of runs) {
        await cpuPerBody(run, metadata, bodies, n / 10); // warm-up
        const us = await cpuPerBody(run, metadata, bodies, n);
        best.set(label, Math.min(best.get(label) ?? Infinity, us));
      }
    }
    console.log(`  ${name}: ${[...best].map(([label, us]) => `${label} ${us.toFixed(1)}`).join(', ')}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
