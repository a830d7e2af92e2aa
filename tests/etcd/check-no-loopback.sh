#!/bin/sh
# check-no-loopback.sh TEST: an etcd test program in a network namespace whose loopback is
# down (a packager's build chroot) skips every test, saying why, and exits 0 (issue 30).
# TAP.
test_program=$1
echo "1..1"
if ! unshare --net true 2>/dev/null; then
  echo "ok 1 # SKIP cannot make a network namespace here (needs root or user namespaces)"
  exit 0
fi
out=$(unshare --net "$test_program" --tap 2>/dev/null)
status=$?
cases=$(printf '%s\n' "$out" | grep -c '^ok ')
skipped=$(printf '%s\n' "$out" | grep -c '^ok .* # SKIP the loopback interface cannot be used')
others=$(printf '%s\n' "$out" | grep -E '^(not ok|Bail out)' | head -n 3)
if [ "$status" -eq 0 ] && [ "$cases" -gt 0 ] && [ "$cases" -eq "$skipped" ] && [ -z "$others" ]; then
  echo "ok 1 - $cases of $cases cases skipped with the loopback reason, exit 0"
else
  printf '%s\n' "$out" | sed 's/^/# /'
  echo "not ok 1 - exit $status, $skipped of $cases cases skipped with the loopback reason"
fi
