/* global process, console */
// The workspace's packages and which of them are public (published to npm): the packages a
// user installs (PUBLIC_ROOTS) and every @rewind package they reach through `dependencies` or
// `peerDependencies`, transitively. Shared by the ESM build (tsdown.config.mts), the exports
// maps (exports.mjs) and the install matrix (install-matrix.sh).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const PUBLIC_ROOTS = ['@rewind/client', '@rewind/embedded', '@rewind/langgraph'];

/** name -> { name, dir (relative to the repository), manifest } for every libs/* and apps/* package. */
export function workspacePackages() {
  const packages = new Map();
  for (const group of ['libs', 'apps']) {
    for (const entry of readdirSync(join(REPO_ROOT, group))) {
      const file = join(REPO_ROOT, group, entry, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      packages.set(manifest.name, { name: manifest.name, dir: join(group, entry), manifest });
    }
  }
  return packages;
}

/** The public packages, in a stable order (dependencies before their dependents is not guaranteed). */
export function publicPackages(packages = workspacePackages()) {
  const seen = new Set();
  const todo = [...PUBLIC_ROOTS];
  while (todo.length) {
    const name = todo.pop();
    if (seen.has(name)) continue;
    const pkg = packages.get(name);
    if (!pkg) throw new Error(`${name} is not a workspace package`);
    seen.add(name);
    const { dependencies = {}, peerDependencies = {} } = pkg.manifest;
    todo.push(...Object.keys({ ...dependencies, ...peerDependencies }).filter((d) => d.startsWith('@rewind/')));
  }
  return [...seen].sort().map((name) => packages.get(name));
}

/** Subpaths that only the repository's own tests use: built, never published. */
export const isTestingSubpath = (subpath) => /(^|\/)testing(\/|$)/.test(subpath);

/**
 * The repository's test helpers (they load vitest and fast-check): imported by their package's
 * name, but no package exports them, so an installed package has no entry point it cannot load.
 * The repository resolves them by alias instead: `paths` in tsconfig.base.json (exports.mjs writes
 * it) and `resolve.alias` in vitest.config.mts. Specifier -> source, relative to the repository.
 */
export const TESTING_ENTRIES = {
  '@rewind/domain/testing': 'libs/domain/src/testing/index.ts',
  '@rewind/event-store/testing': 'libs/event-store/src/testing/index.ts',
  '@rewind/event-store/testing/postgres': 'libs/event-store/src/testing/postgres-test-database.ts',
  '@rewind/memory/testing': 'libs/memory/src/testing/index.ts',
  '@rewind/messaging/kafka/testing': 'libs/messaging/src/kafka/testing/index.ts',
  '@rewind/messaging/testing': 'libs/messaging/src/testing/index.ts',
  '@rewind/projections/testing': 'libs/projections/src/testing/index.ts',
};

/** The folders of a package's test helpers under dist/ (left out of its tarball), e.g. `dist/kafka/testing`. */
export function testingDistFolders(pkg) {
  return Object.values(TESTING_ENTRIES)
    .filter((source) => source.startsWith(`${pkg.dir}/src/`))
    .map((source) => source.slice(`${pkg.dir}/src/`.length).replace(/\/[^/]+$/, ''))
    .filter((folder, i, all) => all.indexOf(folder) === i)
    .map((folder) => `dist/${folder}`)
    .sort();
}

/**
 * The published entry points of a package: subpath -> its TypeScript source (the
 * `@rewind/source` condition), the ESM entry name (dist/esm/<entry>.mjs) and the CommonJS
 * file tsc emits (dist/<same path>.js).
 */
export function entryPoints(pkg) {
  const entries = [];
  for (const [subpath, target] of Object.entries(pkg.manifest.exports ?? {})) {
    const source = typeof target === 'object' && target !== null ? target['@rewind/source'] : undefined;
    if (!source || isTestingSubpath(subpath)) continue;
    const entry = subpath === '.' ? 'index' : subpath.slice(2);
    const cjs = source.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '');
    entries.push({ subpath, source, entry, cjs });
  }
  return entries;
}

/** The @rewind packages `names` install (themselves and their `dependencies`, transitively). */
export function installedWith(names, packages = workspacePackages()) {
  const seen = new Set();
  const todo = [...names];
  while (todo.length) {
    const name = todo.pop();
    if (seen.has(name)) continue;
    seen.add(name);
    todo.push(...Object.keys(packages.get(name).manifest.dependencies ?? {}).filter((d) => d.startsWith('@rewind/')));
  }
  return [...seen].sort();
}

/** The version the repository uses of a third-party package (root or any workspace manifest). */
export function repositoryVersionOf(name, packages = workspacePackages()) {
  const root = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  for (const manifest of [root, ...[...packages.values()].map((p) => p.manifest)]) {
    const version = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
    if (version) return version;
  }
  throw new Error(`the repository does not depend on ${name}`);
}

// CLI for the shell scripts:
//   node scripts/packages/workspace.mjs public             -> "<name> <dir>" per public package
//   node scripts/packages/workspace.mjs installed-with A B  -> the @rewind packages A and B install
//   node scripts/packages/workspace.mjs versions x y        -> "x@<version> y@<version>"
//   node scripts/packages/workspace.mjs third-party-dependencies A B  -> what they install from the registry
if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const [command, ...args] = process.argv.slice(2);
  const packages = workspacePackages();
  const lines = {
    public: () => publicPackages(packages).map((p) => `${p.name} ${p.dir}`),
    'installed-with': () => installedWith(args, packages),
    'third-party-dependencies': () => [
      ...new Set(
        installedWith(args, packages).flatMap((name) => Object.keys(packages.get(name).manifest.dependencies ?? {}).filter((d) => !d.startsWith('@rewind/'))),
      ),
    ],
    versions: () => [args.map((name) => `${name}@${repositoryVersionOf(name, packages)}`).join(' ')],
  }[command];
  if (!lines) throw new Error(`unknown command ${command}`);
  console.log(lines().join('\n'));
}
