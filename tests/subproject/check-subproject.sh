#!/bin/sh
# check-subproject.sh SRCDIR: libfl as a meson subproject of a small service (parent/), as
# docs/subproject.md says to use it. Builds the service with libfl linked in as
# subprojects/libfl, and checks that it gets the library and nothing else: few build steps,
# only its own test in its `meson test`, and only its program and libfl-1 (with its
# translations) in its `meson install`. TAP output; the figures are printed as comments.
set -u
src=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fl-subproject.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "1..4"

cp -r "$(dirname "$0")/parent" "$tmp/parent"
mkdir "$tmp/parent/subprojects"
ln -s "$src" "$tmp/parent/subprojects/libfl"

# The subproject, even where a libfl-1 is installed: that is what is checked.
if meson setup "$tmp/build" "$tmp/parent" --force-fallback-for=libfl-1 >"$tmp/setup.log" 2>&1 &&
   steps=$(ninja -C "$tmp/build" -t commands all | wc -l) &&
   ninja -C "$tmp/build" -j2 >"$tmp/build.log" 2>&1; then
  echo "ok 1 the service builds with libfl as its subproject"
  echo "# build steps: $steps"
else
  echo "not ok 1 the service builds with libfl as its subproject"
  tail -20 "$tmp"/*.log | sed 's/^/# /'
  exit 1
fi

# Every step beyond libfl's own library (~50 sources) and the service is something the
# service did not ask for (flctl alone is ~40 more, the tests ~150).
if [ "$steps" -le 90 ]; then
  echo "ok 2 $steps build steps (at most 90)"
else
  echo "not ok 2 $steps build steps (at most 90)"
  ninja -C "$tmp/build" -t targets all | grep -v '^meson-\|^build\.ninja\|^all\|^clean' |
    sed 's/^/# /' | head -40
fi

tests=$(meson test -C "$tmp/build" --list --no-rebuild 2>/dev/null)
echo "# meson test --list: $(echo "$tests" | tr '\n' ' ')"
if [ "$tests" = "service" ] && meson test -C "$tmp/build" --no-rebuild >"$tmp/test.log" 2>&1; then
  echo "ok 3 meson test runs the service's test alone, and it passes"
else
  echo "not ok 3 meson test runs the service's test alone, and it passes"
  tail -20 "$tmp/test.log" | sed 's/^/# /'
fi

dest=$tmp/dest
meson install -C "$tmp/build" --destdir "$dest" --no-rebuild --quiet >"$tmp/install.log" 2>&1
installed=$(cd "$dest" && find . \( -type f -o -type l \) -printf '%P\n' | sed 's|^usr/local/||' | sort)
echo "$installed" | sed 's/^/# installed: /'
unexpected=$(echo "$installed" |
  grep -v -E '^bin/service$|^lib/([^/]+/)?libfl-1\.so(\.[0-9]+)*$|^share/locale/[^/]+/LC_MESSAGES/libfl-1\.mo$')
if [ -n "$installed" ] && [ -z "$unexpected" ] && echo "$installed" | grep -q '^bin/service$'; then
  echo "ok 4 meson install puts the service and libfl-1 only"
else
  echo "not ok 4 meson install puts the service and libfl-1 only"
  echo "$unexpected" | sed 's/^/# not asked for: /'
fi
