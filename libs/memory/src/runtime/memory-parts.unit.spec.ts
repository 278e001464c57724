import { describe, expect, it } from 'vitest';
import { LanguageRoutedEmbeddingModel, LanguageSpacesIndex } from '../language';
import { OnnxEmbeddingModel } from '../onnx';
import { SqliteVectorIndex } from '../sqlite-vec';
import { memoryConfigFromEnv } from './memory-config';
import { PostgresVectorIndex } from '../postgres/postgres-vector-index';
import { embeddingModelFor, modelFusion, routesByLanguage, sharedPostgresIndex, threadPoolSize, vectorIndexFor } from './memory-parts';

describe('language routing from configuration', () => {
  it('routes by language with the defaults, and not once REWIND_EMBEDDING_MODEL names a model (today’s meaning: one model for everything)', async () => {
    const defaults = { ...memoryConfigFromEnv({}, '/d'), sqliteFile: ':memory:' };
    expect(routesByLanguage(defaults)).toBe(true);
    expect(embeddingModelFor(defaults)).toBeInstanceOf(LanguageRoutedEmbeddingModel);
    const routed = vectorIndexFor(defaults);
    expect(routed).toBeInstanceOf(LanguageSpacesIndex);
    await routed.close();

    for (const env of [{ REWIND_EMBEDDING_MODEL: 'all-minilm-l6-v2-q' }, { REWIND_EMBEDDING_MODEL: 'bge-small-zh-v15-q' }]) {
      const named = { ...memoryConfigFromEnv(env, '/d'), sqliteFile: ':memory:' };
      expect(routesByLanguage(named)).toBe(false);
      const model = embeddingModelFor(named);
      expect(model).toBeInstanceOf(OnnxEmbeddingModel);
      expect((model as OnnxEmbeddingModel).spec.id).toBe(env.REWIND_EMBEDDING_MODEL);
      const index = vectorIndexFor(named);
      expect(index).toBeInstanceOf(SqliteVectorIndex);
      await index.close();
    }
    expect(routesByLanguage({ embeddingUrl: 'https://api.example/v1', embeddingModel: 'text-embedding-3-small' })).toBe(false);
  });

  it('routes by language on the PostgreSQL index too (REWIND_STORE=postgres’s default), for the deployment’s indexer and every thread’s index', async () => {
    const env = { REWIND_STORE: 'postgres', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const defaults = memoryConfigFromEnv(env, '/d');
    expect(defaults.index).toBe('postgres');
    // Nothing connects until open(): the pool is made on first use.
    for (const index of [vectorIndexFor(defaults), sharedPostgresIndex(defaults).index]) {
      expect(index).toBeInstanceOf(LanguageSpacesIndex);
      await index.close();
    }
    const named = memoryConfigFromEnv({ ...env, REWIND_EMBEDDING_MODEL: 'e5-small-v2-q' }, '/d');
    const single = vectorIndexFor(named);
    expect(single).toBeInstanceOf(PostgresVectorIndex);
    await single.close();
  });
});

describe('recall fusion from configuration', () => {
  it('gives e5 its own dense weight (named, or as the default English model), and leaves MiniLM and hosted models on the default fusion', () => {
    expect(modelFusion({ embeddingModel: 'e5-small-v2-q' })).toEqual({ fusion: { method: 'convex', denseWeight: 0.6 } });
    expect(modelFusion({})).toEqual({ fusion: { method: 'convex', denseWeight: 0.6 } });
    expect(modelFusion({ embeddingModel: 'all-minilm-l6-v2-q' })).toEqual({});
    expect(modelFusion({ embeddingUrl: 'https://api.example/v1', embeddingModel: 'e5-small-v2-q' })).toEqual({});
  });
});

describe('the PostgreSQL index’s connections (the connection budget)', () => {
  it('gives each memory thread half the process’s memory pool, at least one', () => {
    expect(threadPoolSize({ postgresPoolSize: 4 })).toBe(2);
    expect(threadPoolSize({ postgresPoolSize: 2 })).toBe(1);
    expect(threadPoolSize({ postgresPoolSize: 3 })).toBe(1);
    expect(threadPoolSize({ postgresPoolSize: 10 })).toBe(5);
  });
});
