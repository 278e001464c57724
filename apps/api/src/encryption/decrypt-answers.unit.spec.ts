import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ENCRYPTED_PREFIX, FieldEncryption, MasterKeyProvider, SHREDDED_VALUE } from '@rewind/tenancy';
import { SqliteDataKeyStore } from '@rewind/tenancy/sqlite';
import { decryptAnswers } from './decrypt-answers';

const dir = mkdtempSync(join(tmpdir(), 'rewind-decrypt-answers-'));
const keys = new SqliteDataKeyStore(join(dir, 'rewind.db'));
const encryption = new FieldEncryption(keys, new MasterKeyProvider(randomBytes(32)), 0);
type Done = (error: Error | null, payload?: unknown) => void;
const hook = decryptAnswers(encryption) as unknown as (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done) => void;

/** The hook's answer for `payload`, sent to `tenantId` (null: a public route, no caller). */
function send(payload: unknown, tenantId: string | null): Promise<unknown> {
  const request = (tenantId === null ? {} : { caller: { tenantId, actor: 'test' } }) as unknown as FastifyRequest;
  return new Promise(
    (resolve, reject) =>
      void hook.call(undefined as never, request, {} as FastifyReply, payload, (error: Error | null, out?: unknown) => (error ? reject(error) : resolve(out))),
  );
}

afterAll(async () => {
  await keys.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('decryptAnswers (the onSend hook)', () => {
  it('sends an answer without ciphertext as it is, the very string (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const payload = JSON.stringify({ value, note: `mentions ${ENCRYPTED_PREFIX} in passing` });
        expect(await send(payload, 't')).toBe(payload);
      }),
      { numRuns: 200 },
    );
  });

  it("decrypts the caller's values, shows another tenant's as shredded, and leaves public answers and non-strings alone", async () => {
    const body = (await encryption.encryptPaths('t', 's', { secret: { card: '4111' }, plain: 1 }, ['secret'])) as { secret: string };
    const payload = JSON.stringify({ state: body });
    expect(JSON.parse((await send(payload, 't')) as string)).toEqual({ state: { secret: { card: '4111' }, plain: 1 } });
    expect(JSON.parse((await send(payload, 'other')) as string)).toEqual({ state: { secret: SHREDDED_VALUE, plain: 1 } });
    expect(await send(payload, null)).toBe(payload);
    const buffer = Buffer.from(payload);
    expect(await send(buffer, 't')).toBe(buffer);
  });

  it('answers exactly what parsing, decrypting and serialising again would, without doing it (property)', async () => {
    const sealed = (await encryption.encryptPaths('t', 's', { a: { card: '4111' }, b: 'x"y', c: [1, null] }, ['a', 'b', 'c'])) as Record<string, string>;
    const ciphertexts = Object.values(sealed);
    const withCiphertexts = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        fc.constantFrom(...ciphertexts),
        fc.constantFrom(...ciphertexts).map((c) => `quoted ${JSON.stringify(c)} in a sentence`),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.oneof(fc.string(), fc.constantFrom(...ciphertexts)), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    await fc.assert(
      fc.asyncProperty(withCiphertexts, fc.constantFrom('t', 'other'), async (value, tenantId) => {
        const payload = JSON.stringify({ value });
        const expected = JSON.stringify(await encryption.decryptDeep(tenantId, JSON.parse(payload)));
        expect(await send(payload, tenantId)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });
});
