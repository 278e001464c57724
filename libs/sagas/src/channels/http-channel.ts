import type { JsonValue } from '@rewind/domain';
import type { CompensationChannel, CompensationRequest, CompensationResult } from '../compensation-channel';
import { parseRetryAfter } from '../retry-policy';

const MAX_RECORDED_BODY = 10_000;

async function readBody(response: Response): Promise<JsonValue> {
  const text = (await response.text()).slice(0, MAX_RECORDED_BODY);
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/**
 * POSTs the filled payload to the filled URL with an `Idempotency-Key` header.
 * 2xx: applied. 408, 429, 5xx and network errors: retryable (Retry-After honoured).
 * Any other 4xx: permanent — the compensator refused.
 */
export class HttpCompensationChannel implements CompensationChannel {
  readonly name = 'http' as const;

  async send(request: CompensationRequest): Promise<CompensationResult> {
    let response: Response;
    try {
      response = await fetch(request.target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': request.idempotencyKey,
          'x-rewind-rollback-id': request.rollbackId,
          'x-rewind-tool-call-id': request.toolCallId,
        },
        body: JSON.stringify(request.payload ?? {}),
        signal: AbortSignal.timeout(request.timeoutMs),
      });
    } catch (error) {
      const e = error as Error & { cause?: { code?: string } };
      const reason = e.name === 'TimeoutError' ? `no answer within ${request.timeoutMs} ms` : (e.cause?.code ?? e.message);
      return { status: 'failed', retryable: true, error: `POST ${request.target} failed: ${reason}` };
    }
    const body = await readBody(response);
    if (response.ok) return { status: 'applied', response: { status: response.status, body } };
    const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    return {
      status: 'failed',
      retryable,
      error: `POST ${request.target} answered ${response.status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`.slice(0, 2000),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
}
