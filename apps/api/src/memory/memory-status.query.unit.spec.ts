import { describe, expect, it } from 'vitest';
import type { MemoryIndexerStatus } from '@rewind/memory';
import type { MemoryRuntime } from '@rewind/memory/runtime';
import { MemoryStatusHandler, MemoryStatusQuery } from './memory-status.query';

/** A deployment's status under language routing, two stages, a burst of Chinese turns still being embedded. */
const status = {
  state: 'running',
  runsIn: 'thread',
  keywordsRunIn: 'thread',
  model: 'e5-small-v2-q',
  dimensions: 384,
  models: [
    { id: 'e5-small-v2-q', dimensions: 384, language: 'en', items: 120, pendingVectors: 0 },
    { id: 'bge-small-zh-v15-q', dimensions: 512, language: 'zh', items: 80, pendingVectors: 35 },
  ],
  checkpoint: 400,
  lastPosition: 400,
  lag: 0,
  stages: 2,
  pendingVectors: 35,
  oldestPendingVectorPosition: 370,
  indexedItems: 200,
  embeddedItems: 165,
  skippedEvents: 3,
  items: 200,
  vectorsPerSecond: 12,
  admittedPerSecond: 20,
  pendingVectorsDrainSeconds: null,
  lastError: null,
} satisfies MemoryIndexerStatus;

const runtime = { options: { config: { index: 'postgres' } }, indexer: { status: async () => status } } as unknown as MemoryRuntime;

describe('GET /v1/memory/status per model', () => {
  it('gives the operator each model’s items and backlog', async () => {
    const seen = await new MemoryStatusHandler(runtime).execute(new MemoryStatusQuery(true));
    expect(seen).toMatchObject({ enabled: true, index: 'postgres', pendingVectors: 35, models: status.models });
  });

  it('gives a tenant the models without their counts or backlogs (other tenants’ activity)', async () => {
    const seen = await new MemoryStatusHandler(runtime).execute(new MemoryStatusQuery(false));
    expect(seen).toEqual({
      enabled: true,
      index: 'postgres',
      state: 'running',
      runsIn: 'thread',
      model: 'e5-small-v2-q',
      dimensions: 384,
      models: [
        { id: 'e5-small-v2-q', dimensions: 384, language: 'en' },
        { id: 'bge-small-zh-v15-q', dimensions: 512, language: 'zh' },
      ],
    });
  });
});
