#!/bin/sh
# run.sh
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs the @gradio/client conformance suite with Node's built-in test runner,
# printing TAP. Without node, the npm modules or the rivulet-cli binary it
# prints a TAP skip plan ("1..0 # SKIP reason"), which meson reports as SKIP.
#
# Usage: RIVULET_CLI=/path/to/rivulet-cli tests/compat/run.sh [FILE.test.mjs…]
# NODE may name the node binary (default: node on PATH).

here=$(cd "$(dirname "$0")" && pwd)
node=${NODE:-node}

skip () {
  echo "1..0 # SKIP $*"
  echo "gradio-js-client: SKIPPED: $*" >&2
  exit 0
}

command -v "$node" >/dev/null 2>&1 || skip "node is not installed"
major=$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null) || skip "node does not run"
[ "$major" -ge 20 ] 2>/dev/null || skip "node $major is too old (need >= 20 for node:test)"
[ -f "$here/node_modules/@gradio/client/package.json" ] \
  || skip "tests/compat/node_modules/@gradio/client is missing (run 'npm ci' in tests/compat)"
[ -n "$RIVULET_CLI" ] || skip "RIVULET_CLI is not set"
[ -x "$RIVULET_CLI" ] || skip "RIVULET_CLI=$RIVULET_CLI is not executable"

cd "$here" || exit 1
if [ "$#" -eq 0 ]; then
  set -- ./*.test.mjs
fi
exec "$node" --test --test-reporter=tap --test-concurrency=1 "$@"
