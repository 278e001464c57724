import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@rewind/config';
import { loadWorkerConfig } from '@rewind/worker';

/**
 * An environment that records every variable a loader reads, answering with values that
 * take it down every branch (Kafka on, PostgreSQL on).
 */
function recordingEnv(answers: Record<string, string>): { env: NodeJS.ProcessEnv; read: Set<string> } {
  const read = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_target, name) => {
      if (typeof name === 'string') read.add(name);
      return typeof name === 'string' ? answers[name] : undefined;
    },
  });
  return { env, read };
}

describe('configuration', () => {
  const configurationPage = readFileSync(join(process.cwd(), 'docs/operations/configuration.md'), 'utf8');
  const answers = {
    REWIND_STORE: 'postgres',
    DATABASE_URL: 'postgres://x@127.0.0.1/x',
    REWIND_BUS: 'kafka',
    KAFKA_BROKERS: '127.0.0.1:9092',
    REWIND_WORKSPACE_ROOT: '/srv/agent-files',
    REWIND_WORKSPACE_BLOB_DIR: '/srv/agent-blobs',
  };

  it.each([
    ['the API and the CLI (loadConfig)', (env: NodeJS.ProcessEnv) => loadConfig(env)],
    ['the worker (loadWorkerConfig, with the Kafka settings)', (env: NodeJS.ProcessEnv) => loadWorkerConfig(env)],
  ])('every variable %s reads is documented in docs/operations/configuration.md', (_name, load) => {
    const { env, read } = recordingEnv(answers);
    load(env);
    expect(read.size).toBeGreaterThan(5);
    const undocumented = [...read].filter((name) => !configurationPage.includes(`\`${name}\``));
    expect(undocumented).toEqual([]);
  });
});
