// The ES module build of every public package (scripts/packages/workspace.mjs says which):
// `npm run build` runs `tsc -b` (CommonJS + .d.ts in dist/, what the repository's own apps
// use) and then this, which bundles each entry point of each package's `exports` map into
// dist/esm/<entry>.mjs with its declarations in dist/esm/<entry>.d.mts. Those declarations
// are read in ESM mode, so the peer packages they name (LangGraph's, for one) resolve to
// their ESM typings, as the user's own code does. Every bare import stays external: a
// package bundles only its own files. A new package needs nothing here: its `exports` map
// (the `@rewind/source` condition) lists its entry points.
import { writeFileSync } from 'node:fs';
import { defineConfig, type UserConfig } from 'tsdown';
import { entryPoints, publicPackages, REPO_ROOT } from './scripts/packages/workspace.mjs';

/**
 * Files a package's ES module build needs beside its bundles. The memory runtime starts its
 * worker thread from `memory-thread.js` next to the module that starts it: in dist/esm that
 * is this forwarder to the CommonJS copy tsc built (a worker file is loaded on its own).
 */
const EXTRA_ESM_FILES: Record<string, Record<string, string>> = {
  '@rewind/memory': { 'memory-thread.js': "module.exports = require('../runtime/memory-thread.js');\n" },
};

export function esmBuildOf(pkg: { name: string; dir: string; manifest: Record<string, unknown> }): UserConfig {
  return {
    name: pkg.name,
    cwd: `${REPO_ROOT}/${pkg.dir}`,
    entry: Object.fromEntries(entryPoints(pkg).map(({ entry, source }) => [entry, source])),
    outDir: 'dist/esm',
    format: 'esm',
    platform: 'node',
    target: 'node24',
    tsconfig: 'tsconfig.json',
    // __dirname/__filename where the sources use them (e.g. the memory thread's entry file).
    shims: true,
    // load-optional.ts (@rewind/runtime): the ES module build loads optional packages with import(), their ESM copies.
    define: { __REWIND_ESM_BUILD__: 'true' },
    fixedExtension: true,
    sourcemap: false,
    deps: { neverBundle: true },
    dts: {
      tsconfig: 'tsconfig.json',
      compilerOptions: { composite: false, incremental: false, declarationMap: false, sourceMap: false },
    },
    logLevel: 'warn',
    inputOptions: { checks: { pluginTimings: false } },
    hooks: {
      'build:done': () => {
        for (const [file, text] of Object.entries(EXTRA_ESM_FILES[pkg.name] ?? {})) writeFileSync(`${REPO_ROOT}/${pkg.dir}/dist/esm/${file}`, text);
      },
    },
  };
}

export default defineConfig(publicPackages().map(esmBuildOf));
