export * from './contract-items';
export * from './vector-index.contract';
export * from './memory-fixture';
export * from './raw-index-bytes';
export * from './temp-index-file';
