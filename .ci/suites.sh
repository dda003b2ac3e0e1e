#!/usr/bin/env bash
# Lint, typecheck and every test suite, overlapped where that is safe: CI's "lint, typecheck, test"
# step (.ci/run runs it through .ci/node.sh 22). See docs/ci.md, "What runs at the same time".
#
#   1. lint | typecheck                        both only read the tree
#   2. server suite, concurrent phase          | client, CLI, console build, console (browser) suite
#   3. server suite, serial phase              the files that assert a latency budget, alone
#
# Each lane's lines are prefixed with its name ([server], [browser], ...). Lint or typecheck failing
# stops the script after step 1; otherwise steps 2 and 3 both run, so one run reports every failing
# suite, and the script fails at the end naming the lanes that failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pids=()
names=()
failed=""
started=$SECONDS

# lane NAME COMMAND...: COMMAND in the background, its output prefixed with [NAME].
lane() {
  local name=$1
  shift
  (
    set -o pipefail
    t0=$SECONDS
    rc=0
    "$@" 2>&1 | sed -u "s/^/[$name] /" || rc=$?
    printf '[%s] ---- done in %ds (exit %d)\n' "$name" $((SECONDS - t0)) "$rc"
    exit "$rc"
  ) &
  pids+=($!)
  names+=("$name")
}

# Waits for every lane started since the last call; adds the ones that failed to $failed.
lanes_done() {
  local i
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed+=" ${names[$i]}"
  done
  pids=()
  names=()
}

phase() { printf '\n==== %s  [+%ds]\n' "$1" $((SECONDS - started)); }

phase 'lint | typecheck'
lane lint npm run lint
lane typecheck npm run typecheck
lanes_done
# As before the lanes: no suite runs on a tree that does not lint or typecheck.
if [ -n "$failed" ]; then
  printf '==== failed:%s (after %ds)\n' "$failed" $((SECONDS - started))
  exit 1
fi

phase 'server suite (concurrent phase) | client, CLI and browser suites'
lane server npm run test:concurrent -w @tessera/server
lane browser bash -c 'npm test -w @tessera/client && npm test -w @tessera/cli && npm test -w @tessera/console'
lanes_done

phase 'server suite (serial phase: files with a latency budget)'
lane server-serial npm run test:serial -w @tessera/server
lanes_done

if [ -n "$failed" ]; then
  printf '==== failed:%s (after %ds)\n' "$failed" $((SECONDS - started))
  exit 1
fi
printf '==== lint, typecheck and every suite passed in %ds\n' $((SECONDS - started))
