import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { SessionQueries, type Caller } from '@rewind/engine';
import { FieldEncryptionError, type FieldEncryption } from '@rewind/tenancy';
import { ApiError } from '../common/api-error';
import { PolicyCache } from './policy-cache';
import { policyPaths } from './policy-paths';
import { FIELD_ENCRYPTION } from './tokens';

export const ENCRYPT_HEADER = 'rewind-encrypt';

/**
 * Encryption at the edge, on the way in: a write's `Rewind-Encrypt: input.ssn, output.card`
 * header names body fields to encrypt with the session's data key before anything is stored,
 * and so do the tenant's policies (a tool's input and output paths, a memory key). Answers are
 * decrypted on the way out by `decryptAnswers` (a Fastify onSend hook).
 *
 * A guard rather than an interceptor: it runs after ApiKeyGuard (registered after it, it sees
 * the caller) and before any pipe, like an interceptor would, but Nest wraps every interceptor of
 * every request in an AsyncResource and an rxjs chain, which cost ~8 % of the API's CPU under
 * load when no tenant encrypted anything (issue 17). It never refuses: it answers true or throws.
 */
@Injectable()
export class EncryptRequestFieldsGuard implements CanActivate {
  constructor(
    @Inject(FIELD_ENCRYPTION) private readonly encryption: FieldEncryption,
    private readonly policies: PolicyCache,
    private readonly sessions: SessionQueries,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest();
    const caller: Caller | undefined = request.caller;
    if (!caller) return true;
    const header: string | string[] | undefined = request.headers[ENCRYPT_HEADER];
    const sessionId: unknown = request.params?.id ?? (request.body as { sessionId?: unknown } | undefined)?.sessionId;
    if (header !== undefined && (typeof sessionId !== 'string' || request.method === 'GET')) {
      throw new ApiError(400, 'validation_failed', 'Rewind-Encrypt applies to the writes of a session (a body with fields to encrypt, under /v1/sessions).', [
        { field: ENCRYPT_HEADER, message: 'not applicable to this request' },
      ]);
    }
    if (request.method === 'GET' || typeof sessionId !== 'string') return true;
    const paths = header === undefined ? [] : namedPaths(header);
    const declared = await policyPaths(request.routeOptions?.url, request.params ?? {}, request.body, await this.policies.get(caller.tenantId), (callId) =>
      this.toolOfCall(caller, sessionId, callId),
    );
    if (paths.length + declared.length === 0) return true;
    try {
      request.body = await this.encryption.encryptPaths(caller.tenantId, sessionId, request.body, paths, declared);
    } catch (error) {
      if (!(error instanceof FieldEncryptionError)) throw error;
      throw error.reason === 'shredded'
        ? new ApiError(409, 'session_shredded', error.message)
        : new ApiError(400, 'validation_failed', error.message, [{ field: ENCRYPT_HEADER, message: 'names a field the body does not have' }]);
    }
    return true;
  }

  /** The tool of an earlier call of the session; null when the session or the call is unknown (the command will say so). */
  private toolOfCall(caller: Caller, sessionId: string, callId: string): Promise<string | null> {
    return this.sessions.toolOfCall(caller, sessionId, callId).catch(() => null);
  }
}

/** `Rewind-Encrypt: input.ssn, output.card` (one header or several) as a list of paths. */
function namedPaths(header: string | string[]): string[] {
  return [header]
    .flat()
    .join(',')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}
