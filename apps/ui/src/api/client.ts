import type { ErrorDetail } from './types';

const KEY = 'rewind.apiKey';

/** The API key lives in session storage only: closing the tab signs out. */
export const apiKeyStore = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (key: string): void => sessionStorage.setItem(KEY, key),
  clear: (): void => sessionStorage.removeItem(KEY),
};

/** An answer in the documented error shape `{error: {code, message, details[]}}`. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'ApiProblem';
  }
}

const listeners = new Set<() => void>();
/** Called when the server refuses the key (401): the app goes back to sign-in. */
export function onUnauthorized(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function api<T>(method: string, path: string, body?: unknown, key: string | null = apiKeyStore.get()): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiProblem(0, 'unreachable', 'The Rewind server did not answer: check that it is running, then try again.');
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = (json as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | null)?.error;
    const problem = new ApiProblem(
      response.status,
      error?.code ?? `http_${response.status}`,
      error?.message ?? `The server answered ${response.status} ${response.statusText} without an explanation.`,
      error?.details ?? [],
    );
    if (response.status === 401) listeners.forEach((listener) => listener());
    throw problem;
  }
  return json as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body);

/** Builds a query string from the defined values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const sessionPath = (sessionId: string) => `/v1/sessions/${encodeURIComponent(sessionId)}`;
