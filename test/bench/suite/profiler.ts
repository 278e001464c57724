/**
 * CPU profiles of the measured phase only (not the data set-up), in the `.cpuprofile` format that
 * `node --cpu-prof` writes, when the orchestrator runs a job with REWIND_BENCH_PROFILE_DIR set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T))));
}

export const profilingEnabled = () => Boolean(process.env.REWIND_BENCH_PROFILE_DIR);

/** Runs `fn` under the V8 sampling profiler (200 µs interval) and writes `<dir>/<name>.cpuprofile`. */
export async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.REWIND_BENCH_PROFILE_DIR;
  if (!dir) return fn();
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: 200 });
  await post(session, 'Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await post<{ profile: unknown }>(session, 'Profiler.stop');
    writeFileSync(join(dir, `${name.replace(/[^A-Za-z0-9_.-]+/g, '_')}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
