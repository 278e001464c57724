import { describe, expect, it } from 'vitest';
import { batchBounds, nextBatchSize } from './batch-size';

describe('nextBatchSize', () => {
  const bounds = batchBounds(256, 1024);

  it('doubles after a full batch, up to the largest', () => {
    const sizes = [256];
    for (let i = 0; i < 4; i++) sizes.push(nextBatchSize(sizes[sizes.length - 1]!, sizes[sizes.length - 1]!, bounds));
    expect(sizes).toEqual([256, 512, 1024, 1024, 1024]);
  });

  it('goes back to the smallest after a batch that was not full (or empty)', () => {
    expect(nextBatchSize(1024, 1023, bounds)).toBe(256);
    expect(nextBatchSize(512, 0, bounds)).toBe(256);
    expect(nextBatchSize(256, 100, bounds)).toBe(256);
  });

  it('stays fixed when the bounds are one size', () => {
    expect(nextBatchSize(256, 256, batchBounds(256))).toBe(256);
  });

  it('refuses bounds that are not whole numbers of events, or a largest below the smallest', () => {
    expect(() => batchBounds(0)).toThrow(/at least 1/);
    expect(() => batchBounds(2.5)).toThrow(/whole number/);
    expect(() => batchBounds(256, 128)).toThrow(/at least the batch size/);
    expect(batchBounds(256)).toEqual({ min: 256, max: 256 });
  });
});
