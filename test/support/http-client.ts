/** A tiny JSON client for tests and scripts: every call returns status, headers and parsed body. */
export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export type Http = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<HttpResponse>;

export function httpClient(baseUrl: string, apiKey?: string): Http {
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
    return { status: response.status, headers: response.headers, body: parsed };
  };
}
