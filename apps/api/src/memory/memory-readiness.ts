import type { MemoryRuntime } from '@rewind/memory/runtime';
import type { ReadinessCheck } from '@rewind/observability';

/**
 * The embedding model is in memory. Loading it takes a core for seconds: a process that took
 * traffic meanwhile would answer its first turns several times slower than the later ones.
 * A model that could not be had does not hold readiness back — writes do not need it; recall
 * answers 503 and tries again — so the detail says so instead.
 */
export function memoryModelLoaded(memory: Pick<MemoryRuntime, 'modelState'>): ReadinessCheck {
  return {
    name: 'memory',
    run: async () => {
      const model = memory.modelState();
      if (model.state === 'loaded') return 'embedding model loaded';
      if (model.state === 'failed') return `embedding model not loaded (${model.error.message}); writes are not affected, recall answers 503 until it loads`;
      throw new Error('the embedding model is loading; ready once it is in memory, so that it does not slow the first writes');
    },
  };
}
