export * from './openai-embedding-model';
export * from './openai-rewriter';
export * from './openai-reranker';
