#!/bin/sh
# run-with-node.sh NODE ARGS...: runs NODE with ARGS, or fails saying how to get it.
# (build-aux/install-deps caches Node.js 18 and 20 from the npm registry: tests/node-tools)
#
# SPDX-License-Identifier: LGPL-2.1-or-later
node=$1
shift
if [ ! -x "$node" ]; then
  echo "1..1"
  echo "not ok 1 - $node is not installed: run build-aux/install-deps (tests/node-tools)"
  exit 1
fi
exec "$node" "$@"
