import { describe, expect, it } from 'vitest';
import type { MemoryItem } from './memory-item';
import { diversify } from './recall-diversity';
import { axisVector } from './testing';
import type { ScoredItem } from './vector-index';

const hit = (id: string, version: number, score: number, vector: Float32Array): ScoredItem => ({
  item: {
    id,
    tenantId: 't1',
    sessionId: 's1',
    eventId: id,
    version,
    globalPosition: version,
    role: 'agent',
    occurredAt: '2026-01-01T00:00:00Z',
    chunk: 0,
    text: id,
  } as MemoryItem,
  score,
  vector,
});

describe('diversity in the top hits', () => {
  // Two near-duplicates about pottery, then a weaker hit about camping, far from both.
  const ranked = [hit('pottery', 10, 1, axisVector(8, 0)), hit('pottery again', 20, 0.95, axisVector(8, 0, 1, 0.1)), hit('camping', 30, 0.8, axisVector(8, 2))];

  it('puts a different hit before a second one like the first', () => {
    const order = diversify(ranked, { similarity: 0.3, nearby: 0, window: 0, pool: 10 }).map((h) => h.item.id);
    expect(order).toEqual(['pottery', 'camping', 'pottery again']);
  });

  it('counts a hit within the window of a chosen one less, and reports non-increasing scores', () => {
    const near = [hit('a', 10, 1, axisVector(8, 0)), hit('b', 11, 0.9, axisVector(8, 1)), hit('c', 40, 0.85, axisVector(8, 2))];
    const out = diversify(near, { similarity: 0, nearby: 0.1, window: 2, pool: 10 });
    expect(out.map((h) => h.item.id)).toEqual(['a', 'c', 'b']);
    expect(out.every((h, i) => i === 0 || h.score <= out[i - 1]!.score)).toBe(true);
  });

  it('changes nothing when off', () => {
    expect(diversify(ranked, { similarity: 0, nearby: 0, window: 0, pool: 10 }).map((h) => h.item.id)).toEqual(['pottery', 'pottery again', 'camping']);
  });
});
