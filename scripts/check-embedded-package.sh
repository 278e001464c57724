#!/usr/bin/env bash
# Packs @rewind/embedded and the @rewind packages it depends on with `npm pack`, installs the
# tarballs into a scratch ESM project outside the repository, type-checks a plain `import`
# against the shipped types, and runs a step with an undo and a rollback that calls it once.
# Usage: bash scripts/check-embedded-package.sh   (after `npm run build`)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/rewind-embedded-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# @rewind/embedded and every @rewind package it needs, transitively.
packages=$(node -e '
  const fs = require("node:fs"), path = require("node:path");
  const dirs = {};
  for (const group of ["libs", "apps"]) for (const name of fs.readdirSync(group)) {
    const file = path.join(group, name, "package.json");
    if (fs.existsSync(file)) dirs[JSON.parse(fs.readFileSync(file, "utf8")).name] = path.join(group, name);
  }
  const seen = new Set(), todo = ["@rewind/embedded"];
  while (todo.length) {
    const name = todo.pop();
    if (seen.has(name)) continue;
    seen.add(name);
    const deps = JSON.parse(fs.readFileSync(path.join(dirs[name], "package.json"), "utf8")).dependencies ?? {};
    todo.push(...Object.keys(deps).filter((d) => d.startsWith("@rewind/")));
  }
  console.log([...seen].map((n) => dirs[n]).join(" "));
')
echo "packing: $packages"
mkdir -p "$scratch/tarballs" "$scratch/app"
for dir in $packages; do npm pack --silent --pack-destination "$scratch/tarballs" "./$dir" > /dev/null; done

cd "$scratch/app"
cat > package.json <<'JSON'
{ "name": "rewind-embedded-check", "private": true, "type": "module" }
JSON
# onnxruntime-node (the local embedding model of long-term memory) downloads CUDA binaries at
# install where it finds nvcc; Rewind runs it on the CPU. README tells users the same line.
echo 'onnxruntime-node-install-cuda=skip' > .npmrc
# better-sqlite3 compiles from source here (no prebuilt download): reuse the copy the repository
# built, same version and machine, so that this check costs the packaging, not the compiler.
mkdir -p node_modules && cp -r "$root/node_modules/better-sqlite3" "$root/node_modules/bindings" "$root/node_modules/file-uri-to-path" node_modules/
npm install --no-audit --no-fund --loglevel=error "$scratch"/tarballs/*.tgz

cat > check.mts <<'TS'
import { Rewind, type SessionView } from '@rewind/embedded';

const cancelled: string[] = [];
const rewind = Rewind.inMemory();
const session = await rewind.startSession('trip');
const start = await session.checkpoint('before-booking');
const booking = await session.step('book_hotel', { city: 'Lisbon' }, () => ({ bookingId: 'B-1' }), {
  undo: ({ output }) => void cancelled.push(output!.bookingId),
});
const state: SessionView = await session.rollbackTo('before-booking');
await rewind.close();
if (booking.bookingId !== 'B-1') throw new Error(`the step returned ${JSON.stringify(booking)}`);
if (JSON.stringify(cancelled) !== '["B-1"]') throw new Error(`the undo ran ${cancelled.length} times: ${JSON.stringify(cancelled)}`);
if (state.head !== start || state.toolCalls.length !== 0) throw new Error(`after the rollback: ${JSON.stringify(state)}`);
console.log(`ok: step recorded, rollback to v${start} called the undo once (${cancelled.join(', ')})`);
TS
node "$root/node_modules/typescript/bin/tsc" --noEmit --strict --module node16 --moduleResolution node16 --target es2022 --skipLibCheck false --types node --typeRoots "$root/node_modules/@types" check.mts
node "$root/node_modules/typescript/bin/tsc" --module node16 --moduleResolution node16 --target es2022 --skipLibCheck --types node --typeRoots "$root/node_modules/@types" check.mts
node check.mjs
