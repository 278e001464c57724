/* global process, console */
// Writes (--write) or checks (default) the `exports` map, `files`, `main`/`types`, `engines`,
// `repository` and `publishConfig` of every
// public package, the exports from its entry points (the `@rewind/source` condition of each subpath):
//   "@rewind/source": the TypeScript source (the repository's tests and type-check),
//   "import":  dist/esm/<entry>.mjs with dist/esm/<entry>.d.mts (tsdown),
//   "require": dist/<path>.js with dist/<path>.d.ts (tsc -b; the repository's apps use these).
// `typesVersions` gives TypeScript's old `node10` resolution each subpath's typings.
// The test helpers (`testing` folders) are not exported and are left out of the tarball (`files`):
// they need vitest/fast-check, which no user should have to install; the repository reaches them
// through `paths` in tsconfig.base.json, which this script also writes (TESTING_ENTRIES).
// Usage: node scripts/packages/exports.mjs [--write]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as prettier from 'prettier';
import { entryPoints, publicPackages, REPO_ROOT, TESTING_ENTRIES, testingDistFolders } from './workspace.mjs';

const write = process.argv.includes('--write');
const rootManifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
const TEST_FRAMEWORK = /from '(vitest|fast-check)'/;

/** Test support outside `testing` folders (a module only specs import): `!dist/<path>.*` each. */
function testSupportFiles(pkg) {
  const src = join(REPO_ROOT, pkg.dir, 'src');
  return readdirSync(src, { recursive: true })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !/(^|\/)testing\//.test(file))
    .filter((file) => TEST_FRAMEWORK.test(readFileSync(join(src, file), 'utf8')))
    .map((file) => `!dist/${relative('.', file).replace(/\.ts$/, '')}.*`)
    .sort();
}
let stale = 0;

for (const pkg of publicPackages()) {
  const { manifest } = pkg;
  const entries = new Map(entryPoints(pkg).map((e) => [e.subpath, e]));
  const exportsMap = {};
  const typesVersions = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (subpath === './package.json' || `${manifest.name}${subpath.slice(1)}` in TESTING_ENTRIES) continue;
    const entry = entries.get(subpath);
    if (!entry) {
      exportsMap[subpath] = target;
      continue;
    }
    if (subpath !== '.') typesVersions[subpath.slice(2)] = [`${entry.cjs}.d.ts`];
    exportsMap[subpath] = {
      '@rewind/source': entry.source,
      import: { types: `./dist/esm/${entry.entry}.d.mts`, default: `./dist/esm/${entry.entry}.mjs` },
      require: { types: `${entry.cjs}.d.ts`, default: `${entry.cjs}.js` },
    };
  }
  exportsMap['./package.json'] = './package.json';
  const next = {
    ...manifest,
    engines: rootManifest.engines,
    // The repository's URL, once the root package.json names it, with each package's folder.
    repository: rootManifest.repository ? { ...rootManifest.repository, directory: pkg.dir } : undefined,
    publishConfig: { access: 'public' },
    main: './dist/index.js',
    module: undefined,
    types: './dist/index.d.ts',
    exports: exportsMap,
    typesVersions: Object.keys(typesVersions).length ? { '*': typesVersions } : undefined,
    files: [
      'dist',
      'CHANGELOG.md',
      '!dist/**/*.spec.*',
      '!dist/**/*.map',
      '!dist/.tsbuildinfo',
      ...testingDistFolders(pkg).map((folder) => `!${folder}`),
      ...testSupportFiles(pkg),
    ],
  };
  const text = `${JSON.stringify(next, null, 2)}\n`;
  const file = join(REPO_ROOT, pkg.dir, 'package.json');
  if (text === `${JSON.stringify(manifest, null, 2)}\n`) continue;
  if (write) writeFileSync(file, text);
  else {
    stale++;
    console.error(`${pkg.dir}/package.json: exports/files are not what scripts/packages/exports.mjs writes (run it with --write)`);
  }
}

// The test helpers by name, for the repository's type-checks and builds (vitest.config.mts aliases the same).
const baseFile = join(REPO_ROOT, 'tsconfig.base.json');
const base = JSON.parse(readFileSync(baseFile, 'utf8'));
const paths = Object.fromEntries(Object.entries(TESTING_ENTRIES).map(([specifier, source]) => [specifier, [`./${source}`]]));
const nextBase = await prettier.format(JSON.stringify({ ...base, compilerOptions: { ...base.compilerOptions, paths } }), {
  ...(await prettier.resolveConfig(baseFile)),
  filepath: baseFile,
});
if (nextBase !== readFileSync(baseFile, 'utf8')) {
  if (write) writeFileSync(baseFile, nextBase);
  else {
    stale++;
    console.error('tsconfig.base.json: compilerOptions.paths is not what scripts/packages/exports.mjs writes (run it with --write)');
  }
}
process.exit(stale ? 1 : 0);
