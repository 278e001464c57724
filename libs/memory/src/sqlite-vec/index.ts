export * from './sqlite-vector-index';
export * from './sqlite-policy-store';
export * from './index-file-checkpoints';
export * from './index-file-holders';
