import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { newEvent } from '@rewind/event-store/testing';
import { meteredEventStore, registerStoreMetrics } from './metered-event-store';

async function valueOf(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name)!;
  return (
    (metric.values as { labels: Record<string, string>; value: number }[]).find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0
  );
}

describe('meteredEventStore', () => {
  it('times appends by outcome, counts snapshot writes by outcome, and leaves the store itself otherwise', async () => {
    const registry = new Registry();
    const inner = new InMemoryEventStore();
    const store = meteredEventStore(inner, registerStoreMetrics(registry));
    expect(store).toBeInstanceOf(InMemoryEventStore);

    await store.append('s1', [newEvent()], { expectedVersion: 'no_stream' });
    await expect(store.append('s1', [newEvent()], { expectedVersion: 'no_stream' })).rejects.toThrow(/version/);
    expect(await valueOf(registry, 'rewind_event_append_duration_seconds', { outcome: 'ok', le: '+Inf' })).toBe(1);
    expect(await valueOf(registry, 'rewind_event_append_duration_seconds', { outcome: 'conflict', le: '+Inf' })).toBe(1);
    expect(await store.streamVersion('s1')).toBe(1); // straight to the store

    await store.saveSnapshot({ streamId: 's1', version: 1, reducerVersion: 1, state: { n: 1 } });
    inner.saveSnapshot = () => Promise.reject(new Error('disk full'));
    await expect(store.saveSnapshot({ streamId: 's1', version: 1, reducerVersion: 1, state: { n: 1 } })).rejects.toThrow('disk full');
    expect(await valueOf(registry, 'rewind_snapshot_writes_total', { outcome: 'ok' })).toBe(1);
    expect(await valueOf(registry, 'rewind_snapshot_writes_total', { outcome: 'failed' })).toBe(1);
  });
});
