import type { FastifyReply, FastifyRequest, preSerializationHookHandler } from 'fastify';
import type { Caller } from '@rewind/engine';
import type { FieldEncryption } from '@rewind/tenancy';

/**
 * Encryption at the edge, on the way out: every JSON answer is decrypted for the caller's tenant
 * (a shredded value reads "[shredded]"). A Fastify preSerialization hook, not a Nest interceptor
 * (see EncryptRequestFieldsGuard for why); an answer holding no ciphertext — every answer of a
 * tenant that encrypts nothing — passes after one walk, with no promise and no key lookup.
 */
export function decryptAnswers(encryption: FieldEncryption): preSerializationHookHandler {
  return (request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => {
    const caller = (request as FastifyRequest & { caller?: Caller }).caller;
    if (!caller || !encryption.holdsCiphertext(payload)) return done(null, payload);
    encryption.decryptDeep(caller.tenantId, payload).then(
      (decrypted) => done(null, decrypted),
      (error: Error) => done(error),
    );
  };
}
