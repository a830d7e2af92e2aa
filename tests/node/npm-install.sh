#!/bin/bash
# npm-install.sh SOURCE_ROOT: an npm user's install of libfl's Node.js package, as TAP.
#
# libfl built from SOURCE_ROOT and installed into a temporary prefix; `npm pack` of
# bindings/node; `npm install` of the tarball in a fresh project, with PKG_CONFIG_PATH at the
# prefix and node-gyp pointed at the local Node headers (npm_config_nodedir), so nothing is
# downloaded; then a short script that takes a lock through the installed package.
#
# Skips, saying why, when npm, the headers or a compiler are missing; build-aux/install-deps
# installs them all, and CI counts a skip of suite 'node' as a failure.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -uo pipefail

src=$1
nodedir=${npm_config_nodedir:-/usr}
n=0
fail=0

skip_all() { echo "1..0 # SKIP $*"; exit 77; }
step() {   # step DESCRIPTION COMMAND...: one TAP line, the command's output as diagnostics
  local what=$1; shift
  n=$((n + 1))
  if out=$("$@" 2>&1); then
    echo "ok $n - $what"
  else
    echo "not ok $n - $what"
    printf '%s\n' "$out" | tail -40 | sed 's/^/# /'
    fail=1
  fi
}

command -v npm >/dev/null || skip_all "npm not found: run build-aux/install-deps"
command -v pkg-config >/dev/null || skip_all "pkg-config not found: run build-aux/install-deps"
[ -f "$nodedir/include/node/node_api.h" ] ||
  skip_all "no Node headers in $nodedir/include/node: install libnode-dev (build-aux/install-deps)"
command -v make >/dev/null && command -v g++ >/dev/null ||
  skip_all "node-gyp needs make and g++: run build-aux/install-deps"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fl-npm-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

echo "1..6"
step "libfl built and installed into $prefix" sh -c "
  meson setup '$tmp/build' '$src' -Dprefix='$prefix' -Dtests=false -Dflctl=false \
    -Dinspector=false -Dintrospection=disabled -Dnode=disabled -Dbuildtype=release &&
  ninja -C '$tmp/build' -j2 && meson install -C '$tmp/build' --no-rebuild"
pcdir=$(dirname "$(find "$prefix" -name libfl-1.pc | head -n 1)")
export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}

step "npm pack" sh -c "cd '$src/bindings/node' && npm pack --pack-destination '$tmp' --silent"
tarball=$(ls "$tmp"/libfl-*.tgz 2>/dev/null | head -n 1)

mkdir -p "$tmp/app"
cd "$tmp/app" || exit 1
printf '{ "name": "app", "version": "1.0.0", "private": true }\n' >package.json
# The offline flags: the tarball has no dependency, so nothing is fetched.
step "npm install of the tarball builds the addon against the installed libfl" env \
  npm_config_nodedir="$nodedir" npm install --no-audit --no-fund --offline \
  --foreground-scripts "$tarball"
step "the addon links the installed libfl" sh -c "
  ldd node_modules/libfl/build/Release/fl_node.node | grep -F '$prefix'"

cat >lock.mjs <<'JS'
import { withFileLock, isLocked, lockDirFor, status } from 'libfl';
import fs from 'node:fs';
const target = `${process.argv[2]}/events.yaml`;
const inside = withFileLock(target, () => {
  fs.appendFileSync(target, 'event\n');
  return [isLocked(target), status(target).pid === process.pid, fs.existsSync(lockDirFor(target))];
});
console.log(JSON.stringify(inside), isLocked(target), fs.readFileSync(target, 'utf8').trim());
JS
step "a 10-line script takes a lock through it" sh -c "
  out=\$(node lock.mjs '$tmp') && echo \"\$out\" && [ \"\$out\" = '[true,true,true] false event' ]"
step "CommonJS and the TypeScript declarations are there" sh -c "
  node -e \"const l = require('libfl'); if (typeof l.withFileLockAsync !== 'function') process.exit(1)\" &&
  test -f node_modules/libfl/lib/index.d.ts"
exit $fail
