import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteKafkaSigningSecretStore } from '../../../libs/messaging/src/signing/sqlite-signing-secret-store';
import { runSigningKeys } from './signing-keys';
import { databaseFile } from './worker';

async function run(args: string[], dataDir: string) {
  let out = '';
  let err = '';
  const code = await runSigningKeys(
    args,
    { REWIND_DATA_DIR: dataDir },
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}

describe('signing-keys command', () => {
  it('creates a key shown once, lists it without the secret, and revokes it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-keys-'));
    const created = await run(['create', '--tenant', 'acme', '--name', 'orders agent'], dataDir);
    expect(created.code).toBe(0);
    const keyId = /keyId: +(sk_[0-9a-f]{12})/.exec(created.out)![1]!;
    const secret = /secret: +(\S+)/.exec(created.out)![1]!;
    const store = new SqliteKafkaSigningSecretStore(databaseFile(dataDir));
    expect(await store.find(keyId)).toMatchObject({ tenantId: 'acme', secret, name: 'orders agent' });

    const listed = await run(['list'], dataDir);
    expect(listed.out).toContain(`${keyId}  tenant=acme`);
    expect(listed.out).not.toContain(secret);

    expect((await run(['revoke', keyId], dataDir)).code).toBe(0);
    expect(await store.find(keyId)).toBeNull();
    await store.close();
  });

  it('explains what is missing or wrong', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-keys-'));
    expect(await run(['create'], dataDir)).toMatchObject({ code: 2, err: expect.stringContaining('--tenant') });
    expect(await run(['create', '--tenant', 'bad tenant'], dataDir)).toMatchObject({ code: 2, err: expect.stringContaining('not a valid tenant id') });
    expect(await run(['revoke', 'sk_000000000000'], dataDir)).toMatchObject({ code: 1, err: expect.stringContaining('No signing key') });
    expect(await run(['rotate'], dataDir)).toMatchObject({ code: 2, err: expect.stringContaining('Unknown subcommand "rotate"') });
  });
});
