/* global process, console */
// Writes (--write) or checks (default) the `exports` map, `files`, `main`/`types`, `engines`,
// `repository` and `publishConfig` of every
// public package, the exports from its entry points (the `@rewind/source` condition of each subpath):
//   "@rewind/source": the TypeScript source (the repository's tests and type-check),
//   "import":  dist/esm/<entry>.mjs with dist/esm/<entry>.d.mts (tsdown),
//   "require": dist/<path>.js with dist/<path>.d.ts (tsc -b; the repository's apps use these).
// `testing` subpaths stay CommonJS-only for the repository's own tests and are left out of
// the tarball (`files`): they need vitest/fast-check, which no user should have to install.
// Usage: node scripts/packages/exports.mjs [--write]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { entryPoints, isTestingSubpath, publicPackages, REPO_ROOT } from './workspace.mjs';

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
  const unpublished = [];
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (subpath === './package.json') continue;
    const entry = entries.get(subpath);
    if (!entry) {
      exportsMap[subpath] = target;
      if (isTestingSubpath(subpath))
        unpublished.push(target.default.replace(/^\.\//, '!').replace(/\/index\.js$|\.js$/, (m) => (m === '/index.js' ? '' : '.*')));
      continue;
    }
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
    files: [
      'dist',
      'CHANGELOG.md',
      '!dist/**/*.spec.*',
      '!dist/**/*.map',
      '!dist/.tsbuildinfo',
      ...unpublished.filter((glob) => !unpublished.some((dir) => glob.startsWith(`${dir}/`))),
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
process.exit(stale ? 1 : 0);
