import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { vectorIndexContract } from '../testing';
import { pointId, QdrantVectorIndex } from './qdrant-vector-index';

const url = process.env.QDRANT_URL;

if (url) {
  // Each test gets its own collection prefix, dropped by close() below.
  vectorIndexContract(`QdrantVectorIndex on ${url}`, async () => {
    const index = new QdrantVectorIndex({ url, collectionPrefix: `rewind_test_${randomUUID().slice(0, 8)}` });
    const close = index.close.bind(index);
    index.close = async () => {
      await index.drop();
      await close();
    };
    return index;
  });
} else {
  describe.skip('QdrantVectorIndex contract: skipped because QDRANT_URL is not set (no Qdrant server on this machine; `docker compose up qdrant` and QDRANT_URL=http://127.0.0.1:6333 run it)', () => {
    it('runs the vector index contract against a real Qdrant', () => {});
  });
}

describe('Qdrant point ids', () => {
  it('are UUIDs derived from the item id: the same item always lands on the same point', () => {
    expect(pointId('event-1:0')).toBe(pointId('event-1:0'));
    expect(pointId('event-1:0')).not.toBe(pointId('event-1:1'));
    expect(pointId('event-1:0')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
