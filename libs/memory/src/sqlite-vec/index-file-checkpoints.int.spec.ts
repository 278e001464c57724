import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointStore } from '@rewind/event-store/subscriptions';
import { axisVector, memoryItem, useTempIndexFile } from '../testing';
import { IndexFileCheckpoints } from './index-file-checkpoints';
import { SqliteVectorIndex } from './sqlite-vector-index';

describe('IndexFileCheckpoints (the indexer checkpoint inside the local index file)', () => {
  const file = useTempIndexFile();

  async function indexWithOneItem(): Promise<void> {
    const index = new SqliteVectorIndex({ filename: file.filename });
    await index.open({ id: 'model-a', dimensions: 8 });
    await index.upsert([{ item: memoryItem({ id: 'a:0', text: 'hotel in Lisbon' }), vector: axisVector(8, 1) }]);
    await index.close();
  }

  it('a fresh index file starts at 0 whatever the shared store says, and keeps its own progress across reopening', async () => {
    const shared = new InMemoryCheckpointStore();
    await shared.save('memory-indexer', 40);
    const checkpoints = new IndexFileCheckpoints(file.filename, shared);
    expect(await checkpoints.load('memory-indexer')).toBe(0);
    await checkpoints.save('memory-indexer', 7);
    await checkpoints.save('memory-indexer', 5); // never moves back
    await checkpoints.close();
    const again = new IndexFileCheckpoints(file.filename, shared);
    expect(await again.load('memory-indexer')).toBe(7);
    await again.close();
    expect(await shared.load('memory-indexer')).toBe(40);
  });

  it('upgrade: an index written before (items, no checkpoint of its own) adopts the shared position once, then goes its own way', async () => {
    await indexWithOneItem();
    const shared = new InMemoryCheckpointStore();
    await shared.save('memory-indexer', 40);
    const inspector = new IndexFileCheckpoints(file.filename, shared);
    expect(await inspector.peek('memory-indexer')).toBe(40);
    await inspector.close();
    await shared.save('memory-indexer', 41); // peek recorded nothing: load adopts what the shared store says now
    const checkpoints = new IndexFileCheckpoints(file.filename, shared);
    expect(await checkpoints.load('memory-indexer')).toBe(41);
    await shared.save('memory-indexer', 90); // another process moving the shared one no longer matters
    expect(await checkpoints.load('memory-indexer')).toBe(41);
    await checkpoints.save('memory-indexer', 45);
    await checkpoints.close();
    const again = new IndexFileCheckpoints(file.filename, shared);
    expect(await again.load('memory-indexer')).toBe(45);
    await again.close();
  });

  it('without a shared store an old index starts at 0 (items are upserted by event id: a replay writes nothing new)', async () => {
    await indexWithOneItem();
    const checkpoints = new IndexFileCheckpoints(file.filename);
    expect(await checkpoints.load('memory-indexer')).toBe(0);
    await checkpoints.close();
  });
});
