/**
 * What a request costs the API as one session grows (issue 26's soak, one writer, no noise from
 * other sessions): the real API (createApp, SQLite or PostgreSQL, memory off) in this process, a client in a
 * worker thread writing ONE session a turn (5 steps) per request, and the API's event-loop CPU
 * (this thread's `threadCpuUsage`, so neither the client nor other processes count) per request
 * in each block of `--every` turns. CPU rather than wall time: the machine may be shared.
 *
 * Usage: npm run build && node dist/test/bench/session-length-cpu.bench.js [--turns 6000] [--every 500] [--store sqlite|postgres] [--library]
 * (SQLite runs on the event loop, so its own CPU counts there; PostgreSQL's does not.)
 * `--library --cache-events N`: a state cache of N events' worth, too small for the session, so that
 * each write restores its state (issue 40's cliff); `--whole-states` restores whole states as
 * before issue 40, for an A/B on one build; `--segment-cache-mb M` bounds the decoded segments kept.
 */
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { SegmentCache, SessionRepository, SessionService } from '@rewind/engine';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { benchCaller, HOTEL_SEARCH, STEPS_PER_TURN, turnRequest } from './suite/conversation';
import { httpSender } from './suite/http-senders';

interface ClientSpec {
  baseUrl: string;
  apiKey: string;
  turns: number;
  every: number;
}

async function client({ baseUrl, apiKey, turns, every }: ClientSpec): Promise<void> {
  const send = httpSender({ baseUrl, apiKey }, 1);
  const sessionId = `length-${Date.now().toString(36)}`;
  const created = await send('POST', '/v1/sessions', { sessionId });
  if (created.status >= 300) throw new Error(`creating the session answered ${created.status}: ${created.text.slice(0, 300)}`);
  parentPort!.postMessage({ turn: 0 });
  for (let t = 0; t < turns; t++) {
    const r = turnRequest(sessionId, t);
    const res = await send(r.method, r.path, r.body);
    if (res.status >= 300) throw new Error(`turn ${t} answered ${res.status}: ${res.text.slice(0, 300)}`);
    if ((t + 1) % every === 0) parentPort!.postMessage({ turn: t + 1 });
  }
}

/**
 * `--library`: the engine alone (library mode: SessionService on an in-memory store, no HTTP, no
 * database), so that what grows with the session is not drowned by the constant cost of a request.
 */
async function library(turns: number, every: number, cache: { cacheEvents?: number; wholeStates: boolean; segmentCacheMb?: number }): Promise<void> {
  const repository = new SessionRepository(new InMemoryEventStore(), {
    snapshotEvery: 100,
    ...(cache.cacheEvents !== undefined ? { cacheEvents: cache.cacheEvents } : {}),
    ...(cache.segmentCacheMb !== undefined ? { segmentCache: new SegmentCache(cache.segmentCacheMb * 1024 * 1024) } : {}),
    sealedHistoryInSegments: !cache.wholeStates,
  });
  const service = new SessionService(repository);
  const sessionId = 'length';
  await service.startSession(benchCaller, { sessionId });
  console.log('turns\tengine CPU ms/turn');
  let last = loopCpuUs();
  for (let t = 0; t < turns; t++) {
    const steps = Array.from({ length: STEPS_PER_TURN }, (_, s) => HOTEL_SEARCH.command(t, s));
    await service.executeSteps(benchCaller, sessionId, steps);
    // Snapshots are written on a later turn of the event loop, as they are behind an API.
    await new Promise((resolve) => setImmediate(resolve));
    if ((t + 1) % every === 0) {
      const now = loopCpuUs();
      console.log(`${t + 1}\t${((now - last) / 1000 / every).toFixed(3)}`);
      last = now;
    }
  }
}

const loopCpuUs = () => {
  const { user, system } = process.threadCpuUsage();
  return user + system;
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      turns: { type: 'string', default: '6000' },
      every: { type: 'string', default: '500' },
      store: { type: 'string', default: 'sqlite' },
      library: { type: 'boolean', default: false },
      'cache-events': { type: 'string' },
      'whole-states': { type: 'boolean', default: false },
      'segment-cache-mb': { type: 'string' },
    },
  });
  const turns = Number(values.turns);
  const every = Number(values.every);
  if (values.library) {
    return library(turns, every, {
      ...(values['cache-events'] !== undefined ? { cacheEvents: Number(values['cache-events']) } : {}),
      ...(values['segment-cache-mb'] !== undefined ? { segmentCacheMb: Number(values['segment-cache-mb']) } : {}),
      wholeStates: values['whole-states'],
    });
  }
  const { startRewindApi } = await import('./suite/peers/rewind-http.js');
  if (values.store !== 'sqlite' && values.store !== 'postgres') throw new Error(`--store sqlite|postgres, not ${values.store}`);
  const api = await startRewindApi(values.store, `len${Date.now().toString(36)}`, 'length', { REWIND_MEMORY: 'off' });
  try {
    const worker = new Worker(__filename, { workerData: { baseUrl: api.baseUrl, apiKey: api.apiKey, turns, every } satisfies ClientSpec });
    let last: { turn: number; cpu: number; at: number } | null = null;
    console.log('turns\tloop CPU ms/request\twall ms/request');
    await new Promise<void>((resolve, reject) => {
      worker.on('message', ({ turn }: { turn: number }) => {
        const now = { turn, cpu: loopCpuUs(), at: performance.now() };
        if (last) {
          const requests = turn - last.turn;
          console.log(`${turn}\t${((now.cpu - last.cpu) / 1000 / requests).toFixed(3)}\t${((now.at - last.at) / requests).toFixed(3)}`);
        }
        last = now;
      });
      worker.on('error', reject);
      worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`client exited with ${code}`))));
    });
  } finally {
    await api.close();
  }
}

if (isMainThread) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
} else {
  void client(workerData as ClientSpec);
}
