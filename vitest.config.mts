import swc from 'unplugin-swc';
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { TESTING_ENTRIES } from './scripts/packages/workspace.mjs';

// SWC (not esbuild) compiles the tests so that NestJS gets decorator metadata.
// Every @rewind/* package is read from its sources through the "@rewind/source" export
// condition, so a test never mixes a package's compiled copy with its source. The test helpers
// (`@rewind/<package>/testing`) are exported by no package: aliased to their sources here.
const testingAliases = Object.entries(TESTING_ENTRIES).map(([specifier, source]) => ({
  find: new RegExp(`^${specifier.replace(/[/.-]/g, '\\$&')}$`),
  replacement: resolve(import.meta.dirname, source),
}));

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: { conditions: ['@rewind/source'], alias: testingAliases },
  ssr: { resolve: { conditions: ['@rewind/source'] } },
  // The sources run here as ES modules: @rewind/runtime's optional packages are import()ed (load-optional.ts).
  define: { __REWIND_ESM_BUILD__: 'true' },
  test: {
    include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'test/**/*.spec.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    // The default output, then the skipped tests and why (the default only counts them).
    reporters: ['default', './test/support/skipped-tests-reporter.ts'],
  },
});
