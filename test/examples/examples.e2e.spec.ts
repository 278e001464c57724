import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main as langGraphBooking } from '../../examples/langgraph-booking/agent';
import { main as libraryAgentLoop } from '../../examples/library-agent-loop/agent';
import { startTestApp } from '../support/test-app';

/** Runs every example in examples/ as a user would, and checks what it did to the world. */
describe('examples', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'rewind-example-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('langgraph-booking: the LangGraph agent books twice, the rollback through Rewind cancels the second booking', async () => {
    const lines: string[] = [];
    const { desk, rewind } = await langGraphBooking(dataDir(), (line) => lines.push(line));
    expect([...desk.bookings.values()]).toEqual(['Alfama']);
    expect(lines).toEqual(['bookings: Alfama, Baixa', 'after rolling back: Alfama', 'last message: Booked: H-1']);
    await rewind.close();
  });

  it('library-agent-loop: a flaky booking is retried, the unwanted one is undone, the plugin state comes back', async () => {
    const lines: string[] = [];
    const { booked, rewind } = await libraryAgentLoop(dataDir(), (line) => lines.push(line));
    expect(booked).toEqual(['Porto']);
    expect(lines.slice(-3)).toEqual([
      'booked: Porto, Madrid',
      'after the rollback: Porto; seat window',
      'tool calls on the path: search_flights x1, book_flight x2',
    ]);
    await rewind.close();
  });

  it('python-agent-loop: the Python client records the loop and a rollback calls the hotel service to cancel', async () => {
    const app = await startTestApp();
    try {
      const child = spawn('python3', [join(process.cwd(), 'examples/python-agent-loop/agent.py')], {
        env: { ...process.env, PYTHONPATH: join(process.cwd(), 'clients/python'), REWIND_URL: app.baseUrl, REWIND_API_KEY: app.adminKey },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(output).toContain("after the rollback: bookings ['Alfama'], tool calls ['Alfama']");
      expect(code).toBe(0);
    } finally {
      await app.close();
    }
  });
});
