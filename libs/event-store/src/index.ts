export * from './event-store';
export * from './metadata-codec';
export * from './idempotency-key';
export * from './audit';
export * from './snapshot-pruning';
