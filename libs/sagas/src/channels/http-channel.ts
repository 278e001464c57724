import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { JsonValue } from '@rewind/domain';
import type { CompensationChannel, CompensationRequest, CompensationResult } from '../compensation-channel';
import { parseRetryAfter } from '../retry-policy';
import { EgressRefused, EgressRules, STRICT_EGRESS, type EgressPolicy } from './egress-policy';

const MAX_REDIRECTS = 5;

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: JsonValue;
}

function parseBody(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/**
 * POSTs the filled payload to the filled URL with an `Idempotency-Key` header.
 * 2xx: applied. 408, 429, 5xx and network errors: retryable (Retry-After honoured).
 * Any other 4xx: permanent — the compensator refused. The egress policy decides which
 * addresses may be reached (checked on the resolved address the socket connects to), whether
 * redirects are followed, and how much of the answer is read and recorded.
 */
export class HttpCompensationChannel implements CompensationChannel {
  readonly name = 'http' as const;
  private readonly rules: EgressRules;

  constructor(policy: EgressPolicy = STRICT_EGRESS) {
    this.rules = new EgressRules(policy);
  }

  async send(request: CompensationRequest): Promise<CompensationResult> {
    const payload = JSON.stringify(request.payload ?? {});
    let url = request.target;
    let method = 'POST';
    let answer: Answer;
    const deadline = AbortSignal.timeout(request.timeoutMs);
    for (let hop = 0; ; hop++) {
      try {
        answer = await this.post(url, method, method === 'POST' ? payload : undefined, request, deadline);
      } catch (error) {
        if (error instanceof EgressRefused) return { status: 'failed', retryable: false, error: `${method} ${url} refused: ${error.message}` };
        const e = error as Error & { code?: string };
        const reason = deadline.aborted ? `no answer within ${request.timeoutMs} ms` : (e.code ?? e.message);
        return { status: 'failed', retryable: true, error: `${method} ${url} failed: ${reason}` };
      }
      const location = answer.headers.location;
      if (answer.status < 300 || answer.status >= 400 || !location) break;
      if (!this.rules.policy.followRedirects || hop >= MAX_REDIRECTS) {
        const why = this.rules.policy.followRedirects ? `more than ${MAX_REDIRECTS} redirects` : 'redirects are not followed (REWIND_EGRESS_FOLLOW_REDIRECTS)';
        return { status: 'failed', retryable: false, error: `${method} ${url} answered ${answer.status} to ${location}: ${why}` };
      }
      url = new URL(location, url).toString();
      if (answer.status !== 307 && answer.status !== 308) method = 'GET';
    }
    const body = this.rules.policy.recordBodies ? answer.body : null;
    if (answer.status >= 200 && answer.status < 300) return { status: 'applied', response: { status: answer.status, body } };
    const retryable = answer.status === 408 || answer.status === 429 || answer.status >= 500;
    const retryAfter = answer.headers['retry-after'];
    const retryAfterMs = parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : null);
    const shown = body === null ? '' : `: ${typeof body === 'string' ? body : JSON.stringify(body)}`;
    return {
      status: 'failed',
      retryable,
      error: `${method} ${url} answered ${answer.status}${shown}`.slice(0, 2000),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }

  private post(target: string, method: string, payload: string | undefined, request: CompensationRequest, signal: AbortSignal): Promise<Answer> {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return Promise.reject(new EgressRefused(`"${target}" is not a URL`));
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new EgressRefused(`${url.protocol} is not http: or https:`));
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    // An address literal is never looked up: check it here. A name is checked by the lookup, on the address connected to.
    if (isIP(host) !== 0 && !this.rules.hostAllowed(host)) {
      try {
        this.rules.checkAddress(host, host);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const limit = this.rules.policy.maxResponseBytes;
    // The call's own client span, and its traceparent for the compensator: node:http is not
    // instrumented where modules are loaded outside require (tests, bundles), as fetch was.
    // Where it is (the API and the worker run by node), the request is sent with tracing
    // suppressed, so that the HTTP instrumentation adds no second client span (nor its own traceparent).
    const span = trace.getTracer('rewind-sagas').startSpan(method, {
      kind: SpanKind.CLIENT,
      attributes: { 'http.request.method': method, 'server.address': host, 'url.path': url.pathname },
    });
    const traceHeaders: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), traceHeaders);
    const answer = new Promise<Answer>((resolve, reject) => {
      const req = context.with(suppressTracing(context.active()), () =>
        send(
          url,
          {
            method,
            signal,
            lookup: this.rules.lookup as never,
            headers: {
              'content-type': 'application/json',
              'idempotency-key': request.idempotencyKey,
              'x-rewind-rollback-id': request.rollbackId,
              'x-rewind-tool-call-id': request.toolCallId,
              ...traceHeaders,
              ...(payload !== undefined ? { 'content-length': Buffer.byteLength(payload) } : {}),
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            let size = 0;
            const done = () =>
              resolve({ status: response.statusCode ?? 0, headers: response.headers, body: parseBody(Buffer.concat(chunks).toString('utf8')) });
            response.on('data', (chunk: Buffer) => {
              if (size >= limit) return;
              chunks.push(chunk.subarray(0, limit - size));
              size += chunk.length;
              if (size >= limit) {
                // Enough recorded: stop reading a large answer rather than buffer it.
                response.destroy();
                done();
              }
            });
            response.on('end', done);
            response.on('error', (error) => (size >= limit ? done() : reject(error)));
          },
        ),
      );
      req.on('error', reject);
      req.end(payload);
    });
    return answer.then(
      (result) => {
        span.setAttribute('http.response.status_code', result.status);
        if (result.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        return result;
      },
      (error: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        span.end();
        throw error;
      },
    );
  }
}
