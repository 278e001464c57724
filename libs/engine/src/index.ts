export * from './stream-id';
export * from './keyed-mutex';
export * from './fingerprint';
export * from './lru-cache';
export * from './session-repository';
export * from './session-service';
export * from './tool-registry';
export * from './snapshot-segments';
