import { existsSync } from 'node:fs';
import { PostgresVectorIndex } from '../postgres/postgres-vector-index';
import { QdrantVectorIndex } from '../qdrant';
import { SqliteVectorIndex } from '../sqlite-vec';
import type { MemoryScope } from '../vector-index';
import type { MemoryConfig } from './memory-config';

/**
 * Removes a shredded session's (or tenant's) items from the configured memory index, for a
 * process that does not run memory itself (the CLI, or the API with REWIND_MEMORY=off): an
 * index written earlier still holds their text. Loads no model; creates no index file.
 */
export async function shredMemoryIndex(config: MemoryConfig, scope: MemoryScope): Promise<number> {
  if (config.index === 'sqlite' && !existsSync(config.sqliteFile)) return 0;
  const index =
    config.index === 'qdrant'
      ? new QdrantVectorIndex({ url: config.qdrantUrl!, ...(config.qdrantApiKey ? { apiKey: config.qdrantApiKey } : {}) })
      : config.index === 'postgres'
        ? new PostgresVectorIndex({ connectionString: config.postgresUrl!, schema: config.postgresSchema, poolSize: 1 })
        : new SqliteVectorIndex({ filename: config.sqliteFile });
  try {
    return await index.shredScope(scope);
  } finally {
    await index.close();
  }
}
