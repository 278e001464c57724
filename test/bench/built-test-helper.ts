import { join } from 'node:path';

/**
 * A repository test helper (`@rewind/<package>/testing…`, exported by no package) from its build
 * output, for the benchmarks, which run compiled under plain Node: the type-check and vitest
 * resolve the helper's name through tsconfig paths and aliases, Node cannot.
 * `distFile` is relative to the repository, e.g. `libs/projections/dist/testing/workload.js`.
 */
export function builtTestHelper<T>(distFile: string): T {
  // This file runs from dist/test/bench.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(join(__dirname, '../../..', distFile)) as T;
}
