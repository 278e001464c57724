/**
 * What a write costs the engine as many sessions grow at once (issue 40's soak without HTTP, the
 * read models or the memory index): `--sessions` sessions written a turn (5 steps) each in turn, on
 * an in-memory store, with a state cache of `--cache-events` events' worth, so that states are
 * evicted and restored with their sealed history left in the snapshot segments, and those segments
 * compete for the one process-wide segment cache (64 MB of JSON). Printed every `--every` turns:
 * the engine's CPU per turn (this thread's), and the segment reads and segments read per turn.
 * A single session (session-length-cpu.bench.ts) stays flat where 32 do not: this is the bench
 * that showed a decision falling back to loading a state's whole history (HISTORY_RETRIES).
 *
 * With `--head-bytes`, also the bytes of snapshot heads written per event (their JSON, stringified for the count:
 * the engine's CPU column then includes that); `--views-from 0` keeps cached states whole (see viewsFromEvents).
 *
 * Usage: npm run build && node dist/test/bench/many-sessions-cpu.bench.js [--sessions 32] [--turns 6000] [--every 1000] [--cache-events 100000] [--views-from 4096] [--head-bytes]
 */
import { parseArgs } from 'node:util';
import { SessionRepository, SessionService } from '@rewind/engine';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { benchCaller, HOTEL_SEARCH, STEPS_PER_TURN } from './suite/conversation';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sessions: { type: 'string', default: '32' },
      turns: { type: 'string', default: '6000' },
      every: { type: 'string', default: '1000' },
      'cache-events': { type: 'string', default: '100000' },
      'views-from': { type: 'string' },
      'head-bytes': { type: 'boolean', default: false },
    },
  });
  const [sessions, turns, every, cacheEvents] = [values.sessions, values.turns, values.every, values['cache-events']].map(Number) as [
    number,
    number,
    number,
    number,
  ];
  const store = new InMemoryEventStore();
  const counted = { reads: 0, segments: 0, headBytes: 0 };
  const load = store.loadSnapshotSegments.bind(store);
  store.loadSnapshotSegments = (streamId, ids) => {
    counted.reads++;
    counted.segments += ids.length;
    return load(streamId, ids);
  };
  if (values['head-bytes']) {
    const save = store.saveSnapshot.bind(store);
    store.saveSnapshot = (snapshot, segments) => {
      counted.headBytes += JSON.stringify(snapshot.state).length;
      return save(snapshot, segments);
    };
  }
  const viewsFrom = values['views-from'] === undefined ? {} : { viewsFromEvents: Number(values['views-from']) };
  const repository = new SessionRepository(store, { snapshotEvery: 100, cacheEvents, ...viewsFrom });
  const service = new SessionService(repository);
  const ids = Array.from({ length: sessions }, (_, i) => `many-${i}`);
  for (const sessionId of ids) await service.startSession(benchCaller, { sessionId });
  console.log(
    `${sessions} sessions, state cache ${cacheEvents} events\nturns\tengine CPU ms/turn\tsegment reads/turn\tsegments read/turn\tcached events${values['head-bytes'] ? '\thead bytes/event' : ''}`,
  );
  let last = { cpu: cpuUs(), ...counted };
  for (let t = 0; t < turns; t++) {
    const steps = Array.from({ length: STEPS_PER_TURN }, (_, s) => HOTEL_SEARCH.command(t, s));
    await Promise.all(ids.map((sessionId) => service.executeSteps(benchCaller, sessionId, steps)));
    // Snapshots are written on a later turn of the event loop, as they are behind an API.
    await new Promise((resolve) => setImmediate(resolve));
    if ((t + 1) % every === 0) {
      const now = { cpu: cpuUs(), ...counted };
      const per = (n: number) => (n / every / sessions).toFixed(3);
      console.log(
        `${t + 1}\t${per((now.cpu - last.cpu) / 1000)}\t${per(now.reads - last.reads)}\t${per(now.segments - last.segments)}\t${repository.cachedEvents}` +
          (values['head-bytes'] ? `\t${((now.headBytes - last.headBytes) / (every * sessions * STEPS_PER_TURN)).toFixed(0)}` : ''),
      );
      last = now;
    }
  }
}

function cpuUs(): number {
  const { user, system } = process.threadCpuUsage();
  return user + system;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
