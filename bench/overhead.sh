#!/usr/bin/env bash
# Executor overhead at equal work: the same API call sequences replayed by the
# hand-written harness (bench/kvstore_handwritten.c) and by seqfuzz, no
# mutation, side by side, several repetitions, medians.
#
#   bench/overhead.sh [CORPUS_SECONDS=30] [REPS=5] [COPIES=20]
#
# bench/run.sh's throughput compares the two fuzzers as they fuzz, each on the
# sequences it makes (different lengths, stores, values). Here both make the
# same calls: the hand-written harness's corpus (CORPUS_SECONDS of fuzzing) is
# translated into seqfuzz sequences that make the same calls
# (bench/handwritten_trace.c; inputs with a failing call are left out, where a
# seqfuzz run would stop), each input is copied COPIES times, and both
# harnesses run their copies once (libFuzzer -runs=0) on the same library
# (bug fixed) with the same flags. The ratio of executions per second is what
# seqfuzz's decoding and executor (libffi calls, handle lifetimes, argument
# blocks, the cleanup) cost per execution; the mutator is not in it (see the
# profile in bench/README.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-30} reps=${2:-5} copies=${3:-20}
cmake -S "$root" -B "$root/build" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target kvstore_fixed_fuzzer handwritten_fixed_fuzzer \
  seqfuzz >/dev/null
B=$root/build
api=$root/seeds/demo/kvstore.api
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# The translator: the hand-written harness with every kv_ call wrapped.
wraps=$(for f in open close put lookup del compact snapshot merge count checksum iter iter_next; do
  printf -- '-Wl,--wrap=kv_%s ' "$f"; done)
# shellcheck disable=SC2086
clang-14 -O1 -DKVSTORE_FIXED=1 -I "$root/seeds/demo" "$root/bench/handwritten_trace.c" \
  "$root/bench/kvstore_handwritten.c" "$root/seeds/demo/kvstore.c" $wraps -o "$work/trace"

# The hand-written harness's corpus, and the same calls as seqfuzz inputs.
mkdir -p "$work/corpus" "$work/text" "$work/h" "$work/s" "$work/out" "$work/empty"
"$B/handwritten_fixed_fuzzer" "$work/corpus" -seed=1 -max_total_time="$secs" >/dev/null 2>&1 || true
"$work/trace" "$work/text" "$work/corpus"/* 2>&1 | tail -n1
n=0 calls=0
for t in "$work"/text/*.seq; do
  name=$(basename "$t" .seq)
  "$B/seqfuzz" encode "$api" "$t" -o "$work/one" >/dev/null 2>&1 || continue
  for k in $(seq 1 "$copies"); do
    cp "$work/corpus/$name" "$work/h/$name.$k"
    cp "$work/one" "$work/s/$name.$k"
  done
  n=$((n + copies))
  calls=$((calls + copies * $(grep -c ';' "$t" || true)))
done
echo "inputs: $n ($copies copies each), calls per input before the cleanup: $(awk -v c="$calls" -v n="$n" 'BEGIN {printf "%.1f", c / n}')"

# run BINARY DIR: wall-clock seconds of one pass (new units go to out/).
run() {
  rm -rf "$work/out" && mkdir -p "$work/out"
  local t0 t1
  t0=$(now)
  "$1" -runs=0 "$work/out" "$2" >/dev/null 2>&1
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'
}
: >"$work/rates"
for r in $(seq 1 "$reps"); do
  for side in handwritten:handwritten_fixed_fuzzer:h seqfuzz:kvstore_fixed_fuzzer:s; do
    IFS=: read -r label bin dir <<<"$side"
    full=$(run "$B/$bin" "$work/$dir")
    start=$(run "$B/$bin" "$work/empty")
    echo "$label $(awk -v n="$n" -v f="$full" -v s="$start" 'BEGIN {printf "%.0f", n / (f - s)}')" \
      >>"$work/rates"
  done
done
hw=$(awk '$1 == "handwritten" {print $2}' "$work/rates" | median)
sf=$(awk '$1 == "seqfuzz" {print $2}' "$work/rates" | median)
echo "== the same calls replayed ($reps repetitions; medians) =="
printf '%-12s %12s\n' harness execs/s handwritten "$hw" seqfuzz "$sf"
awk -v a="$sf" -v b="$hw" 'BEGIN {printf "ratio seqfuzz/handwritten at equal work: %.2fx\n", a / b}'
echo "raw: $(tr '\n' ' ' <"$work/rates")"
