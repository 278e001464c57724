/** Runs one of the suite's client scripts (load-client, latency-client) as its own Node process and returns its `RESULT` line. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * `onMark` hears the client's `MARK <name>` lines as they come (the load client marks where its
 * measured phase starts and ends, so that this process can read its own CPU time there);
 * `onSpawn` its process id (the soak reads the client's CPU time from /proc).
 */
export function runClientProcess<T>(
  script: 'load-client.js' | 'latency-client.js',
  spec: unknown,
  onMark?: (name: string) => void,
  onSpawn?: (pid: number) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    // Without the flags main.ts gave the API (REWIND_BENCH_JOB_NODE_FLAGS): the client stays the same whatever the A/B.
    const clientOptions = process.env.REWIND_BENCH_CLIENT_NODE_OPTIONS;
    const env = clientOptions === undefined ? process.env : { ...process.env, NODE_OPTIONS: clientOptions };
    const child = spawn(process.execPath, [join(__dirname, script), JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'], env });
    if (child.pid !== undefined) onSpawn?.(child.pid);
    let out = '';
    let scanned = 0;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      for (let end = out.indexOf('\n', scanned); end !== -1; end = out.indexOf('\n', scanned)) {
        const line = out.slice(scanned, end);
        scanned = end + 1;
        if (line.startsWith('MARK ')) onMark?.(line.slice('MARK '.length));
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line) return reject(new Error(`${script} exited with ${code}: ${out.slice(0, 500)}`));
      resolve(JSON.parse(line.slice('RESULT '.length)) as T);
    });
  });
}

/** Tells the parent (runClientProcess's `onMark`) that the client reached `name`. */
export function mark(name: string): void {
  process.stdout.write(`MARK ${name}\n`);
}

/** The other side: a client script's entry point, which runs `run` on the spec in argv[2] and prints `RESULT <json>`. */
export function clientMain<S, R>(run: (spec: S) => Promise<R>): void {
  const spec = JSON.parse(process.argv[2] ?? '{}') as S;
  run(spec).then(
    (result) => {
      process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
