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
