import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The architecture's package boundaries, checked on the compiled packages as Node loads them
 * (npm test builds first): a port-only entry loads no database or broker client, and every
 * entry of every exports map resolves.
 */
const ROOT = join(__dirname, '..', '..');
const ADAPTER_MODULES = /[\\/]node_modules[\\/](pg|pg-pool|better-sqlite3|kafkajs|typeorm|@eventstore[\\/]db-client|@grpc[\\/]grpc-js)[\\/]/;

function modulesLoadedBy(specifier: string): string[] {
  const script = `require(${JSON.stringify(specifier)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const run = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`loading ${specifier} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[];
}

describe('package entries', () => {
  it.each(['@rewind/domain', '@rewind/event-store', '@rewind/engine', '@rewind/messaging', '@rewind/sagas', '@rewind/tenancy', '@rewind/config'])(
    '%s loads no database or broker client',
    (entry) => {
      const loaded = modulesLoadedBy(entry);
      expect(loaded.some((file) => file.includes(join('libs', entry.split('/')[1]!, 'dist')))).toBe(true);
      expect(loaded.filter((file) => ADAPTER_MODULES.test(file))).toEqual([]);
    },
  );

  it('@rewind/event-store/postgres loads pg (the check above would notice an adapter)', () => {
    expect(modulesLoadedBy('@rewind/event-store/postgres').some((file) => ADAPTER_MODULES.test(file))).toBe(true);
  });

  it('@rewind/event-store/eventstoredb loads the EventStoreDB client (and the port entry does not)', () => {
    expect(modulesLoadedBy('@rewind/event-store/eventstoredb').some((file) => file.includes(join('@eventstore', 'db-client')))).toBe(true);
  });

  it('every export of every package resolves to a built file', () => {
    for (const dir of ['libs', 'apps']) {
      for (const name of readdirNames(join(ROOT, dir))) {
        const manifest = JSON.parse(readFileSync(join(ROOT, dir, name, 'package.json'), 'utf8')) as { exports: Record<string, Conditions> };
        for (const [subpath, conditions] of Object.entries(manifest.exports)) {
          for (const target of targetsOf(conditions)) {
            expect(existsSync(join(ROOT, dir, name, target)), `${dir}/${name} exports ${subpath} → ${target}`).toBe(true);
          }
        }
      }
    }
  });
});

/** An export's target: a path, or conditions (`import`/`require`, each with its own `types`) nested to any depth. */
type Conditions = string | { [condition: string]: Conditions };

function targetsOf(conditions: Conditions): string[] {
  return typeof conditions === 'string' ? [conditions] : Object.values(conditions).flatMap(targetsOf);
}

function readdirNames(dir: string): string[] {
  return readdirSync(dir).filter((name) => existsSync(join(dir, name, 'package.json')));
}
