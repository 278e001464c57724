export * from './rewind-config';
export * from './env-reader';
export * from './store-choice';
export * from './workspace-settings';
export * from './logger';
export * from './memory-settings';
export * from './egress-settings';
export * from './trust-proxy';
