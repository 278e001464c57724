export * from './key-provider';
export * from './data-key-store';
export * from './field-encryption';
export * from './encryption-policy';
export * from './retention-policy';
export * from './unreadable-fields';
