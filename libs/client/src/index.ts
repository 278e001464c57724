export * from './rewind-client';
export * from './rewind-error';
export { DEFAULT_RETRY_POLICY, retryAfterMs, type RetryPolicy } from './retrying-fetch';
export type { components, operations, paths } from './generated/openapi';
export * from './live';
