export * from './vector-index.contract';
