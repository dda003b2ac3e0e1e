#!/usr/bin/env bash
# Kept for habit: the same as `.ci/node.sh 24 COMMAND…` (see docs/ci.md).
exec "$(dirname "${BASH_SOURCE[0]}")/node.sh" 24 "$@"
