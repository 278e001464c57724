#!/usr/bin/env bash
# Generated clients against the real API, as a platform team would use them: OpenAPI Generator
# (from Maven Central) makes typescript-fetch, java (native, and okhttp-gson: the generator's
# default, which throws on any property the document does not declare) and python clients from
# docs/openapi.json; each compiles and runs the same flow (flows/) against a live server.
# Every answer the flows get passes through a proxy (test/support/validating-proxy.ts) that checks
# it against the document with no undeclared property. Any failure fails the script (and CI).
#
#   bash scripts/openapi-clients/run.sh [typescript|java|java-native|java-okhttp-gson|python ...]
#   (default: all; java is both java libraries)
#
# Needs: java + mvn (Maven Central reachable), node with the repo built (npm run build), and
# Debian's python3-pydantic, python3-urllib3, python3-dateutil for /usr/bin/python3 (installed
# with apt-get when missing; PyPI is not needed).
# OPENAPI_CLIENTS_SERVER_ENV: extra "NAME=value ..." for the server, e.g. the egress allowance for
# loopback compensators once the deployment must allow them (the flows' compensator listens on 127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
HERE=$REPO/scripts/openapi-clients

GENERATOR_VERSION=7.17.0
CACHE=${REWIND_TOOLS_CACHE:-$HOME/.cache/rewind}/openapi-generator
JAR=$CACHE/openapi-generator-cli-$GENERATOR_VERSION.jar
CENTRAL=https://repo1.maven.org/maven2/org/openapitools/openapi-generator-cli/$GENERATOR_VERSION/openapi-generator-cli-$GENERATOR_VERSION.jar
LANGUAGES=("$@")
[ ${#LANGUAGES[@]} -gt 0 ] || LANGUAGES=(typescript java python)
EXPANDED=()
for language in "${LANGUAGES[@]}"; do
  if [ "$language" = java ]; then EXPANDED+=(java-native java-okhttp-gson); else EXPANDED+=("$language"); fi
done
LANGUAGES=("${EXPANDED[@]}")

fail() { echo "openapi-clients: $*" >&2; exit 1; }

test -f apps/api/dist/main.js || fail "apps/api/dist/main.js is missing: run npm run build first"
test -f dist/test/support/validating-proxy.js || fail "dist/test/support/validating-proxy.js is missing: run npm run build first"

if [ ! -f "$JAR" ]; then
  echo "== OpenAPI Generator $GENERATOR_VERSION from Maven Central"
  mkdir -p "$CACHE"
  curl -fsSL --retry 3 -o "$JAR.part" "$CENTRAL" || fail "could not download $CENTRAL"
  expected=$(curl -fsSL --retry 3 "$CENTRAL.sha1") || fail "could not download $CENTRAL.sha1"
  actual=$(sha1sum "$JAR.part" | cut -d' ' -f1)
  [ "$expected" = "$actual" ] || fail "checksum mismatch for the generator jar: expected $expected, got $actual"
  mv "$JAR.part" "$JAR"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rewind-openapi-clients.XXXXXX")
SERVER_PID=
PROXY_PID=
stop() { # pid
  if [ -n "$1" ]; then kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; fi
}
cleanup() {
  stop "$PROXY_PID"
  stop "$SERVER_PID"
  if [ "${KEEP_WORK:-}" = "1" ]; then echo "openapi-clients: work dir kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

generate() { # generator output-dir [additional properties]
  java -jar "$JAR" generate -i "$REPO/docs/openapi.json" -g "$1" -o "$2" ${3:+--additional-properties="$3"} >"$2.log" 2>&1 ||
    { tail -40 "$2.log" >&2; fail "$1: generation failed"; }
}

echo "== a live server (SQLite, temporary data dir)"
PORT=$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
ADMIN_KEY=openapi-clients-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
mkdir -p "$WORK/data"
# shellcheck disable=SC2086 # OPENAPI_CLIENTS_SERVER_ENV is a list of NAME=value words
env PORT="$PORT" HOST=127.0.0.1 REWIND_DATA_DIR="$WORK/data" REWIND_ADMIN_KEY="$ADMIN_KEY" REWIND_LOG_LEVEL=warn REWIND_MEMORY=off REWIND_EGRESS_ALLOW=127.0.0.0/8,::1 \
  ${OPENAPI_CLIENTS_SERVER_ENV:-} node apps/api/dist/main.js >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 120); do
  curl -fs "http://127.0.0.1:$PORT/health/ready" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; fail "the server exited"; }
  sleep 0.5
done
curl -fs "http://127.0.0.1:$PORT/health/ready" >/dev/null || { cat "$WORK/server.log" >&2; fail "the server is not ready on port $PORT"; }

echo "== the proxy that checks every answer against docs/openapi.json (no undeclared property)"
REPORT=$WORK/undocumented-answers.txt
node dist/test/support/validating-proxy.js "http://127.0.0.1:$PORT" "$REPORT" >"$WORK/proxy.port" 2>"$WORK/proxy.log" &
PROXY_PID=$!
for _ in $(seq 1 40); do [ -s "$WORK/proxy.port" ] && break; sleep 0.25; done
PROXY_PORT=$(head -1 "$WORK/proxy.port")
[ -n "$PROXY_PORT" ] || { cat "$WORK/proxy.log" >&2; fail "the validating proxy did not start"; }
export REWIND_URL="http://127.0.0.1:$PROXY_PORT" REWIND_ADMIN_KEY="$ADMIN_KEY"

for language in "${LANGUAGES[@]}"; do
  case "$language" in
    typescript)
      echo "== typescript-fetch: generate, compile (tsc), run the flow"
      out=$WORK/typescript-fetch
      generate typescript-fetch "$out" "supportsES6=true"
      cp "$HERE/flows/flow.ts" "$out/flow.ts"
      # --ignoreConfig: TypeScript 6 refuses files on the command line beside a tsconfig.json (TS5112).
      "$REPO/node_modules/.bin/tsc" --ignoreConfig --strict --target ES2022 --module commonjs --lib ES2022,DOM --skipLibCheck --types node \
        --typeRoots "$REPO/node_modules/@types" --outDir "$out/build" --rootDir "$out" "$out"/*.ts "$out"/apis/*.ts "$out"/models/*.ts ||
        fail "typescript-fetch: the generated client (or the flow) does not compile"
      node "$out/build/flow.js" || fail "typescript-fetch: the flow failed"
      ;;
    java-native | java-okhttp-gson)
      library=${language#java-}
      echo "== java ($library): generate, compile (mvn package), run the flow"
      out=$WORK/$language
      generate java "$out" "library=$library,hideGenerationTimestamp=true"
      mkdir -p "$out/src/main/java/flow"
      cp "$HERE/flows/Flow.java" "$HERE/flows/$language/Clients.java" "$out/src/main/java/flow/"
      (cd "$out" && mvn -q -B package -DskipTests -Dmaven.javadoc.skip=true) || fail "java ($library): the generated client (or the flow) does not compile"
      (cd "$out" && mvn -q -B dependency:build-classpath -Dmdep.outputFile=classpath.txt) || fail "java ($library): no classpath"
      java -cp "$out/target/classes:$(cat "$out/classpath.txt")" flow.Flow || fail "java ($library): the flow failed"
      ;;
    python)
      echo "== python: generate, compile, run the flow (Debian's pydantic, urllib3, dateutil)"
      PYTHON=/usr/bin/python3
      if ! "$PYTHON" -c 'import pydantic, urllib3, dateutil' 2>/dev/null; then
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pydantic python3-urllib3 python3-dateutil; } ||
          fail "python: could not install python3-pydantic python3-urllib3 python3-dateutil"
      fi
      # Debian bookworm ships pydantic 1.10: the generator's python-pydantic-v1 fits it; with v2, its python generator.
      if "$PYTHON" -c 'import pydantic, sys; sys.exit(0 if pydantic.VERSION.startswith("1.") else 1)'; then generator=python-pydantic-v1; else generator=python; fi
      out=$WORK/python
      generate "$generator" "$out" "packageName=rewind_client"
      "$PYTHON" -m compileall -q "$out/rewind_client" >/dev/null || fail "python: the generated client does not compile"
      PYTHONPATH="$out" "$PYTHON" "$HERE/flows/flow.py" || fail "python ($generator): the flow failed"
      ;;
    *) fail "unknown language $language (typescript, java, java-native, java-okhttp-gson, python)" ;;
  esac
done
kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; fail "the server died during the flows"; }
stop "$PROXY_PID"
PROXY_PID=
cat "$WORK/proxy.log" >&2
if [ -s "$REPORT" ]; then
  cat "$REPORT" >&2
  fail "$(wc -l <"$REPORT") answer(s) of the flows do not match docs/openapi.json (undeclared properties included): declare them in apps/api/src/openapi, then npm run openapi"
fi
echo "openapi-clients: ${LANGUAGES[*]}: generated, compiled, and the flow passed"
