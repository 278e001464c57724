export * from './qdrant-vector-index';
