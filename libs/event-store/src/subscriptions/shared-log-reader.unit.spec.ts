import { describe, expect, it } from 'vitest';
import { type ReadAllOptions } from '../event-store';
import { InMemoryEventStore } from '../in-memory';
import { SharedLogReader } from './shared-log-reader';

function countingStore() {
  const store = new InMemoryEventStore();
  const reads: ReadAllOptions[] = [];
  const readAll = store.readAll.bind(store);
  store.readAll = (options) => {
    reads.push(options);
    return readAll(options);
  };
  const append = (n: number) =>
    store.append(
      `session:t:s`,
      Array.from({ length: n }, (_, i) => ({
        eventId: `e-${Math.random()}-${i}`,
        type: 'MemoryWritten',
        data: { key: 'k', value: i },
        parentVersion: null,
        metadata: {
          tenantId: 't',
          sessionId: 's',
          commandId: 'c',
          causationId: null,
          correlationId: 'c',
          actor: 'a',
          occurredAt: new Date(0).toISOString(),
          schemaVersion: 1,
        },
      })),
      { expectedVersion: 'any' },
    );
  return { store, reads, append };
}

describe('SharedLogReader', () => {
  it('answers runners waiting at the same position with one read', async () => {
    const { store, reads, append } = countingStore();
    await append(5);
    const reader = new SharedLogReader(store);
    const pages = await Promise.all(Array.from({ length: 6 }, () => reader.read(0, 100)));
    expect(reads).toHaveLength(1);
    for (const page of pages) expect(page.map((e) => e.streamVersion)).toEqual([1, 2, 3, 4, 5]);
  });

  it('answers a smaller read at the same position from a larger page, and reads for a larger one', async () => {
    const { store, reads, append } = countingStore();
    await append(5);
    const reader = new SharedLogReader(store);
    const [large, small] = await Promise.all([reader.read(0, 100), reader.read(0, 3)]);
    expect(reads).toHaveLength(1);
    expect(large.map((e) => e.streamVersion)).toEqual([1, 2, 3, 4, 5]);
    expect(small.map((e) => e.streamVersion)).toEqual([1, 2, 3]);
    expect(await reader.read(0, 200)).toHaveLength(5);
    expect(reads).toHaveLength(2);
  });

  it('keeps a full page for good, and reads a short page again once it may have grown', async () => {
    const { store, reads, append } = countingStore();
    await append(3);
    const reader = new SharedLogReader(store, { shortPageMs: 0 });
    expect(await reader.read(0, 2)).toHaveLength(2); // full
    expect(await reader.read(0, 2)).toHaveLength(2);
    expect(reads).toHaveLength(1);

    const last = (await reader.read(0, 2))[1]!.globalPosition;
    expect(await reader.read(last, 2)).toHaveLength(1); // short: the log ends here
    await append(4);
    await new Promise((resolve) => setTimeout(resolve, 2));
    expect(await reader.read(last, 2)).toHaveLength(2); // read again: it grew
    expect(reads).toHaveLength(3);
  });

  it('does not keep a failed read', async () => {
    const { store, reads, append } = countingStore();
    await append(1);
    const readAll = store.readAll;
    store.readAll = () => Promise.reject(new Error('database went away'));
    const reader = new SharedLogReader(store);
    await expect(reader.read(0, 10)).rejects.toThrow('database went away');
    store.readAll = readAll;
    expect(await reader.read(0, 10)).toHaveLength(1);
    expect(reads).toHaveLength(1);
  });
});
