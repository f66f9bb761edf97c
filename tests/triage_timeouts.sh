#!/usr/bin/env bash
# Timeouts told apart: a run whose time doubles with each of its repeated
# calls (legal, the work the sequence asked for) is not reported as a bug; a
# hang that a few repeated calls lead to is.
set -euo pipefail
build=$1 src=$2
sf=$build/seqfuzz fuzzer=$build/tests/crashlib_fuzzer api=$src/tests/crashlib.api
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
{
  echo 'c = counter_new();'
  for i in $(seq 24); do echo 'counter_double_work(c);'; done
} >"$work/growth.seq"
{
  echo 'c = counter_new();'
  for i in $(seq 8); do echo 'counter_poke(c);'; done
} >"$work/hang.seq"
for f in growth hang; do "$sf" encode "$api" "$work/$f.seq" -o "$work/in/$f"; done
"$sf" triage "$api" "$work/in" --target "$fuzzer" --timeout 2 --max-seconds 1 \
  >"$work/triage.txt" 2>/dev/null
cat "$work/triage.txt"
grep -q "^2 inputs, 2 crash groups, 0 not reproduced" "$work/triage.txt" ||
  { echo "FAIL: expected two timeouts"; exit 1; }
grep -A2 "/in/growth" "$work/triage.txt" | grep -q "likely API misuse: the time grows with the calls of counter_double_work" ||
  { echo "FAIL: the growing work was not told from a hang"; exit 1; }
grep -A2 "/in/hang" "$work/triage.txt" | grep -q "likely bug" ||
  { echo "FAIL: the hang on the fifth poke was not called a bug"; exit 1; }
echo PASS
