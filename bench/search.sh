#!/usr/bin/env bash
# The search benchmark (issue 20): purpose-written libraries with a planted
# bug of a class API fuzzers exist to find (bench/search/LIB/: the library,
# its grammar, a hand-written OSS-Fuzz-style harness). Time to the bug from
# an empty corpus, seqfuzz against the hand-written harness, side by side
# (one core each), per engine, medians over seeds.
#
#   bench/search.sh [--seeds N] [--limit SECONDS] [--engines "libfuzzer afl"] [--base COMMIT]
#                   [--env VAR=VALUE] [LIB...]
#
# Defaults: 5 seeds, 600 s, both engines, every library of
# bench/search/CMakeLists.txt that is there. libFuzzer: each fuzzer from an
# empty directory, -seed=N, until its first crash. AFL++ (afl-fuzz with
# AFL_BENCH_UNTIL_CRASH): the seqfuzz fuzzer with the seqfuzz mutator alone
# (AFL_CUSTOM_MUTATOR_ONLY), from an empty sequence, its libFuzzer build as
# the solver server (SEQFUZZ_SOLVER_TARGET, as `seqfuzz fuzz` runs it: the
# tracing build's comparisons, as CmpLog's for AFL++); the hand-written
# harness with CmpLog (-c, as a careful user runs it), from one zero byte.
# A run that does not find the bug counts as the limit ("600+"). Results: a
# table on stdout and build/bench/search-<date>.txt.
#
# --base COMMIT: seqfuzz before and after a change instead of seqfuzz
# against the hand-written harness (libFuzzer only): COMMIT's fuzzers are
# built in a git worktree (build/bench/search-base) and take the
# hand-written column's place.
#
# SEARCH_FIRST_SEED=N: seeds N to N + seeds - 1 instead of 1 to seeds (more
# seeds for a cell measured before, pooled by hand).
#
# --env VAR=VALUE: seqfuzz with its defaults against seqfuzz with VAR=VALUE
# (a run-time option, harness/options.def), both engines: the second column
# is the same fuzzer run with that variable set.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=5 limit=600 engines="libfuzzer afl" base="" alt_env=""
libs=()
while [ $# -gt 0 ]; do
  case "$1" in
  --seeds) seeds=$2; shift 2 ;;
  --limit) limit=$2; shift 2 ;;
  --engines) engines=$2; shift 2 ;;
  --base) base=$2 engines=libfuzzer; shift 2 ;;
  --env) alt_env=$2; shift 2 ;;
  *) libs+=("$1"); shift ;;
  esac
