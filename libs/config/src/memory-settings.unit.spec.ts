import { describe, expect, it } from 'vitest';
import { MemoryConfigError, memoryConfigFromEnv, modelFileSettings } from './memory-settings';

describe('memory configuration', () => {
  it('defaults to the embedded index and the local model, beside the event store', () => {
    expect(memoryConfigFromEnv({}, '/data')).toMatchObject({
      enabled: true,
      index: 'sqlite',
      sqliteFile: '/data/rewind.memory.db',
      embeddingModel: undefined,
      embeddingUrl: undefined,
      llmUrl: undefined,
      llmTimeoutMs: 2000,
      recencyWeight: 0,
      indexerPlacement: 'thread',
      indexerCpuShare: 0.5,
      indexerThreads: 1,
    });
    expect(memoryConfigFromEnv({ REWIND_MEMORY_INDEXER: 'process', REWIND_MEMORY_INDEXER_CPU_SHARE: '1' }, '/d')).toMatchObject({
      indexerPlacement: 'process',
      indexerCpuShare: 1,
    });
    expect(memoryConfigFromEnv({ REWIND_MEMORY_INDEXER_THREADS: '2' }, '/d').indexerThreads).toBe(2);
    expect(() => memoryConfigFromEnv({ REWIND_MEMORY_INDEXER_THREADS: '0' }, '/d')).toThrow(/REWIND_MEMORY_INDEXER_THREADS/);
  });

  it('keeps memory in the shared database with REWIND_STORE=postgres (unless told otherwise), and needs DATABASE_URL for it', () => {
    const url = 'postgres://u@127.0.0.1:5432/rewind';
    expect(memoryConfigFromEnv({ REWIND_STORE: 'postgres', DATABASE_URL: url }, '/d')).toMatchObject({
      index: 'postgres',
      postgresUrl: url,
      postgresSchema: 'rewind',
    });
    expect(memoryConfigFromEnv({ REWIND_STORE: 'postgres', DATABASE_URL: url, REWIND_PG_SCHEMA: 'other' }, '/d').postgresSchema).toBe('other');
    // Its pool is part of the connection budget: 4 by default, at least 2 (one is the indexer's lock while it indexes).
    expect(memoryConfigFromEnv({ REWIND_STORE: 'postgres', DATABASE_URL: url }, '/d').postgresPoolSize).toBe(4);
    expect(memoryConfigFromEnv({ REWIND_STORE: 'postgres', DATABASE_URL: url, REWIND_PG_MEMORY_POOL_SIZE: '2' }, '/d').postgresPoolSize).toBe(2);
    expect(() => memoryConfigFromEnv({ REWIND_STORE: 'postgres', DATABASE_URL: url, REWIND_PG_MEMORY_POOL_SIZE: '1' }, '/d')).toThrow(
      /REWIND_PG_MEMORY_POOL_SIZE/,
    );
    expect(memoryConfigFromEnv({ REWIND_STORE: 'postgres', DATABASE_URL: url, REWIND_MEMORY_INDEX: 'sqlite' }, '/d').index).toBe('sqlite');
    expect(memoryConfigFromEnv({ REWIND_STORE: 'postgres', DATABASE_URL: url, QDRANT_URL: 'http://127.0.0.1:6333' }, '/d').index).toBe('qdrant');
    expect(memoryConfigFromEnv({ DATABASE_URL: url }, '/d').index).toBe('sqlite');
    expect(() => memoryConfigFromEnv({ REWIND_MEMORY_INDEX: 'postgres' }, '/d')).toThrow(/REWIND_MEMORY_INDEX=postgres needs DATABASE_URL/);
    // The process's own configuration of its store wins over the environment given (the API's, the worker's).
    expect(memoryConfigFromEnv({}, '/d', { store: 'postgres', databaseUrl: url, pgSchema: 'x' })).toMatchObject({
      index: 'postgres',
      postgresUrl: url,
      postgresSchema: 'x',
    });
    expect(memoryConfigFromEnv({ REWIND_STORE: 'postgres', DATABASE_URL: url }, '/d', { store: 'sqlite', databaseUrl: undefined }).index).toBe('sqlite');
  });

  it('uses Qdrant when QDRANT_URL is set, and can be turned off', () => {
    expect(memoryConfigFromEnv({ QDRANT_URL: 'http://127.0.0.1:6333' }, '/d')).toMatchObject({ index: 'qdrant', qdrantUrl: 'http://127.0.0.1:6333' });
    expect(memoryConfigFromEnv({ QDRANT_URL: 'http://127.0.0.1:6333', REWIND_MEMORY_INDEX: 'sqlite' }, '/d').index).toBe('sqlite');
    expect(memoryConfigFromEnv({ REWIND_MEMORY: 'off' }, '/d').enabled).toBe(false);
    // Switches are read in any case, as before they moved to EnvReader.
    expect(memoryConfigFromEnv({ REWIND_MEMORY: 'OFF', REWIND_MEMORY_INDEXER: 'Process' }, '/d')).toMatchObject({
      enabled: false,
      indexerPlacement: 'process',
    });
  });

  it('reads the model files settings, empty meaning unset', () => {
    expect(modelFileSettings({ REWIND_MODEL_DIR: '/models', REWIND_MAVEN_REPOSITORY: 'http://mirror/maven2', REWIND_EMBEDDING_MODEL: '' })).toEqual({
      modelDir: '/models',
      mavenRepository: 'http://mirror/maven2',
      embeddingModel: undefined,
    });
    expect(memoryConfigFromEnv({ REWIND_MODEL_DIR: '/models', REWIND_EMBEDDING_MODEL: 'bge-small-zh-v15-q' }, '/d')).toMatchObject({
      modelDir: '/models',
      embeddingModel: 'bge-small-zh-v15-q',
    });
  });

  it.each([
    [{ REWIND_MEMORY: 'maybe' }, /REWIND_MEMORY="maybe" is not valid: expected one of on, off \(default on\)/],
    [{ REWIND_MEMORY_INDEX: 'faiss' }, /REWIND_MEMORY_INDEX="faiss" is not valid: expected one of sqlite, qdrant/],
    [{ REWIND_MEMORY_INDEX: 'qdrant' }, /needs QDRANT_URL/],
    [{ REWIND_LLM_URL: 'http://127.0.0.1:11434/v1' }, /REWIND_LLM_MODEL is not/],
    [{ REWIND_EMBEDDING_URL: 'https://api.example/v1' }, /REWIND_EMBEDDING_MODEL is not/],
    [{ REWIND_RERANK_URL: 'http://127.0.0.1:8000/v1' }, /REWIND_RERANK_MODEL is not/],
    [{ REWIND_LLM_TIMEOUT_MS: '10' }, /REWIND_LLM_TIMEOUT_MS="10" is not valid: expected a number from 50 to 60000 \(default 2000\)/],
    [{ REWIND_MEMORY_RECENCY_WEIGHT: '2' }, /REWIND_MEMORY_RECENCY_WEIGHT="2" is not valid/],
    [{ REWIND_MEMORY_INDEXER: 'fork' }, /REWIND_MEMORY_INDEXER="fork" is not valid: expected one of thread, process \(default thread\)/],
    [{ REWIND_MEMORY_INDEXER_CPU_SHARE: '0' }, /REWIND_MEMORY_INDEXER_CPU_SHARE="0" is not valid: expected a number from 0.05 to 1/],
  ])('refuses %j, saying what to do', (env, message) => {
    expect(() => memoryConfigFromEnv(env, '/d')).toThrow(MemoryConfigError);
    expect(() => memoryConfigFromEnv(env, '/d')).toThrow(message);
  });
});
