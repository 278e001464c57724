import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@rewind/config';
import { createApp } from '@rewind/api';
import { runBookingAct } from './booking-act';
import { formatDiff, formatState, formatTimeline, type Change, type RecordedEvent, type StateView, type Timeline } from './print';

/**
 * `npm run demo`: the travel-planning conversation of seed 002, recorded through the real
 * HTTP API (started in-process on a throw-away data directory), then read back: the
 * timeline, past states, a rollback to a checkpoint, a second branch, and a diff.
 */

/** An HTTP call that did not answer 2xx: the status and body say why. */
export class DemoHttpError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${method} ${path} failed with HTTP ${status}: ${body}`);
    this.name = 'DemoHttpError';
  }
}

interface WriteResult {
  sessionId: string;
  version: number;
  head: number;
  events: { type: string; streamVersion: number }[];
}

/** A minimal client: JSON in and out, the API key in the Authorization header. */
class RewindHttp {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const response = await fetch(this.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${this.apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new DemoHttpError(method, path, response.status, text);
    return JSON.parse(text) as T;
  }
}

/** Records the agent's steps in one session, logging each call and the version it made. */
class Session {
  constructor(
    private readonly http: RewindHttp,
    readonly id: string,
    private readonly out: (line: string) => void,
  ) {}

  private async write(method: 'POST' | 'PUT', path: string, body: unknown, what: string): Promise<number> {
    const result = await this.http.call<WriteResult>(method, `/v1/sessions/${this.id}${path}`, body);
    const versions = result.events.map((e) => e.streamVersion);
    const at = versions.length > 1 ? `v${versions[0]}-v${versions[versions.length - 1]}` : `v${versions[0]}`;
    this.out(`  ${`${method} ${path || '/'}`.padEnd(46)} ${at.padEnd(8)} ${what}`);
    return result.version;
  }

  user(content: string) {
    return this.write('POST', '/messages', { role: 'user', content }, `user: ${content}`);
  }
  agent(content: string) {
    return this.write('POST', '/messages', { role: 'agent', content }, `agent: ${content}`);
  }
  remember(key: string, value: unknown) {
    return this.write('PUT', `/memory/${key}`, { value }, `memory ${key} = ${JSON.stringify(value)}`);
  }
  checkpoint(label: string) {
    return this.write('POST', '/checkpoints', { label }, `checkpoint "${label}"`);
  }
  /** A read-only tool (effect none): its start, then its result. */
  async tool(toolCallId: string, tool: string, input: unknown, output: unknown): Promise<number> {
    await this.write('POST', '/tool-calls', { toolCallId, tool, input, effect: { kind: 'none' } }, `${tool} started (effect none)`);
    return this.write('POST', `/tool-calls/${toolCallId}/succeed`, { output }, `${tool} succeeded`);
  }

  /** Moves the head (`undo`, `rollback`...) and says where it went; the move is itself recorded as events. */
  async moveHead(path: '/undo' | '/redo' | '/rollback', body: object, from: number): Promise<number> {
    const result = await this.http.call<WriteResult>('POST', `/v1/sessions/${this.id}${path}`, body);
    this.out(`  POST ${path} ${JSON.stringify(body)}  ->  head v${from} -> v${result.head}`);
    this.out(`  recorded as ${result.events.map((e) => `v${e.streamVersion} ${e.type}`).join(', ')} (nothing is deleted)`);
    return result.head;
  }
  state(at: number) {
    return this.http.call<StateView>('GET', `/v1/sessions/${this.id}/state?at=${at}`);
  }
  timeline() {
    return this.http.call<Timeline>('GET', `/v1/sessions/${this.id}/timeline`);
  }
  async events(): Promise<RecordedEvent[]> {
    const all: RecordedEvent[] = [];
    for (let from: number | null = 1; from !== null; ) {
      const page: { events: RecordedEvent[]; nextFrom: number | null } = await this.http.call('GET', `/v1/sessions/${this.id}/events?from=${from}&limit=1000`);
      all.push(...page.events);
      from = page.nextFrom;
    }
    return all;
  }
  diff(from: number, to: number) {
    return this.http.call<{ changes: Change[] }>('GET', `/v1/sessions/${this.id}/diff?from=${from}&to=${to}`);
  }
}

function heading(out: (line: string) => void, title: string): void {
  out('');
  out(`== ${title} ${'='.repeat(Math.max(3, 76 - title.length))}`);
}

export async function runDemo(out: (line: string) => void): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-demo-'));
  const adminKey = randomBytes(16).toString('hex'); // 32 characters
  let close: (() => Promise<void>) | undefined;
  try {
    // The demo's hotel and car services run on this machine: its compensations may reach loopback.
    const config = loadConfig({
      REWIND_DATA_DIR: dataDir,
      REWIND_ADMIN_KEY: adminKey,
      PORT: '0',
      REWIND_LOG_LEVEL: 'warn',
      REWIND_EGRESS_ALLOW: '127.0.0.0/8,::1',
    });
    const { app } = await createApp(config);
    close = () => app.close();
    await app.listen(0, '127.0.0.1');
    const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const http = new RewindHttp(baseUrl, adminKey);

    out(`Rewind demo: seed 002's travel-planning agent, recorded over HTTP at ${baseUrl}`);
    out(`(data in ${dataDir}, removed at the end)`);

    // ---- branch 1: Paris ---------------------------------------------------------------
    heading(out, 'Recording the conversation (branch 1: Paris)');
    const start = await http.call<WriteResult>('POST', '/v1/sessions', { sessionId: 'trip-planner', title: 'Plan a trip (seed 002)' });
    out(`  ${'POST /v1/sessions'.padEnd(46)} v${start.version}       session "${start.sessionId}" started`);
    const trip = new Session(http, start.sessionId, out);
    out(`  (the paths below are under /v1/sessions/${trip.id})`);

    await trip.user('Hi! Can you help me plan a trip next month?');
    await trip.agent('Of course. Where would you like to go?');
    await trip.user('Somewhere with great food and museums. Paris, maybe?');
    const destinationChosen = await trip.remember('destination', 'Paris');
    await trip.agent('Paris it is! Let me look for flights.');
    await trip.checkpoint('destination-chosen');
    await trip.tool(
      'search-flights-1',
      'search_flights',
      { from: 'BER', to: 'CDG', date: '2025-06-02' },
      {
        options: [
          { flight: 'AF1235', departs: '08:05', price: 129 },
          { flight: 'LH2228', departs: '17:40', price: 96 },
        ],
      },
    );
    await trip.agent('Two flights on June 2: AF1235 at 08:05 (EUR 129) or LH2228 at 17:40 (EUR 96). Which one?');
    await trip.user('The morning one, please.');
    const flightChosen = await trip.remember('flight', { flight: 'AF1235', departs: '08:05', price: 129 });
    await trip.tool(
      'search-hotels-1',
      'search_hotels',
      { city: 'Paris', nights: 3 },
      {
        options: [
          { name: 'Hotel des Arts Montmartre', perNight: 140 },
          { name: 'Le Marais Loft', perNight: 185 },
        ],
      },
    );
    await trip.remember('hotel', { name: 'Hotel des Arts Montmartre', perNight: 140 });
    const parisTip = await trip.agent('I suggest Hotel des Arts Montmartre at EUR 140 a night. Shall I put it all together?');

    heading(out, 'Timeline');
    for (const line of formatTimeline(await trip.timeline(), await trip.events())) out(line);

    heading(out, `Time travel: the state at v${destinationChosen}, right after the destination was chosen`);
    for (const line of formatState(await trip.state(destinationChosen))) out(line);
    heading(out, `Time travel: the state at v${flightChosen}, right after the flight was chosen`);
    for (const line of formatState(await trip.state(flightChosen))) out(line);

    // ---- rollback, then branch 2: Lisbon ------------------------------------------------
    heading(out, 'Undo the last step');
    const afterUndo = await trip.moveHead('/undo', {}, parisTip);
    for (const line of formatState(await trip.state(afterUndo), 1)) out(line);

    heading(out, 'The user changes their mind: roll back to checkpoint "destination-chosen"');
    await trip.moveHead('/rollback', { toCheckpoint: 'destination-chosen' }, afterUndo);

    heading(out, 'Recording a different choice (branch 2: Lisbon)');
    await trip.user('Actually, Paris is too expensive in June. Let us go to Lisbon instead.');
    await trip.remember('destination', 'Lisbon');
    await trip.agent('Lisbon it is! Looking for flights.');
    await trip.tool(
      'search-flights-2',
      'search_flights',
      { from: 'BER', to: 'LIS', date: '2025-06-02' },
      {
        options: [
          { flight: 'TP557', departs: '07:10', price: 98 },
          { flight: 'FR1142', departs: '13:25', price: 61 },
        ],
      },
    );
    await trip.agent('Two flights on June 2: TP557 at 07:10 (EUR 98) or FR1142 at 13:25 (EUR 61). Which one?');
    await trip.user('The cheaper one.');
    const lisbonTip = await trip.remember('flight', { flight: 'FR1142', departs: '13:25', price: 61 });

    heading(out, 'Timeline with both branches');
    for (const line of formatTimeline(await trip.timeline(), await trip.events())) out(line);

    heading(out, `Branch tips: v${parisTip} (Paris) and v${lisbonTip} (Lisbon)`);
    out(`  Paris tip, v${parisTip}:`);
    for (const line of formatState(await trip.state(parisTip), 1)) out(`  ${line}`);
    out(`  Lisbon tip, v${lisbonTip}:`);
    for (const line of formatState(await trip.state(lisbonTip), 1)) out(`  ${line}`);

    heading(out, `Diff between the branch tips: GET /diff?from=${parisTip}&to=${lisbonTip}`);
    for (const line of formatDiff((await trip.diff(parisTip, lisbonTip)).changes)) out(line);

    await runBookingAct(
      (method, path, body) => http.call(method, path, body),
      out,
      (title) => heading(out, title),
    );

    out('');
    out('Done: every step above is an immutable event; both branches stay readable forever.');
  } finally {
    await close?.();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
