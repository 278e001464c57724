import { describe, expect, it } from 'vitest';
import { memoryModelLoaded } from './memory-readiness';

describe('the readiness check of the embedding model', () => {
  const check = (state: ReturnType<Parameters<typeof memoryModelLoaded>[0]['modelState']>) => memoryModelLoaded({ modelState: () => state }).run();

  it('passes once the model is in memory', async () => {
    await expect(check({ state: 'loaded' })).resolves.toBe('embedding model loaded');
  });
  it('fails while the model loads (or before it is asked for), so that no traffic comes before it', async () => {
    await expect(check({ state: 'loading' })).rejects.toThrow(/the embedding model is loading/);
    await expect(check({ state: 'not-opened' })).rejects.toThrow(/the embedding model is loading/);
  });
  it('passes with the reason when the model could not be had: writes do not need it', async () => {
    await expect(check({ state: 'failed', error: new Error('no network') })).resolves.toBe(
      'embedding model not loaded (no network); writes are not affected, recall answers 503 until it loads',
    );
  });
});
