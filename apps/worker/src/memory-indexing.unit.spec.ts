import { describe, expect, it } from 'vitest';
import { memoryGroupId } from './memory-indexing';

describe('memoryGroupId (the consumer group the memory indexer reads rewind.events in)', () => {
  it('a shared index (Qdrant, PostgreSQL): one group for every worker, so they split the partitions', () => {
    expect(memoryGroupId({ REWIND_WORKER_ID: 'worker-0' }, 'qdrant')).toBe('rewind-memory-indexer');
    expect(memoryGroupId({ REWIND_WORKER_ID: 'worker-0' }, 'postgres')).toBe('rewind-memory-indexer');
  });

  it('a local index: a group per worker identity, so each worker reads every partition', () => {
    expect(memoryGroupId({ REWIND_WORKER_ID: 'worker-0' }, 'sqlite')).toBe('rewind-memory-indexer.worker-0');
    expect(memoryGroupId({ REWIND_WORKER_ID: 'worker-1' }, 'sqlite')).toBe('rewind-memory-indexer.worker-1');
    expect(memoryGroupId({}, 'sqlite')).toBe('rewind-memory-indexer');
  });

  it('KAFKA_MEMORY_GROUP_ID, when set, wins', () => {
    expect(memoryGroupId({ KAFKA_MEMORY_GROUP_ID: 'mine', REWIND_WORKER_ID: 'worker-0' }, 'sqlite')).toBe('mine');
  });
});
