import { InMemoryCheckpointStore } from '@rewind/event-store/subscriptions';
import { describe, expect, it } from 'vitest';
import { ModelCheckpoints } from './model-checkpoints';

describe('the memory indexer’s position, per embedding model', () => {
  const model = (id: string, items: boolean) => async () => ({ id, holdsItems: async () => items });

  it('a model whose index is new reads the log from the start, whatever another model reached', async () => {
    const inner = new InMemoryCheckpointStore();
    await inner.save('memory-indexer', 900); // written by MiniLM before positions were kept per model
    const e5 = new ModelCheckpoints(inner, model('e5-small-v2-q+bge-small-zh-v15-q', false));
    expect(await e5.load('memory-indexer')).toBe(0);
    await e5.save('memory-indexer', 40);
    expect(await e5.load('memory-indexer')).toBe(40);
    expect(await inner.load('memory-indexer')).toBe(900); // the other model's position stays its own
  });

  it('a model whose index holds items adopts the position kept under the plain name once, then keeps its own', async () => {
    const inner = new InMemoryCheckpointStore();
    await inner.save('memory-indexer', 900);
    const minilm = new ModelCheckpoints(inner, model('all-minilm-l6-v2-q', true));
    expect(await minilm.load('memory-indexer')).toBe(900);
    await minilm.save('memory-indexer', 950);
    expect(await minilm.load('memory-indexer')).toBe(950);
    expect(await inner.load('memory-indexer@all-minilm-l6-v2-q')).toBe(950);
  });

  it('switching back and forth resumes each model where it stopped', async () => {
    const inner = new InMemoryCheckpointStore();
    const a = new ModelCheckpoints(inner, model('a', true));
    const b = new ModelCheckpoints(inner, model('b', true));
    await a.save('memory-indexer', 10);
    await b.save('memory-indexer', 25);
    await a.save('memory-indexer', 30);
    expect([await a.load('memory-indexer'), await b.load('memory-indexer')]).toEqual([30, 25]);
  });
});
