#!/bin/sh
# run-spin.sh: model-check tests/spin/fl.pml with spin and report in TAP.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: run-spin.sh MODE MODEL [TRAIL_DIR [SPIN]]
#   MODE  safety    3 libfl processes, up to 2 crashes: mutual exclusion, no theft, release
#                   removes only its own lock, the put-back T5 never happens (exhaustive);
#                   and the same with a reader taking LOCK_SH at any step (the claim way,
#                   C1-C3), with 2 libfl processes and 2 crashes (FL_MODEL_FULL=1: 3 and 1,
#                   about 6 minutes and 5 GB)
#         liveness  3 libfl processes, up to 1 crash: every process finishes, i.e. no waiter
#                   waits forever, woken by events alone (acceptance cycles, weak fairness);
#                   and with 2 crashes, the one case where the 1 s re-check is needed
#         mixed     2 libfl processes and 1 original-protocol peer: which guarantees are lost;
#                   each lost one must produce a counterexample, saved to TRAIL_DIR
#         mutants   the protocol with one step broken: each must be caught (the claim's two
#                   with the reader)
#
# The environment may set SPIN and MODEL_CC (default: spin, cc), and FL_MODEL_FULL=1 to run
# the liveness check with 2 crashes and the re-check as well (long: see docs/guarantees.md).
#
# Counterexamples print as the steps of docs/protocol.md, one per line, and are written to
# TRAIL_DIR/<mode>-<property>.trail.txt.

set -u

mode=${1:?mode}
model=${2:?model}
trail_dir=${3:-.}
spin=${4:-${SPIN:-spin}}
cc=${MODEL_CC:-cc}

if ! command -v "$spin" >/dev/null 2>&1; then
  echo "1..0 # SKIP spin not found (Debian package spin)"
  exit 0
fi
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "1..0 # SKIP no C compiler ($cc) to build the verifier"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/fl-spin.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cp "$model" "$work/fl.pml" || exit 1
mkdir -p "$trail_dir"

n=0
failures=0

# check NAME EXPECT SPIN_FLAGS CC_FLAGS PAN_FLAGS
#   EXPECT is "holds" (no error, search complete) or "fails" (a counterexample is found and
#   replayed into a trail).
check ()
{
  name=$1 expect=$2 spin_flags=$3 cc_flags=$4 pan_flags=$5
  n=$((n + 1))
  rm -f "$work"/pan* "$work"/*.trail

  if ! (cd "$work" && $spin $spin_flags -a fl.pml >spin.log 2>&1); then
    echo "not ok $n - $name: spin -a failed"
    sed 's/^/# /' "$work/spin.log"
    failures=$((failures + 1))
    return
  fi
  # -w: pan's generated code trips gcc's array-bounds heuristics; it is not ours to fix.
  if ! (cd "$work" && $cc -w -O2 $cc_flags -o pan pan.c >cc.log 2>&1); then
    echo "not ok $n - $name: compiling the verifier failed"
    sed 's/^/# /' "$work/cc.log"
    failures=$((failures + 1))
    return
  fi

  (cd "$work" && ./pan $pan_flags >pan.log 2>&1)
  errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$work/pan.log" | tail -n 1)
  states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$work/pan.log" | tail -n 1)
  trans=$(sed -n 's/^ *\([0-9.e+]*\) transitions.*/\1/p' "$work/pan.log" | tail -n 1)
  secs=$(sed -n 's/^pan: elapsed time \([0-9.e+]*\) seconds.*/\1/p' "$work/pan.log" | tail -n 1)
  mem=$(sed -n 's/^ *\([0-9.]*\)\s*total actual memory usage.*/\1/p' "$work/pan.log" | tail -n 1)
  figures="${states:-?} states, ${trans:-?} transitions, ${secs:-?} s, ${mem:-?} MB"

  if [ -z "$errors" ]; then
    echo "not ok $n - $name: the verifier did not finish"
    sed 's/^/# /' "$work/pan.log"
    failures=$((failures + 1))
    return
  fi

  case $expect in
    holds)
      if [ "$errors" -eq 0 ] && ! grep -q 'max search depth too small' "$work/pan.log"; then
        echo "ok $n - $name holds ($figures)"
      else
        echo "not ok $n - $name: $errors error(s) ($figures)"
        grep -E '^pan|assert' "$work/pan.log" | sed 's/^/# /'
        if [ -f "$work/fl.pml.trail" ]; then
          (cd "$work" && $spin $spin_flags -t fl.pml 2>/dev/null) \
            | sed -n 's/^ *MSC: //p' >"$trail_dir/$name.trail.txt"
          sed 's/^/#   /' "$trail_dir/$name.trail.txt"
        fi
        failures=$((failures + 1))
      fi
      ;;
    fails)
      if [ "$errors" -gt 0 ] && [ -f "$work/fl.pml.trail" ]; then
        (cd "$work" && $spin $spin_flags -t fl.pml 2>/dev/null) \
          | sed -n 's/^ *MSC: //p; s/^ *<<<<<START OF CYCLE>>>>>/-- the cycle repeats from here --/p' \
          >"$trail_dir/$name.trail.txt"
        what=$(grep -E '^pan:1: ' "$work/pan.log" | head -n 1 | sed 's/^pan:1: //; s/ (at depth.*//')
        echo "ok $n - $name: counterexample found, as expected: $what ($figures)"
        echo "#   counterexample ($trail_dir/$name.trail.txt):"
        sed 's/^/#   /' "$trail_dir/$name.trail.txt"
      else
        echo "not ok $n - $name: expected a counterexample, found none ($figures)"
        failures=$((failures + 1))
      fi
      ;;
  esac
}

