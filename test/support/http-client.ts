import { responseValidator } from './openapi-validator';

/**
 * A tiny JSON client for tests and scripts: every call returns status, headers and parsed body.
 * Every answer is checked against the OpenAPI document (docs/openapi.json): a status it does not
 * list, or a body that does not match that status's schema, fails the request (and the test).
 */
export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export type Http = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<HttpResponse>;

export interface HttpClientOptions {
  /** Check answers against the OpenAPI document (default: under vitest; benchmarks measure the server, not the check). */
  validate?: boolean;
}

export function httpClient(baseUrl: string, apiKey?: string, options: HttpClientOptions = {}): Http {
  const validator = (options.validate ?? process.env.VITEST !== undefined) ? responseValidator() : null;
  return async (method, path, body, headers = {}) => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // keep the raw text (e.g. HTML docs)
    }
    const mismatch = validator?.check(method, path, response.status, response.headers.get('content-type'), parsed);
    if (mismatch) throw new Error(mismatch);
    return { status: response.status, headers: response.headers, body: parsed };
  };
}
