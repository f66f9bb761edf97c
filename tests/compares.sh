#!/usr/bin/env bash
# Comparison tracing: magiclib's bug sits behind `key == 0xC0FFEE42`. With
# libFuzzer's own comparison feedback off (-use_cmp=0), seqfuzz finds it only
# through the constants its harness traces (the solver is off: this is about
# the constants alone); with those off too
# (SEQFUZZ_COMPARES=0) the same runs find nothing.
# Then the same for mocks' answers: cblib's tick bug needs its hook to answer
# 42 (`r == 42`, a small number the constants leave out). The harness notes
# what an answer was compared with, and the mutator tries that value in the
# answer's place (input to state); without it the answer is 1 legal value in
# 101 and the same runs mostly miss it.
# Then bytes: magiclib's lock also opens for a pass phrase (strcmp) and for
# a badge whose bytes from the third on are a mark (memcmp), neither named
# by the grammar. The harness notes what bytes the library compared with
# what, and the mutator puts the other side in place of the side it finds
# in an argument; without that (SEQFUZZ_COMPARES=0) nothing finds them.
# Then integer arguments: magiclib's dial opens for a combination the lock
# makes at run time (no constant names it, and the comparison is of two
# variables); the harness notes what an argument was compared with and the
# mutator puts that in its place.
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # run NAME [ENV...]: 0 if a crash was found
  local name=$1
  shift
  mkdir -p "$work/$name/c" "$work/$name/a"
  env SEQFUZZ_SOLVER=0 "$@" "${FUZZER:-$build/tests/magiclib_fuzzer}" "$work/$name/c" -seed="${SEED:-1}" \
    -runs="${RUNS:-60000}" -use_cmp=0 \
    -use_value_profile=0 -artifact_prefix="$work/$name/a/" >"$work/$name.log" 2>&1 || true
  ls "$work/$name/a" | grep -q '^crash-'
}
if run with; then
  grep -q "heap-buffer-overflow" "$work/with.log" || { echo "FAIL: a different crash"; exit 1; }
  echo "with traced constants: found ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/with.log" || echo "crash"))"
else
  echo "FAIL: not found with traced constants"; tail -5 "$work/with.log"; exit 1
fi
if run without SEQFUZZ_COMPARES=0; then
  echo "FAIL: found without traced constants: the test does not show what it means to"; exit 1
fi
echo "without traced constants: not found in 60000 runs"

# Over nine seeds of 6000 runs each (a count, not one seed: which seeds hit
# the hook's 1-in-101 answer by chance moves with any change of the mutator):
# with the noted answers most find it (7 of 9 when written), without them few
# (2 of 9).
export FUZZER=$build/tests/cblib_fuzzer RUNS=6000 CBLIB_BUGS=tick
with=0 without=0
for seed in 1 2 3 4 5 6 7 8 9; do
  if SEED=$seed run "answers$seed"; then
    grep -q "heap-buffer-overflow" "$work/answers$seed.log" || { echo "FAIL: a different crash (tick)"; exit 1; }
    with=$((with + 1))
  fi
  SEED=$seed run "noanswers$seed" SEQFUZZ_COMPARES=0 && without=$((without + 1))
done
echo "tick in $RUNS runs: found by $with of 9 seeds with answers compared, $without of 9 without"
[ "$with" -ge 5 ] || { echo "FAIL: the noted answers did not find tick in most seeds"; exit 1; }
[ "$without" -le 4 ] || { echo "FAIL: tick found in most seeds without compared values: the test does not show what it means to"; exit 1; }

# Bytes compared, input to state: a pass phrase (strcmp) and a badge mark at
# an offset (memcmp). Each fuzzer's bug is behind its own comparison.
for kind in say badge; do
  export FUZZER=$build/tests/magiclib_${kind}_fuzzer RUNS=30000
  if SEED=1 run "bytes-$kind"; then
    grep -q "heap-buffer-overflow" "$work/bytes-$kind.log" || { echo "FAIL: a different crash ($kind)"; exit 1; }
    echo "$kind with compared bytes: found ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/bytes-$kind.log" || echo "crash"))"
  else
    echo "FAIL: $kind not found with compared bytes"; tail -5 "$work/bytes-$kind.log"; exit 1
  fi
  if SEED=1 run "nobytes-$kind" SEQFUZZ_COMPARES=0; then
    echo "FAIL: $kind found without compared bytes: the test does not show what it means to"; exit 1
  fi
  echo "$kind without compared bytes: not found in $RUNS runs"
done

# Integer arguments compared, input to state: the dial's combination.
export FUZZER=$build/tests/magiclib_dial_fuzzer RUNS=30000
if SEED=1 run args; then
  grep -q "heap-buffer-overflow" "$work/args.log" || { echo "FAIL: a different crash (dial)"; exit 1; }
  echo "dial with compared arguments: found ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/args.log" || echo "crash"))"
else
  echo "FAIL: dial not found with compared arguments"; tail -5 "$work/args.log"; exit 1
fi
if SEED=1 run noargs SEQFUZZ_COMPARES=0; then
  echo "FAIL: dial found without compared arguments: the test does not show what it means to"; exit 1
fi
echo "dial without compared arguments: not found in $RUNS runs"
echo PASS