done
if [ ${#libs[@]} -eq 0 ]; then
  for lib in $(sed -n 's/^set(SEARCH_LIBS \(.*\))$/\1/p' "$root/bench/search/CMakeLists.txt"); do
    [ -f "$root/bench/search/$lib/$lib.api" ] && libs+=("$lib")
  done
fi
source "$root/bench/lib.sh"
mkdir -p "$root/build/bench"
result="$root/build/bench/search-$(date +%Y%m%d-%H%M%S).txt"
work=$(mktemp -d)
# SEARCH_KEEP=1 keeps the runs' directories (logs, corpora, AFL++ stats).
if [ "${SEARCH_KEEP:-0}" = 1 ]; then echo "runs in $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

targets=()
for lib in "${libs[@]}"; do targets+=("search_${lib}_fuzzer" "search_${lib}_handwritten"); done
cmake -S "$root" -B "$root/build" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target seqfuzz seqfuzz-afl "${targets[@]}" >/dev/null
other=handwritten other_name=hand-written other_dir=$root/build/bench/search
if [ -n "$base" ]; then
  old=$root/build/bench/search-base
  bench_tree "$root" "$old" "$base"
  CC=clang-14 CXX=clang++-14 cmake -S "$old" -B "$old/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$old/build" -j"$(nproc)" --target "${targets[@]/%_handwritten/_fuzzer}" >/dev/null
  other=fuzzer other_name="seqfuzz at $base" other_dir=$old/build/bench/search
elif [ -n "$alt_env" ]; then
  other=fuzzer other_name="seqfuzz with $alt_env"
fi
if [[ " $engines " == *" afl "* ]]; then
  "$root/scripts/build-afl.sh" >/dev/null
  cmake --build "$root/build-afl" -j"$(nproc)" --target "${targets[@]}" >/dev/null
  # The hand-written harnesses' CmpLog twins (afl-fuzz -c).
  driver=$(ls /usr/lib/afl/libAFLDriver.a /usr/local/lib/afl/libAFLDriver.a 2>/dev/null | head -1 || true)
  for lib in "${libs[@]}"; do
    d=$root/bench/search/$lib
    env AFL_QUIET=1 AFL_LLVM_CMPLOG=1 afl-clang-fast -O2 -g -fsanitize=address,undefined -I"$d" \
      "$d/${lib}_handwritten.c" "$d/$lib.c" "$driver" -o "$work/${lib}_cmplog"
  done
fi

# lf FUZZER SEED CPU DIR [VAR=VALUE]: libFuzzer until the first crash; prints
# seconds and executions ("LIMIT+ -" when none).
lf() {
  local dir=$4 t0 t1
  mkdir -p "$dir/corpus"
  t0=$(date +%s.%N)
  env ${5:-} SEQFUZZ_STATS=0 taskset -c "$3" "$1" "$dir/corpus" -seed="$2" -max_total_time="$limit" \
    -print_final_stats=1 -artifact_prefix="$dir/" >"$dir/log" 2>&1 || true
  t1=$(date +%s.%N)
  if ls "$dir" | grep -q '^crash-\|^leak-'; then
    echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}') $(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")"
  else
    echo "$limit+ -"
  fi
}

# afl KIND LIB SEED CPU DIR [VAR=VALUE]: afl-fuzz until the first crash (KIND
# fuzzer, seqfuzz's, or handwritten); prints seconds and executions.
afl() {
  local kind=$1 lib=$2 dir=$5 t0 t1
  local fuzzer="$root/build-afl/bench/search/search_${lib}_$kind"
  mkdir -p "$dir/in"
  local extra=()
  if [ "$kind" = fuzzer ]; then
    printf '' >"$dir/empty.seq"
    "$root/build/seqfuzz" encode "$root/bench/search/$lib/$lib.api" "$dir/empty.seq" -o "$dir/in/seed" 2>/dev/null
    extra=(env AFL_CUSTOM_MUTATOR_LIBRARY="$root/build/libseqfuzz-afl.so" AFL_CUSTOM_MUTATOR_ONLY=1
      SEQFUZZ_API="$root/bench/search/$lib/$lib.api"
      SEQFUZZ_SOLVER_TARGET="$root/build/bench/search/search_${lib}_fuzzer")
  else
    printf '\0' >"$dir/in/seed"
  fi
  local cmplog=()
  [ "$kind" = handwritten ] && cmplog=(-c "$work/${lib}_cmplog" -l 2AT)
  t0=$(date +%s.%N)
  (cd "$dir" && "${extra[@]}" env ${6:-} AFL_BENCH_UNTIL_CRASH=1 AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 \
    AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 SEQFUZZ_STATS=0 \
    taskset -c "$4" timeout $((limit + 60)) afl-fuzz -i in -o out -m none -s "$3" -V "$limit" \
    "${cmplog[@]}" -- "$fuzzer" >afl.log 2>&1) || true
  t1=$(date +%s.%N)
  if [ -n "$(ls "$dir/out/default/crashes" 2>/dev/null | grep '^id:')" ]; then
    echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}') $(sed -n 's/^execs_done *: *//p' "$dir/out/default/fuzzer_stats" 2>/dev/null)"
  else
    echo "$limit+ -"
  fi
}

{
  echo "# bench/search.sh --seeds $seeds --limit $limit --engines \"$engines\"${base:+ --base $base}${alt_env:+ --env $alt_env} ${libs[*]} ($(date -u +%F), $(nproc) cores)"
  echo "# seconds to the bug, median (all seeds); $other_name / seqfuzz: >1 means seqfuzz is faster"
  printf '%-9s | %-9s | %-40s | %-40s | %s\n' library engine "seqfuzz" "$other_name" "ratio"
} | tee "$result"
execs=""
for lib in "${libs[@]}"; do
  for engine in $engines; do
    a="" b="" ea="" eb=""
    for seed in $(seq "${SEARCH_FIRST_SEED:-1}" $(( ${SEARCH_FIRST_SEED:-1} + seeds - 1 ))); do
      d="$work/$lib-$engine-$seed"
      if [ "$engine" = libfuzzer ]; then
        lf "$root/build/bench/search/search_${lib}_fuzzer" "$seed" 0 "$d-s" >"$work/a" &
        lf "$other_dir/search_${lib}_$other" "$seed" 1 "$d-h" $alt_env >"$work/b" &
      else
        afl fuzzer "$lib" "$seed" 0 "$d-s" >"$work/a" &
        afl "$other" "$lib" "$seed" 1 "$d-h" $alt_env >"$work/b" &
      fi
      wait
      read -r ra xa <"$work/a"
      read -r rb xb <"$work/b"
      a="$a ${ra%+}" b="$b ${rb%+}" ea="$ea $xa" eb="$eb $xb"
    done
    ma=$(echo "$a" | median) mb=$(echo "$b" | median)
    printf '%-9s | %-9s | %-40s | %-40s | %s\n' "$lib" "$engine" "$ma:$a" "$mb:$b" \
      "$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.2fx", a ? b / a : 0}')" | tee -a "$result"
    execs="$execs$(printf '%-9s | %-9s | %-40s | %s' "$lib" "$engine" "${ea# }" "${eb# }")\n"
  done
done
{
  echo
  echo "executions to the bug (- none):"
  printf "$execs"
} | tee -a "$result"
