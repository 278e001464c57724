import type { MemoryItem } from '../memory-item';

/** A unit vector pointing mostly along axis `axis`, a little along `tilt`. */
export function axisVector(dimensions: number, axis: number, tilt = 0, tiltAmount = 0): Float32Array {
  const v = new Float32Array(dimensions);
  v[axis % dimensions] = 1;
  if (tiltAmount !== 0) v[tilt % dimensions] = tiltAmount;
  let norm = 0;
  for (const x of v) norm += x * x;
  return v.map((x) => x / Math.sqrt(norm));
}

export function memoryItem(overrides: Partial<MemoryItem> & { id: string; text: string }): MemoryItem {
  return {
    tenantId: 't1',
    sessionId: 's1',
    eventId: overrides.id.split(':')[0]!,
    version: 2,
    globalPosition: 2,
    role: 'user',
    occurredAt: '2026-05-01T10:00:00.000Z',
    chunk: 0,
    ...overrides,
  };
}
