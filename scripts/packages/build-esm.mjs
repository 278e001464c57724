/* global console */
// `npm run build:esm` (the last step of `npm run build` before the UI): tsdown on every public
// package, one after another in dependency order, so that a package's declarations can name
// (even through a dynamic `import()`, resolved in ESM mode) the ESM typings of the packages it
// depends on, already built. The per-package options are tsdown.config.mts's `esmBuildOf`.
import { build } from 'tsdown';
import { esmBuildOf } from '../../tsdown.config.mts';
import { publicPackages } from './workspace.mjs';

const packages = publicPackages();
const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
const done = new Set();
const order = [];
const visit = (pkg) => {
  if (done.has(pkg.name)) return;
  done.add(pkg.name);
  const { dependencies = {}, peerDependencies = {}, devDependencies = {} } = pkg.manifest;
  for (const name of Object.keys({ ...dependencies, ...peerDependencies, ...devDependencies })) if (byName.has(name)) visit(byName.get(name));
  order.push(pkg);
};
packages.forEach(visit);
for (const pkg of order) {
  await build({ ...esmBuildOf(pkg), config: false });
  console.log(`ESM build: ${pkg.name}`);
}
