import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionRepository, SessionService, type Caller } from '@rewind/engine';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { hashKey } from '@rewind/tenancy';
import { SqliteApiKeyStore } from '@rewind/tenancy/sqlite';
import { runCli } from './cli';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('rewind CLI', () => {
  let dataDir: string;
  let databaseFile: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rewind-cli-'));
    databaseFile = join(dataDir, 'rewind.db');
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  async function rewind(...argv: string[]): Promise<Run> {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: { REWIND_DATA_DIR: dataDir },
    });
    return { code, stdout, stderr };
  }

  /** The database file and its WAL, if any: everything SQLite has written. */
  function databaseBytes(): Buffer {
    const parts = [databaseFile, `${databaseFile}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f));
    return Buffer.concat(parts);
  }

  async function writeTrip(tenantId = 'default'): Promise<void> {
    const store = new SqliteEventStore({ filename: databaseFile });
    try {
      const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 2 }));
      const caller: Caller = { tenantId, actor: 'test' };
      await sessions.startSession(caller, { sessionId: 'trip', title: 'Plan a trip' }); // v1
      await sessions.execute(caller, 'trip', { type: 'RecordMessage', role: 'user', content: 'Plan a trip for me' }); // v2
      await sessions.execute(caller, 'trip', { type: 'WriteMemory', key: 'destination', value: 'Paris' }); // v3
      await sessions.execute(caller, 'trip', { type: 'WriteMemory', key: 'flight', value: 'AF1381' }); // v4
      await sessions.execute(caller, 'trip', { type: 'MoveHead', kind: 'rollback', toVersion: 2 }); // v5, v6
      await sessions.execute(caller, 'trip', { type: 'WriteMemory', key: 'destination', value: 'Lisbon' }); // v7
    } finally {
      await store.close();
    }
  }

  describe('keys', () => {
    it('create prints a key once that then authenticates, and stores only its hash', async () => {
      const run = await rewind('keys', 'create', '--tenant', 'acme', '--name', 'ci bot');
      expect(run.code).toBe(0);
      const key = run.stdout.trim();
      expect(key).toMatch(/^rwd_[0-9a-f]{12}_\S+$/);
      expect(run.stdout.split('\n').filter(Boolean)).toHaveLength(1);
      expect(run.stderr).toContain('shown only this once');
      expect(run.stderr).not.toContain(key);

      const store = new SqliteApiKeyStore(databaseFile);
      try {
        const record = await store.authenticate(key);
        expect(record).toMatchObject({ tenantId: 'acme', name: 'ci bot', scopes: ['write', 'read'] });
      } finally {
        await store.close();
      }

      const bytes = databaseBytes();
      expect(bytes.includes(Buffer.from(hashKey(key)))).toBe(true);
      expect(bytes.includes(Buffer.from(key))).toBe(false);
      expect(bytes.includes(Buffer.from(key.slice('rwd_'.length + 13)))).toBe(false);
    });

    it('create --admin makes an admin key', async () => {
      const run = await rewind('keys', 'create', '--tenant', 'default', '--admin');
      expect(run.code).toBe(0);
      const store = new SqliteApiKeyStore(databaseFile);
      try {
        expect(await store.authenticate(run.stdout.trim())).toMatchObject({ tenantId: 'default', scopes: ['admin'] });
      } finally {
        await store.close();
      }
    });

    it('list shows ids, tenants, scopes, status and names, never a key', async () => {
      const a = (await rewind('keys', 'create', '--tenant', 'acme', '--name', 'first')).stdout.trim();
      const b = (await rewind('keys', 'create', '--tenant', 'globex', '--name', 'second', '--admin')).stdout.trim();

      const all = await rewind('keys', 'list');
      expect(all.code).toBe(0);
      const lines = all.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^KEY ID\s+TENANT\s+SCOPES\s+STATUS\s+NAME\s+CREATED AT$/);
      expect(lines).toHaveLength(3);
      expect(all.stdout).toContain('acme');
      expect(all.stdout).toContain('globex');
      expect(all.stdout).toMatch(/globex\s+admin\s+active\s+second/);
      for (const key of [a, b]) {
        expect(all.stdout).not.toContain(key);
        expect(all.stdout).not.toContain(key.slice('rwd_'.length + 13));
        expect(all.stdout).toContain(key.slice(4, 16)); // the key id
      }

      const acme = await rewind('keys', 'list', '--tenant', 'acme');
      expect(acme.stdout).toContain('first');
      expect(acme.stdout).not.toContain('globex');
      expect((await rewind('keys', 'list', '--tenant', 'nobody')).stdout).toContain('No API keys for tenant "nobody"');
    });

    it('create takes scopes and an expiry; revoke refuses the key, rotate replaces its secret under the same id', async () => {
      const audit = await rewind('keys', 'create', '--tenant', 'acme', '--scopes', 'audit', '--expires', '2099-01-01T00:00:00Z');
      expect(audit.code).toBe(0);
      expect(audit.stderr).toContain('scopes audit, expires 2099-01-01T00:00:00.000Z');
      const agent = (await rewind('keys', 'create', '--tenant', 'acme')).stdout.trim();
      const keyId = agent.slice(4, 16);

      const rotated = await rewind('keys', 'rotate', '--key', keyId, '--grace', '60');
      expect(rotated.code).toBe(0);
      const fresh = rotated.stdout.trim();
      expect(fresh).toMatch(new RegExp(`^rwd_${keyId}_`));
      expect(rotated.stderr).toMatch(/old one works until \S+Z/);
      const store = new SqliteApiKeyStore(databaseFile);
      try {
        expect((await store.authenticate(fresh))?.keyId).toBe(keyId);
        expect((await store.authenticate(agent))?.keyId).toBe(keyId);
        const revoked = await rewind('keys', 'revoke', '--key', keyId);
        expect(revoked.code).toBe(0);
        expect(revoked.stdout).toContain(`Revoked ${keyId}`);
        expect(await store.authenticate(fresh)).toBeNull();
        expect(await store.authenticate(agent)).toBeNull();
      } finally {
        await store.close();
      }
      expect((await rewind('keys', 'list', '--tenant', 'acme')).stdout).toMatch(new RegExp(`${keyId}\\s+acme\\s+write,read\\s+revoked`));

      const again = await rewind('keys', 'rotate', '--key', keyId);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('is revoked');
      const unknown = await rewind('keys', 'revoke', '--key', 'nosuchkey000');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('No API key "nosuchkey000"');
      expect((await rewind('keys', 'create', '--tenant', 'acme', '--scopes', 'root')).code).toBe(2);
      expect((await rewind('keys', 'rotate', '--key', keyId, '--grace', 'soon')).code).toBe(2);
    });

    it('list without a database says where it looked and creates nothing', async () => {
      const run = await rewind('keys', 'list');
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(databaseFile);
      expect(existsSync(databaseFile)).toBe(false);
    });
  });

  describe('bad input', () => {
    it.each([
      [['keys', 'create'], /missing required option --tenant/],
      [['keys', 'create', '--tenant'], /--tenant needs a value/],
      [['keys', 'create', '--tenant', '--admin'], /--tenant needs a value/],
      [['keys', 'create', '--tenant', 'not valid!'], /--tenant "not valid!" is not a valid id/],
      [['keys', 'create', '--tenant', 'acme', '--admin=yes'], /--admin does not take a value/],
      [['keys', 'create', '--tenant', 'acme', '--colour', 'red'], /unknown option --colour/],
      [['keys', 'list', 'extra'], /unexpected argument "extra"/],
      [['keys'], /"keys" needs a subcommand: create, list/],
      [['keys', 'rotate'], /missing required option --key/],
      [['keys', 'delete'], /unknown command "keys delete"/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['--colour'], /unknown option --colour/],
      [['state-at', '--session', 'trip'], /missing required option --version/],
      [['state-at', '--session', 'trip', '--version', 'two'], /--version "two" is not valid/],
      [['state-at', '--session', 'trip', '--version', '0'], /--version "0" is not valid/],
      [['events', 'export', '--session', 'a/b'], /--session "a\/b" is not a valid id/],
    ])('%j exits 2 with a one-line error and a usage hint', async (argv, message) => {
      const run = await rewind(...argv);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^rewind: /);
      expect(lines[0]).toMatch(message);
      expect(lines[1]).toMatch(/Usage: rewind|rewind help/);
      expect(existsSync(databaseFile)).toBe(false);
    });

    it('a bad environment is a usage error too', async () => {
      let stderr = '';
      const code = await runCli(['keys', 'list'], {
        stdout: { write: () => true },
        stderr: { write: (chunk: string) => (stderr += chunk) },
        env: { REWIND_DATA_DIR: dataDir, REWIND_SNAPSHOT_EVERY: 'often' },
      });
      expect(code).toBe(2);
      expect(stderr).toContain('REWIND_SNAPSHOT_EVERY');
    });
  });

  describe('help', () => {
    it.each([[[]], [['help']], [['--help']], [['-h']]])('%j prints usage listing every command and variable', async (argv) => {
      const run = await rewind(...argv);
      expect(run.code).toBe(0);
      for (const text of ['keys create', 'keys list', 'state-at', 'events export', 'REWIND_DATA_DIR']) expect(run.stdout).toContain(text);
    });

    it('per command: "rewind help keys create" and "rewind keys create --help"', async () => {
      const a = await rewind('help', 'keys', 'create');
      const b = await rewind('keys', 'create', '--help');
      expect(a.code).toBe(0);
      expect(a.stdout).toContain('Usage: rewind keys create --tenant <id>');
      expect(b.stdout).toBe(a.stdout);
    });
  });

  describe('state-at', () => {
    it('prints the state at a version, on any branch, read from the store', async () => {
      await writeTrip();
      const at = async (version: number) => {
        const run = await rewind('state-at', '--session', 'trip', '--version', String(version));
        expect(run.code).toBe(0);
        return JSON.parse(run.stdout);
      };
      expect((await at(3)).memory).toEqual({ destination: 'Paris' });
      expect((await at(4)).memory).toEqual({ destination: 'Paris', flight: 'AF1381' });
      expect(await at(4)).toMatchObject({ sessionId: 'trip', version: 4, head: 4 });
      expect((await at(6)).memory).toEqual({});
      expect((await at(7)).memory).toEqual({ destination: 'Lisbon' });
      expect((await at(2)).conversation.turns[0].messages[0].content).toBe('Plan a trip for me');
    });

    it('is scoped to a tenant', async () => {
      await writeTrip('acme');
      const other = await rewind('state-at', '--session', 'trip', '--version', '3');
      expect(other.code).toBe(1);
      expect(other.stderr).toContain('no session "trip" for tenant "default"');
      const run = await rewind('state-at', '--session', 'trip', '--version', '3', '--tenant', 'acme');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).memory).toEqual({ destination: 'Paris' });
    });

    it('a version beyond the stream fails with exit 1', async () => {
      await writeTrip();
      const run = await rewind('state-at', '--session', 'trip', '--version', '99');
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/Version 99 does not exist/);
    });
  });

  describe('events export', () => {
    it('writes every event as one JSON line, in stream order', async () => {
      await writeTrip();
      const run = await rewind('events', 'export', '--session', 'trip');
      expect(run.code).toBe(0);
      const events = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(events.map((e) => e.streamVersion)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(events.map((e) => e.type)).toEqual([
        'SessionStarted',
        'UserMessageReceived',
        'MemoryWritten',
        'MemoryWritten',
        'RollbackRequested',
        'RollbackCompleted',
        'MemoryWritten',
      ]);
      expect(events[6]).toMatchObject({
        parentVersion: 2,
        data: { key: 'destination', value: 'Lisbon' },
        metadata: { tenantId: 'default', sessionId: 'trip' },
      });
    });

    it('an unknown session fails with exit 1', async () => {
      await writeTrip();
      const run = await rewind('events', 'export', '--session', 'nope');
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('no session "nope"');
    });
  });
});
