#!/usr/bin/env bash
# The stateful testing stage (issue 22, contracts/contracts.h): the same
# fuzzer with the stage on (SEQFUZZ_CONTRACTS=5) and off (0), side by side
# (one core each, the same seeds), libFuzzer from an empty corpus.
#
#   bench/contracts.sh [--seeds N] [--limit SECONDS] [--seconds SECONDS] [--real SECONDS]
#
#  1. Bugs: the demo (kvstore), tests/statelib (the stage's test library: a
#     bug behind a state random extension rarely calls the function in) and
#     the search benchmark's eight libraries (bench/search): seconds to the
#     first crash, at most
#     --limit (default 60; not found counts as the limit).
#  2. Coverage after --seconds (default 30) on the same libraries' builds
#     without the bug: the edges libFuzzer counted at the end.
#  3. Two real targets (libyaml, pcre2; built by scripts/build-target.sh):
#     branches covered after --real seconds (default 120), fork mode from
#     their seed corpora as bench/coverage.sh runs them, and the crash files.
# Medians over the seeds, with each seed's value. Results: a table on
# stdout and build/bench/contracts-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=5 limit=60 secs=30 real=120
while [ $# -gt 0 ]; do
  case "$1" in
  --seeds) seeds=$2; shift 2 ;;
  --limit) limit=$2; shift 2 ;;
  --seconds) secs=$2; shift 2 ;;
  --real) real=$2; shift 2 ;;
  *) echo "usage: $0 [--seeds N] [--limit S] [--seconds S] [--real S]" >&2; exit 2 ;;
  esac
done
source "$root/bench/lib.sh"
mkdir -p "$root/build/bench"
result="$root/build/bench/contracts-$(date +%Y%m%d-%H%M%S).txt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

libs=$(sed -n 's/^set(SEARCH_LIBS \(.*\))$/\1/p' "$root/bench/search/CMakeLists.txt")
targets=(kvstore_fuzzer kvstore_fixed_fuzzer statelib_fuzzer statelib_nobugs_fuzzer)
for lib in $libs; do targets+=("search_${lib}_fuzzer" "search_${lib}_nobug_fuzzer"); done
cmake -S "$root" -B "$root/build" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target seqfuzz "${targets[@]}" >/dev/null
for lib in libyaml pcre2; do
  "$root/scripts/build-target.sh" "$lib" >/dev/null # this tree's seqfuzz
  [ -d "$root/build/targets/$lib/coverage" ] || "$root/scripts/build-target.sh" "$lib" coverage >/dev/null
done

# fuzzer_path NAME: where the build put it.
fuzzer_path() {
  case "$1" in
  kvstore*) echo "$root/build/$1" ;;
  statelib*) echo "$root/build/tests/$1" ;;
  *) echo "$root/build/bench/search/$1" ;;
  esac
}

# to_bug FUZZER SEED CPU DIR MODE: seconds to the first crash ("LIMIT+").
to_bug() {
  local dir=$4 t0 t1
  mkdir -p "$dir/corpus"
  t0=$(date +%s.%N)
  SEQFUZZ_CONTRACTS=$5 SEQFUZZ_STATS=0 taskset -c "$3" "$1" "$dir/corpus" -seed="$2" \
    -max_total_time="$limit" -artifact_prefix="$dir/" >"$dir/log" 2>&1 || true
  t1=$(date +%s.%N)
  if ls "$dir" | grep -q '^crash-\|^leak-'; then
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f\n", b - a}'
  else
    echo "$limit+"
  fi
}

# edges FUZZER SEED CPU DIR MODE: the edges libFuzzer counted after SECS.
edges() {
  local dir=$4
  mkdir -p "$dir/corpus"
  SEQFUZZ_CONTRACTS=$5 SEQFUZZ_STATS=0 taskset -c "$3" "$1" "$dir/corpus" -seed="$2" \
    -max_total_time="$secs" >"$dir/log" 2>&1 || true
  grep -o 'cov: [0-9]*' "$dir/log" | tail -1 | awk '{print $2}'
}

