import { IndexUnavailableError } from '@rewind/memory';
import { ModelUnavailableError } from '@rewind/memory/onnx';
import type { MemoryRuntime } from '@rewind/memory/runtime';
import { ApiError } from '../common/api-error';

/** Nest token of the MemoryRuntime (null when REWIND_MEMORY=off). */
export const MEMORY_RUNTIME = Symbol('MEMORY_RUNTIME');

/** The runtime, or a 409 that says memory is off and how to turn it on. */
export function requireMemory(runtime: MemoryRuntime | null): MemoryRuntime {
  if (!runtime) {
    throw new ApiError(
      409,
      'memory_disabled',
      'Long-term memory is turned off on this server (REWIND_MEMORY=off): nothing is indexed or recalled. Start it with REWIND_MEMORY=on.',
    );
  }
  return runtime;
}

/** A model that cannot be fetched or an index that cannot be opened is the server's problem, said plainly. */
export function memoryUnavailable(error: unknown): never {
  if (error instanceof ModelUnavailableError || error instanceof IndexUnavailableError) throw new ApiError(503, 'memory_unavailable', error.message);
  throw error;
}
