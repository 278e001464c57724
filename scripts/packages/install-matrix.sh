#!/usr/bin/env bash
# The public packages as users get them: `npm pack` of each (scripts/packages/workspace.mjs
# says which are public), each tarball checked (no specs, nothing that loads a test
# framework, @arethetypeswrong/cli with 0 problems in every entry point under every resolution
# (node10, node16-CJS, node16-ESM, bundler; the test helpers are exported by no package),
# `npm publish --dry-run` without a warning), all of them installed together without an ERESOLVE
# or peer-dependency warning, then installed into fresh projects outside the repository (again
# with no such warning), each type-checked against the shipped typings and run against a live API:
#   esm-langgraph       ESM TypeScript (nodenext), LangGraph with the in-process and the HTTP saver
#   esm-langgraph-http  the same, HTTP saver only: Rewind's share of node_modules under 30 MB
#   cjs                 CommonJS TypeScript (node16), @rewind/embedded and @rewind/client
#   vite-client         a Vite (browser) bundle of a @rewind/client app, run under Node
# each running a step, an undo and a rollback that calls a compensator. Prints each project's
# node_modules size. Usage: bash scripts/packages/install-matrix.sh   (after `npm run build`)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
matrix="$root/scripts/packages/matrix"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/rewind-packages-XXXXXX")
api_pid=
cleanup() {
  local status=$?
  if [ "$status" -ne 0 ] && [ -s "$scratch/api.log" ]; then echo "-- the API's log:" >&2 && tail -n 40 "$scratch/api.log" >&2; fi
  if [ -n "$api_pid" ]; then kill "$api_pid" 2>/dev/null || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT
workspace() { node "$root/scripts/packages/workspace.mjs" "$@"; }
tsc() { node "$root/node_modules/typescript/bin/tsc" "$@"; }
fail() {
  echo "install matrix: $*" >&2
  exit 1
}
# Rewind's share of the HTTP saver's project (its node_modules minus LangGraph's own).
HTTP_SAVER_BUDGET_MB=30

echo "== exports maps and files are as scripts/packages/exports.mjs writes them"
node scripts/packages/exports.mjs

echo "== npm pack, content, attw and npm publish --dry-run, per public package"
mkdir -p "$scratch/tarballs" "$scratch/unpacked"
declare -A tarball
while read -r name dir; do
  file=$(npm pack --silent --pack-destination "$scratch/tarballs" "./$dir" 2>/dev/null | tail -n 1)
  tarball[$name]="$scratch/tarballs/$file"
  unpacked="$scratch/unpacked/${file%.tgz}"
  mkdir -p "$unpacked" && tar -xzf "${tarball[$name]}" -C "$unpacked"
  specs=$(cd "$unpacked" && find . -name '*.spec.*')
  [ -z "$specs" ] || fail "$name ships specs: $specs"
  loaders=$(grep -rlE "(require\\(|from |import\\()[\"'](vitest|fast-check)[\"']" "$unpacked" || true)
  [ -z "$loaders" ] || fail "$name ships modules that load a test framework: $loaders"
  [ -e "$unpacked/package/README.md" ] || fail "$name: README.md is missing from the tarball"
  node -e 'const m = require(process.argv[1]); for (const f of ["license", "description", "engines"]) if (!m[f]) throw new Error(`${m.name}: no "${f}" in package.json`)' "$unpacked/package/package.json"
  # Every entry point, every resolution mode (what a user running attw on the package sees): any problem fails.
  if ! report=$("$root/node_modules/.bin/attw" "${tarball[$name]}" --format ascii 2>&1); then
    echo "$report" >&2
    fail "$name: @arethetypeswrong/cli found problems"
  fi
  grep -q 'No problems found' <<<"$report" || { echo "$report" >&2 && fail "$name: @arethetypeswrong/cli did not report 'No problems found'"; }
  entries=$(grep '^"@rewind/' <<<"$report" | grep -vc '/package.json"' || true)
  publish=$(cd "$scratch" && npm publish --dry-run --access public "${tarball[$name]}" 2>&1) || {
    echo "$publish" >&2
    fail "$name: npm publish --dry-run failed"
  }
  # A warning about the package (fields npm corrects, files) fails; CI is not logged in to the registry.
  ! grep -i 'npm warn' <<<"$publish" | grep -v 'requires you to be logged in' || fail "$name: npm publish --dry-run warned"
  printf '%-22s %6s KB  attw: 0 problems (%s entry points; node10, node16-cjs, node16-esm, bundler)  publish --dry-run: clean\n' \
    "$name" "$(($(stat -c %s "${tarball[$name]}") / 1024))" "$entries"
done < <(workspace public)

# What a user's `npm install` must not print about the packages' dependencies (ERESOLVE, a peer
# dependency overridden or unmet); npm's notice about the .npmrc line below is not about them.
peer_warnings() { grep -iE '^npm (warn|error).*(ERESOLVE|peer)' || true; }

echo "== every public package installed together: no ERESOLVE or peer-dependency warning"
mkdir -p "$scratch/all-public"
echo '{ "name": "rewind-matrix-all-public", "private": true }' > "$scratch/all-public/package.json"
all_log=$(cd "$scratch/all-public" && npm install --package-lock-only --prefer-offline --no-audit --no-fund "${tarball[@]}" 2>&1) || {
  echo "$all_log" >&2
  fail "npm could not resolve the public packages together"
}
warned=$(peer_warnings <<<"$all_log")
[ -z "$warned" ] || { echo "$all_log" >&2 && fail "installing the public packages warned about peer dependencies: $(head -n 3 <<<"$warned")"; }
echo "  $(workspace public | wc -l) packages: no ERESOLVE, no peer-dependency warning"

echo "== the API, for the HTTP saver and client projects"
port=$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
export REWIND_URL="http://127.0.0.1:$port"
REWIND_API_KEY="matrix-$(node -e "console.log(require('node:crypto').randomBytes(12).toString('hex'))")"
export REWIND_API_KEY
mkdir -p "$scratch/api-data"
# Long-term memory off: the projects exercise the packages, not the server's embedding model.
REWIND_DATA_DIR="$scratch/api-data" REWIND_ADMIN_KEY="$REWIND_API_KEY" PORT="$port" HOST=127.0.0.1 REWIND_LOG_LEVEL=warn REWIND_MEMORY=off REWIND_EGRESS_ALLOW=127.0.0.0/8,::1 \
  node apps/api/dist/main.js > "$scratch/api.log" 2>&1 &
api_pid=$!
for _ in $(seq 1 600); do
  curl -sf "$REWIND_URL/health" > /dev/null && break
  kill -0 "$api_pid" 2>/dev/null || { cat "$scratch/api.log" >&2; fail "the API exited"; }
  sleep 0.1
done
curl -sf "$REWIND_URL/health" > /dev/null || { cat "$scratch/api.log" >&2; fail "the API did not answer /health in 60 s"; }

# better-sqlite3 (installed as rewind-better-sqlite3, an npm alias: see libs/event-store/src/sqlite/sqlite-driver.ts):
# a project that installs it gets the repository's copy when that one loads in this Node (same version, same machine).
sqlite_copy=false
if node -e "new (require('$root/node_modules/rewind-better-sqlite3'))(':memory:').close()" 2> /dev/null; then sqlite_copy=true; fi

declare -A size
# project <name> <"module"|"commonjs"> <@rewind packages…> -- <registry packages…>
project() {
  local name=$1 type=$2
  shift 2
  local rewind=() registry=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do rewind+=("$1") && shift; done
  [ $# -gt 0 ] && shift
  registry=("$@")
  local dir="$scratch/$name"
  mkdir -p "$dir/node_modules"
  printf '{ "name": "rewind-matrix-%s", "private": true, "type": "%s" }\n' "$name" "$type" > "$dir/package.json"
  # onnxruntime-node (the embedding model of @rewind/embedded's long-term memory) downloads CUDA
  # binaries at install where it finds nvcc; Rewind runs it on the CPU.
  echo 'onnxruntime-node-install-cuda=skip' > "$dir/.npmrc"
  local tarballs=() pkg
  for pkg in $(workspace installed-with "${rewind[@]}"); do tarballs+=("${tarball[$pkg]}"); done
  if $sqlite_copy && workspace third-party-dependencies "${rewind[@]}" | grep -qx rewind-better-sqlite3; then
    for copied in rewind-better-sqlite3 $(node -p "Object.keys(require('$root/node_modules/rewind-better-sqlite3/package.json').dependencies ?? {}).join(' ')"); do
      cp -r "$root/node_modules/$copied" "$dir/node_modules/"
    done
  fi
  local log warned
  log=$(cd "$dir" && npm install --prefer-offline --no-audit --no-fund --loglevel=warn "${tarballs[@]}" "${registry[@]}" 2>&1) || {
    echo "$log" >&2
    fail "$name: npm install failed"
  }
  warned=$(peer_warnings <<<"$log")
  [ -z "$warned" ] || { echo "$log" >&2 && fail "$name: npm install warned about peer dependencies: $(head -n 3 <<<"$warned")"; }
}
measure() { size[$1]=$(du -sm "$scratch/$1/node_modules" | cut -f1); }
typeRoots="$root/node_modules/@types"
node_tsconfig() { # <dir> <module> : strict, the shipped typings checked too (skipLibCheck off)
  printf '{ "compilerOptions": { "module": "%s", "moduleResolution": "%s", "target": "es2022", "strict": true, "skipLibCheck": false, "outDir": "out", "types": ["node"], "typeRoots": ["%s"] }, "include": ["*.ts"] }\n' \
    "$2" "$2" "$typeRoots" > "$1/tsconfig.json"
}

echo "== esm-langgraph: ESM TypeScript (nodenext), LangGraph, the in-process and the HTTP saver"
langgraph=$(workspace versions @langchain/langgraph @langchain/core @langchain/langgraph-checkpoint)
# shellcheck disable=SC2086 # one argument per package
project esm-langgraph module @rewind/embedded @rewind/langgraph @rewind/client -- $langgraph
cp "$matrix"/*.ts "$matrix"/esm-langgraph/main.ts "$scratch/esm-langgraph/"
node_tsconfig "$scratch/esm-langgraph" nodenext
(cd "$scratch/esm-langgraph" && tsc -p . && node out/main.js)
measure esm-langgraph

echo "== esm-langgraph-http: the HTTP saver alone (no driver, no embedding runtime)"
# shellcheck disable=SC2086
project esm-langgraph-http module @rewind/langgraph @rewind/client -- $langgraph
cp "$matrix"/client-scenario.ts "$matrix"/hotel.ts "$matrix"/langgraph-scenario.ts "$matrix"/esm-langgraph-http/main.ts "$scratch/esm-langgraph-http/"
node_tsconfig "$scratch/esm-langgraph-http" nodenext
(cd "$scratch/esm-langgraph-http" && tsc -p . && node out/main.js)
measure esm-langgraph-http
for forbidden in onnxruntime-node onnxruntime-web @huggingface/transformers better-sqlite3 rewind-better-sqlite3 pg @eventstore/db-client @qdrant/js-client-rest sqlite-vec kafkajs @nestjs/swagger; do
  [ ! -e "$scratch/esm-langgraph-http/node_modules/$forbidden" ] || fail "the HTTP saver's project installed $forbidden"
done
# shellcheck disable=SC2086
project langgraph-alone module -- $langgraph
measure langgraph-alone
rewind_share=$((size[esm-langgraph-http] - size[langgraph-alone]))
[ "$rewind_share" -lt "$HTTP_SAVER_BUDGET_MB" ] ||
  fail "the HTTP saver adds ${rewind_share} MB to LangGraph's node_modules (budget: ${HTTP_SAVER_BUDGET_MB} MB)"

echo "== cjs: CommonJS TypeScript (node16), @rewind/embedded and @rewind/client"
project cjs commonjs @rewind/embedded @rewind/client
cp "$matrix"/client-scenario.ts "$matrix"/hotel.ts "$matrix"/embedded-scenario.ts "$matrix"/cjs/main.ts "$scratch/cjs/"
node_tsconfig "$scratch/cjs" node16
(cd "$scratch/cjs" && tsc -p . && node out/main.js)
measure cjs

echo "== vite-client: a Vite bundle (browser build) of a @rewind/client app, run under Node"
project vite-client module @rewind/client -- "$(workspace versions vite)"
cp "$matrix"/client-scenario.ts "$matrix"/vite-client/* "$scratch/vite-client/"
printf '{ "compilerOptions": { "module": "esnext", "moduleResolution": "bundler", "target": "es2022", "lib": ["es2023", "dom"], "strict": true, "skipLibCheck": false, "noEmit": true, "types": [] }, "include": ["*.ts"] }\n' > "$scratch/vite-client/tsconfig.json"
(cd "$scratch/vite-client" && tsc -p . && node node_modules/vite/bin/vite.js build --logLevel warn && node run.mjs)
measure vite-client

echo "== node_modules per project (du -sm)"
printf '  %-20s %5s MB  %s\n' \
  esm-langgraph "${size[esm-langgraph]}" "LangGraph, @rewind/embedded (better-sqlite3, sqlite-vec, the ONNX embedding runtime), the HTTP saver" \
  esm-langgraph-http "${size[esm-langgraph-http]}" "LangGraph and the HTTP saver: Rewind's share ${rewind_share} MB (budget ${HTTP_SAVER_BUDGET_MB} MB)" \
  langgraph-alone "${size[langgraph-alone]}" "LangGraph alone (@langchain/langgraph, core, checkpoint), for comparison" \
  cjs "${size[cjs]}" "@rewind/embedded and @rewind/client" \
  vite-client "${size[vite-client]}" "@rewind/client and Vite"
