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
# 101 and the same runs miss it.
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

export FUZZER=$build/tests/cblib_fuzzer RUNS=12000 CBLIB_BUGS=tick
for seed in 3 7; do
  if SEED=$seed run "answers$seed"; then
    grep -q "heap-buffer-overflow" "$work/answers$seed.log" || { echo "FAIL: a different crash (tick)"; exit 1; }
    echo "tick, seed $seed, with answers compared: found in $RUNS runs"
  else
    echo "FAIL: tick not found in $RUNS runs (seed $seed)"; tail -5 "$work/answers$seed.log"; exit 1
  fi
  if SEED=$seed run "noanswers$seed" SEQFUZZ_COMPARES=0; then
    echo "FAIL: tick found without compared values (seed $seed): the test does not show what it means to"; exit 1
  fi
  echo "tick, seed $seed, without: not found in $RUNS runs"
done
echo PASS
