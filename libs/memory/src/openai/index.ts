export * from './openai-embedding-model';
