import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../support/test-app';

const run = promisify(execFile);

/** The fields of the tour's answers that this test reads. */
interface Answer {
  events: { type: string }[];
  plan: { toCompensate: { toolCallId: string }[] };
  nodes: { version: number }[];
  head: number;
}

/** The shell blocks of README's "A five-minute tour", in order. */
function tourBlocks(): string[] {
  const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
  const start = readme.indexOf('## A five-minute tour');
  const end = readme.indexOf('\n## ', start + 1);
  expect(start).toBeGreaterThan(-1);
  return [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

describe("README's five-minute tour", () => {
  it('runs as written: a session, its steps, a past state, and an undo that calls the booking compensation', async () => {
    const [setup = '', ...calls] = tourBlocks();
    expect(setup).toContain('.listen(4000)');
    expect(calls.length).toBeGreaterThanOrEqual(3);

    // The tour's stand-in hotel service, on a free port instead of 4000.
    const received: string[] = [];
    const hotel = createServer((request, response) => {
      received.push(`${request.method} ${request.url}`);
      response.end('{}');
    });
    await new Promise<void>((resolve) => hotel.listen(0, '127.0.0.1', resolve));
    const hotelUrl = `http://127.0.0.1:${(hotel.address() as AddressInfo).port}`;
    const app = await startTestApp();
    try {
      const variables = setup
        .split('\n')
        .filter((line) => line.trim() !== '' && !line.startsWith('node '))
        .join('\n')
        .replace('KEY=rwd_...', `KEY=${app.adminKey}`)
        .replace('http://localhost:3000', app.baseUrl);
      expect(variables).toContain(`KEY=${app.adminKey}`);
      const script = [
        'set -euo pipefail',
        'curl() { command curl --fail-with-body "$@"; echo; }', // one answer per line; an HTTP error stops the tour
        variables,
        ...calls.map((block) => block.replaceAll('http://localhost:4000', hotelUrl)),
      ].join('\n');
      const { stdout } = await run('bash', ['-c', script]);
      const answers = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Answer);

      expect(answers).toHaveLength(8);
      type Eight = [Answer, Answer, Answer, Answer, Answer, Answer, Answer, Answer];
      const [started, steps, callStarted, callSucceeded, past, plan, undo, timeline] = answers as Eight;
      expect(started).toMatchObject({ sessionId: 'trip', version: 1 });
      expect(steps).toMatchObject({ version: 4, head: 3 });
      expect(callStarted.events.map((event) => event.type)).toEqual(['ToolCallStarted']);
      expect(callSucceeded).toMatchObject({ version: 6, head: 6 });
      expect(past).toMatchObject({ version: 3, memory: { destination: 'Lisbon' }, toolCalls: [] });
      expect(plan.plan.toCompensate.map((effect) => effect.toolCallId)).toEqual(['h1']);
      expect(undo).toMatchObject({ head: 3, rollback: { status: 'completed' } });
      expect(undo.events.map((event) => event.type)).toEqual(['RollbackRequested', 'CompensationApplied', 'RollbackCompleted']);
      expect(timeline.head).toBe(3);
      expect(timeline.nodes.map((node) => node.version)).toContain(6);
      expect(received).toEqual(['POST /bookings/H-1/cancel']);
    } finally {
      await app.close();
      hotel.close();
    }
  });
});