# Flags shared by the runs.
safety_cc="-DSAFETY -DCOLLAPSE"
safety_pan="-m100000 -w24 -n"
# -DREACH and -i: keep searching for a shorter counterexample, so trails are readable.
short_cc="-O0 -DSAFETY -DREACH"
short_pan="-m100000 -w20 -i -n"
live_cc="-DCOLLAPSE -DNFAIR=3"
live_pan="-a -f -m100000 -w22 -n"
libfl_props="-DP_MUTEX -DP_THEFT -DP_RELEASE -DP_NO_T5"
mixed="-DNLIBFL=2 -DNPEER=1 -DRECHECK -DEXIT"

case $mode in
  safety)
    if [ "${FL_MODEL_FULL:-0}" = 1 ]; then
      echo "1..3"
    else
      echo "1..2"
    fi
    check "safety-libfl" holds \
      "-DNLIBFL=3 -DCRASHES=2 -DRECHECK -DEXIT $libfl_props" "$safety_cc" "$safety_pan"
    # A reader's LOCK_SH on stale locks sends takers the claim way (docs/protocol.md, 4).
    check "safety-reader" holds \
      "-DNLIBFL=2 -DCRASHES=2 -DRECHECK -DEXIT -DREADER $libfl_props" "$safety_cc" "$safety_pan"
    if [ "${FL_MODEL_FULL:-0}" = 1 ]; then
      check "safety-reader-3" holds \
        "-DNLIBFL=3 -DCRASHES=1 -DRECHECK -DEXIT -DREADER $libfl_props" "$safety_cc" \
        "-m200000 -w27 -n"
    fi
    ;;
  liveness)
    if [ "${FL_MODEL_FULL:-0}" = 1 ]; then
      echo "1..4"
    else
      echo "1..3"
    fi
    # Events alone (inotify, pidfd) wake every waiter after any one crash.
    check "liveness-libfl" holds "-DNLIBFL=3 -DCRASHES=1 -DLIVENESS" "$live_cc" "$live_pan"
    # A reader that holds LOCK_SH forever, or takes and drops it at will, stops nobody.
    check "liveness-reader" holds "-DNLIBFL=2 -DCRASHES=1 -DLIVENESS -DREADER" "$live_cc" \
      "$live_pan"
    # After two (a holder, then a taker in the middle of its takeover), a waiter that saw the
    # taker's LOCK_EX relies on the 1 s re-check: docs/protocol.md, section 10.
    check "liveness-events-only-2-crashes" fails "-DNLIBFL=3 -DCRASHES=2 $libfl_props" \
      "$short_cc" "-m100000 -w22 -n"
    if [ "${FL_MODEL_FULL:-0}" = 1 ]; then
      check "liveness-libfl-2-crashes" holds \
        "-DNLIBFL=3 -DCRASHES=2 -DRECHECK -DLIVENESS" "$live_cc" "-a -f -m100000 -w26 -n"
    fi
    ;;
  mixed)
    echo "1..11"
    # Without a crash, with processes exiting normally once done.
    check "mixed-no-crash" holds \
      "$mixed -DCRASHES=0 -DP_MUTEX -DP_MUTEX_ALL -DP_THEFT_BY_LIBFL -DP_PEER -DP_NO_T5 -DP_PUTBACK -DP_RELEASE" \
      "-O0 $safety_cc" "$safety_pan"
    check "mixed-no-crash-P_THEFT_BY_PEER" fails "$mixed -DCRASHES=0 -DP_THEFT_BY_PEER" \
      "$short_cc" "$short_pan"
    check "mixed-no-crash-liveness" holds "-DNLIBFL=2 -DNPEER=1 -DCRASHES=0 -DEXIT -DLIVENESS" \
      "-O0 $live_cc" "$live_pan"
    # With one crash (and the crashed process restarted).
    for p in P_MUTEX P_THEFT_BY_PEER P_PUTBACK P_THEFT_BY_LIBFL P_PEER P_RELEASE P_NO_T5; do
      check "mixed-$p" fails "$mixed -DCRASHES=1 -D$p" "$short_cc" "$short_pan"
    done
    check "mixed-liveness" fails "-DNLIBFL=2 -DNPEER=1 -DCRASHES=1 -DRECHECK -DLIVENESS" \
      "-O0 -DNFAIR=3" "-a -f -m100000 -w20 -n"
    ;;
  mutants)
    echo "1..5"
    check "mutant-no-T1" fails "-DCRASHES=1 -DRECHECK -DEXIT $libfl_props -DMUT_NO_T1" \
      "$short_cc" "$short_pan"
    check "mutant-flock-after-link" fails \
      "-DCRASHES=1 -DRECHECK -DEXIT $libfl_props -DMUT_FLOCK_LATE" "$short_cc" "$short_pan"
    check "mutant-watch-after-link" fails "-DCRASHES=1 $libfl_props -DMUT_LATE_WATCH" \
      "$short_cc" "$short_pan"
    # C3 left out: a claim that exists is taken for dead, and the next generation linked.
    check "mutant-claim-no-probe" fails \
      "-DCRASHES=1 -DRECHECK -DEXIT -DREADER $libfl_props -DMUT_CLAIM_NO_PROBE" "$safety_cc" \
      "$safety_pan"
    # A dead claim replaced by rename() instead of passed over: two takers act. These two
    # search depth first without -i: a shortest trail would take minutes to find.
    check "mutant-claim-replace" fails \
      "-DNLIBFL=2 -DCRASHES=2 -DRECHECK -DEXIT -DREADER $libfl_props -DMUT_CLAIM_REPLACE" \
      "$safety_cc" "$safety_pan"
    ;;
  *)
    echo "Bail out! unknown mode '$mode'"
    exit 1
    ;;
esac

[ "$failures" -eq 0 ]
