export * from './audit-chain';
export * from './seal-store';
export * from './audit-log';
export * from './audit-sealer';
export * from './snapshot-rejections';
export * from './snapshot-keys';
