#!/usr/bin/env bash
# Callbacks driven by mocks (docs/grammar.md 3.7) against a hand-written
# harness whose callbacks read the fuzz input (bench/cblib_handwritten.c),
# on tests/cblib.h's six bugs, each behind a callback (an inconsistent
# comparator, a reader's bytes, an input chunk, a hook's answer, two seek
# positions behind arithmetic guards, an allocator failing): time to
# the bug from an empty corpus, libFuzzer, side by side (one core each),
# medians over seeds; then the executions each run took. CBLIB_BUGS turns on
# one bug at a time.
#
#   [BUGS="tick seek"] bench/callbacks.sh [SEEDS] [TIME_LIMIT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=${1:-5}
limit=${2:-120}
cmake --build "$root/build" -j"$(nproc)" --target cblib_fuzzer >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang-14 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
  -I "$root/tests" "$root/bench/cblib_handwritten.c" "$root/tests/cblib.c" -o "$work/handwritten"
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# run FUZZER BUG SEED CORE: seconds and executions to the crash ($limit+ and
# "-" when none).
run() {
  local dir="$work/$(basename "$1")-$2-$3" t0 t1
  mkdir -p "$dir/corpus"
  t0=$(date +%s.%N)
  CBLIB_BUGS=$2 SEQFUZZ_STATS=0 taskset -c "$4" "$1" "$dir/corpus" -seed="$3" -max_total_time="$limit" \
    -print_final_stats=1 -artifact_prefix="$dir/" >"$dir/log" 2>&1 || true
  t1=$(date +%s.%N)
  if grep -q "ERROR: AddressSanitizer" "$dir/log"; then
    echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}') $(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")"
  else
    echo "$limit+ -"
  fi
}
echo "# bench/callbacks.sh $seeds $limit ($(date -u +%F), $(nproc) cores): seconds to the bug, median (all)"
printf '%-7s | %-36s | %-36s | %s\n' bug "seqfuzz (mocks)" "hand-written harness" "hand-written / seqfuzz"
execs=""
for bug in ${BUGS:-sort read pull tick seek reserve}; do
  a="" b="" ea="" eb=""
  for seed in $(seq 1 "$seeds"); do
    run "$root/build/tests/cblib_fuzzer" "$bug" "$seed" 0 >"$work/a" &
    run "$work/handwritten" "$bug" "$seed" 1 >"$work/b" &
    wait
    read -r ra xa <"$work/a"
    read -r rb xb <"$work/b"
    a="$a ${ra%+}" b="$b ${rb%+}" ea="$ea $xa" eb="$eb $xb"
  done
  ma=$(echo "$a" | median) mb=$(echo "$b" | median)
  printf '%-7s | %-36s | %-36s | %s\n' "$bug" "$ma:$a" "$mb:$b" \
    "$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.2fx", a ? b / a : 0}')"
  execs="$execs$(printf '%-7s | %-36s | %s' "$bug" "${ea# }" "${eb# }")\n"
done
echo
echo "executions to the bug (libFuzzer's units; - none):"
printf '%-7s | %-36s | %s\n' bug "seqfuzz (mocks)" "hand-written harness"
printf "$execs"
