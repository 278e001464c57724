// The memory port and its core (no adapter): items, filter, chunking, ports, indexer, recall, rewriter, policy.
// Adapters: @rewind/memory/sqlite-vec, /qdrant, /onnx, /openai; the contract suite: @rewind/memory/testing.
export * from './low-information';
export * from './chunking';
export * from './memory-item';
export * from './search-tokens';
export * from './embedding-model';
export * from './vector-index';
export * from './memory-policy';
export * from './session-paths';
export * from './engine-session-paths';
export * from './query-rewriter';
export * from './deterministic-rewriter';
export * from './recall';
export * from './recall-diversity';
export * from './recall-speaker';
export * from './recall-question';
export * from './recall-temporal';
export * from './recall-expansion';
export * from './recall-decomposition';
export * from './query-decomposer';
export * from './everyday-words';
export * from './memory-item-writer';
export * from './memory-indexer';
export * from './machine-load';
export * from './turn-context';
export * from './reranker';
export * from './language';
