import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
}

/** Runs the built API (`npm run build` first) as a real child process and waits for /health (up to `startTimeoutMs`). */
export async function startServerProcess(env: Record<string, string>, script = 'apps/api/dist/main.js', startTimeoutMs = 20_000): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(process.cwd(), script)], {
    env: { ...process.env, REWIND_LOG_LEVEL: 'warn', REWIND_EGRESS_ALLOW: '127.0.0.0/8,::1', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output}`);
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become healthy in ${startTimeoutMs / 1000} s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, baseUrl, output: () => output };
}

export async function kill9(server: ServerProcess): Promise<void> {
  await new Promise<void>((resolve) => {
    server.child.once('exit', () => resolve());
    server.child.kill('SIGKILL');
  });
}
