#!/bin/sh
# Runs docs/examples/update-under-lock.js with GJS on a new file and checks what it did:
# the line appended, its own lock listed as held while it ran, the lock released.
# Usage: run-gjs-example.sh GJS EXAMPLE
set -eu
gjs=$1 example=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$("$gjs" -m "$example" "$dir/events.yaml")
echo "$out"
case $out in
  "events.yaml.lock held "[1-9]*) ;;
  *) echo "not the example's own held lock: $out" >&2; exit 1 ;;
esac
[ "$(cat "$dir/events.yaml")" = "one more line" ] || { echo "the line was not appended" >&2; exit 1; }
[ ! -e "$dir/events.yaml.lock" ] || { echo "the lock was not released" >&2; exit 1; }
