#!/bin/sh
# run-fuzz.sh: replay a libFuzzer target's regressions, then fuzz it for a fixed time (TAP).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: run-fuzz.sh FUZZER SEED_CORPUS REGRESSIONS [ARTIFACT_DIR]
#   FL_FUZZ_SECONDS  how long to fuzz (default 12: five targets make a minute in CI)
#
# New inputs go to a scratch corpus, never into the checked-in seeds. A crash, a failed check
# or a timeout leaves its input in ARTIFACT_DIR (default ./fuzz-artifacts); copy it into
# REGRESSIONS so that every build replays it from then on.

set -u

fuzzer=${1:?fuzzer}
seeds=${2:?seed corpus}
regressions=${3:?regressions}
artifacts=${4:-$PWD/fuzz-artifacts}
seconds=${FL_FUZZ_SECONDS:-12}
name=$(basename "$fuzzer")

work=$(mktemp -d "${TMPDIR:-/tmp}/fl-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$artifacts"

echo "1..2"
failures=0

# 1. Every input that ever failed, once each.
set --
if [ -d "$regressions" ]; then
  for f in "$regressions"/*; do
    [ -f "$f" ] && set -- "$@" "$f"
  done
fi
if [ $# -eq 0 ]; then
  echo "ok 1 - $name: no regression inputs yet"
elif "$fuzzer" -runs=1 "$@" >"$work/replay.log" 2>&1; then
  echo "ok 1 - $name: $# regression input(s) pass"
else
  echo "not ok 1 - $name: a regression input fails again"
  sed 's/^/# /' "$work/replay.log" | tail -n 40
  failures=$((failures + 1))
fi

# 2. Fuzz from the seeds. -timeout: an input taking 10 s is a hang (a FIFO opened, a loop).
"$fuzzer" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$artifacts/$name-" "$work/corpus" "$seeds" >"$work/fuzz.log" 2>&1
status=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/fuzz.log" | tail -n 1)
cov=$(grep -E '^#[0-9]+' "$work/fuzz.log" | tail -n 1 | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
corp=$(grep -E '^#[0-9]+' "$work/fuzz.log" | tail -n 1 | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
figures="${execs:-?} executions in ${seconds} s, ${rate:-?} execs/s, coverage ${cov:-?}, corpus ${corp:-?}"

if [ "$status" -eq 0 ]; then
  echo "ok 2 - $name: nothing found ($figures)"
else
  echo "not ok 2 - $name: libFuzzer stopped with status $status ($figures)"
  grep -E 'ERROR|ASSERT|assertion|runtime error|SUMMARY|Test unit written|Base64' \
    "$work/fuzz.log" | head -n 20 | sed 's/^/# /'
  echo "# the input is in $artifacts/; copy it into $regressions/ once fixed"
  failures=$((failures + 1))
fi

[ "$failures" -eq 0 ]
