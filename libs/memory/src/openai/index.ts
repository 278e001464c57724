export * from './openai-embedding-model';
export * from './openai-rewriter';
