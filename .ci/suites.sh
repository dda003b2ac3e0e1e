#!/usr/bin/env bash
# Lint, typecheck and every test suite, overlapped where that is safe: CI's "lint, typecheck, test"
# step (.ci/run runs it through .ci/node.sh 22). See docs/ci.md, "What runs at the same time".
#
#   1. lint | typecheck                                    both only read the tree
#   2. server suite's concurrent phase    | SDK, CLI suites, console build + browser suite
#   3. server suite's serial phase                         the files with a latency budget, alone
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
# Every lane's output is kept here too, so the end of the run can repeat what failed: a CI page
# that shows only the last lines of the log still names the failing tests.
lane_logs=$(mktemp -d)
trap 'rm -rf "$lane_logs"' EXIT

# lane NAME COMMAND...: in the background, each COMMAND (a string for bash -c) after the other, all
# of them even when one fails, every output line prefixed with [NAME]; fails if any failed.
lane() {
  local name=$1
  shift
  (
    rc=0
    for command in "$@"; do
      t0=$SECONDS
      printf '[%s] ==== %s\n' "$name" "$command"
      status=0
      bash -o pipefail -c "$command" 2>&1 | sed -u "s/^/[$name] /" | tee -a "$lane_logs/$name.log" ||
        status=$?
      printf '[%s] ==== done in %ds (exit %d): %s\n' "$name" $((SECONDS - t0)) "$status" "$command"
      [ "$status" -eq 0 ] || rc=$status
    done
    exit "$rc"
  ) &
  pids+=($!)
  names+=("$name")
}

# Repeats, for each failed lane, node:test's "failing tests" section (or, without one, the lines
# that look like failures), bounded so a storm of failures cannot bury the verdict.
repeat_failures() {
  local name log
  for name in $failed; do
    log="$lane_logs/$name.log"
    printf '\n==== what failed in [%s]\n' "$name"
    if grep -q 'failing tests:' "$log"; then
      sed -n '/failing tests:/,$p' "$log" | head -n 150
    else
      grep -E '✖|not ok|Error|ERR!|exit [1-9]' "$log" | head -n 80 || true
    fi
  done
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
lane lint 'npm run lint'
lane typecheck 'npm run typecheck'
lanes_done
# As before the lanes: no suite runs on a tree that does not lint or typecheck.
if [ -n "$failed" ]; then
  repeat_failures
  printf '==== failed:%s (after %ds)\n' "$failed" $((SECONDS - started))
  exit 1
fi

# The server suite's concurrent phase (the longest) beside the SDK and CLI suites and the console's
# build and browser suite, one after another (one browser at a time).
phase 'server suite (concurrent phase) | SDK, CLI, console build and browser suites'
lane server 'npm run test:concurrent -w @tessera/server'
lane browser 'npm test -w @tessera/client' 'npm test -w @tessera/cli' 'npm test -w @tessera/console'
lanes_done

phase 'server suite (serial phase: the files with a latency budget, alone)'
lane serial 'npm run test:serial -w @tessera/server'
lanes_done

if [ -n "$failed" ]; then
  repeat_failures
  printf '==== failed:%s (after %ds)\n' "$failed" $((SECONDS - started))
  exit 1
fi
printf '==== lint, typecheck and every suite passed in %ds\n' $((SECONDS - started))