# row NAME OFF ON: a table line (medians, then each seed).
row() {
  local moff mon
  moff=$(echo "$2" | median) mon=$(echo "$3" | median)
  printf '%-10s | %-36s | %-36s\n' "$1" "$moff:$2" "$mon:$3" | tee -a "$result"
}

{
  echo "# bench/contracts.sh --seeds $seeds --limit $limit --seconds $secs --real $real ($(date -u +%F), $(nproc) cores)"
  echo
  echo "1. seconds to the bug (median: seeds; $limit = not found)"
  printf '%-10s | %-36s | %-36s\n' library "stage off" "stage on"
} | tee "$result"
found_off=0 found_on=0 total=0
for lib in kvstore statelib $libs; do
  case $lib in
  kvstore | statelib) bug=${lib}_fuzzer ;;
  *) bug=search_${lib}_fuzzer ;;
  esac
  off="" on=""
  for seed in $(seq 1 "$seeds"); do
    d="$work/bug-$lib-$seed"
    to_bug "$(fuzzer_path "$bug")" "$seed" 0 "$d-off" 0 >"$work/a" &
    to_bug "$(fuzzer_path "$bug")" "$seed" 1 "$d-on" 5 >"$work/b" &
    wait
    read -r a <"$work/a"
    read -r b <"$work/b"
    total=$((total + 1))
    [ "${a%+}" = "$a" ] && found_off=$((found_off + 1))
    [ "${b%+}" = "$b" ] && found_on=$((found_on + 1))
    off="$off ${a%+}" on="$on ${b%+}"
  done
  row "$lib" "$off" "$on"
done
echo "found: stage off $found_off of $total runs, stage on $found_on of $total" | tee -a "$result"

{
  echo
  echo "2. edges after $secs s, builds without the bug (median: seeds)"
  printf '%-10s | %-36s | %-36s\n' library "stage off" "stage on"
} | tee -a "$result"
for lib in kvstore statelib $libs; do
  case $lib in
  kvstore) fz=kvstore_fixed_fuzzer ;;
  statelib) fz=statelib_nobugs_fuzzer ;;
  *) fz=search_${lib}_nobug_fuzzer ;;
  esac
  off="" on=""
  for seed in $(seq 1 "$seeds"); do
    d="$work/cov-$lib-$seed"
    edges "$(fuzzer_path "$fz")" "$seed" 0 "$d-off" 0 >"$work/a" &
    edges "$(fuzzer_path "$fz")" "$seed" 1 "$d-on" 5 >"$work/b" &
    wait
    off="$off $(cat "$work/a")" on="$on $(cat "$work/b")"
  done
  row "$lib" "$off" "$on"
done

{
  echo
  echo "3. real targets: branches covered after $real s, fork mode (median: seeds), and crash files"
  printf '%-10s | %-36s | %-36s\n' library "stage off" "stage on"
} | tee -a "$result"
for lib in libyaml pcre2; do
  off="" on="" coff=0 con=0
  for seed in $(seq 1 "$seeds"); do
    c="$work/real-$lib-$seed"
    SEQFUZZ_CONTRACTS=0 coverage_run "$root" "$lib" "$c-off" "$seed" 0 "$real" &
    SEQFUZZ_CONTRACTS=5 coverage_run "$root" "$lib" "$c-on" "$seed" 1 "$real" &
    wait
    off="$off $(coverage_branches "$root" "$lib" "$work/rep-off" "$c-off")"
    on="$on $(coverage_branches "$root" "$lib" "$work/rep-on" "$c-on")"
    coff=$((coff + $(ls "$c-off.crashes" | wc -l))) con=$((con + $(ls "$c-on.crashes" | wc -l)))
  done
  row "$lib" "$off" "$on"
  echo "$lib crash files: stage off $coff, stage on $con" | tee -a "$result"
done
