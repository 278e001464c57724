export * from './vector-index.contract';
export * from './memory-fixture';
