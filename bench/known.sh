#!/usr/bin/env bash
# Known bugs set aside (harness/known.h): a campaign on verlib
# (bench/known/), whose shallow bug (a signed overflow on any long version
# component) crashes every fraction of a second and whose deep bug (a stale
# index after vl_prune) needs five calls in order. Three campaigns, each in
# libFuzzer's fork mode with -ignore_crashes=1 (a campaign that goes on after
# crashes, as `seqfuzz fuzz` runs it), side by side per seed:
#   bugs   the library with both bugs, nothing set aside;
#   known  the same, with the shallow bug's patterns set aside (SEQFUZZ_KNOWN);
#   fixed  the shallow bug fixed in the source: the rate to get back.
# The patterns come from a learning phase first: fuzz until a crash of the
# shallow bug, triage it, `seqfuzz known` its minimized input, again with
# what was learned set aside, until a round finds nothing.
#
#   bench/known.sh [SEEDS] [SECONDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=${1:-3}
secs=${2:-60}
build=$root/build
cmake --build "$build" -j"$(nproc)" --target seqfuzz verlib_fuzzer verlib_fixed_fuzzer >/dev/null
sf=$build/seqfuzz
api=$root/bench/known/verlib.api
bugs=$build/bench/known/verlib_fuzzer
fixed=$build/bench/known/verlib_fixed_fuzzer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
known=$work/known
mkdir -p "$known"

# Learning: up to 8 rounds of at most 30 s each.
for round in $(seq 1 8); do
  d=$work/learn$round
  mkdir -p "$d/c" "$d/a"
  SEQFUZZ_KNOWN=$known SEQFUZZ_STATS=0 "$bugs" "$d/c" -seed="$round" -max_total_time=30 \
    -artifact_prefix="$d/a/" >"$d/log" 2>&1 || true
  grep -q "signed integer overflow" "$d/log" || break
  "$sf" triage "$api" "$d/a" --target "$bugs" -o "$d/t" >"$d/triage" 2>&1 || true
  "$sf" known "$api" "$d"/t/1-*.input --target "$bugs" -o "$known/shallow-$round.seq" 2>/dev/null
  echo "learned: $(grep -v '^#' "$known/shallow-$round.seq" | tr '\n' ' ')"
done
echo "$(ls "$known" | wc -l) pattern(s) of the shallow bug set aside"

# campaign NAME FUZZER SEED CORE [ENV...]: "execs/s shallow_crashes deep_seconds"
campaign() {
  local name=$1 fuzzer=$2 seed=$3 core=$4 d=$work/$1-$3
  shift 4
  mkdir -p "$d/c" "$d/a"
  local t0
  t0=$(date +%s)
  env "$@" SEQFUZZ_STATS=0 taskset -c "$core" "$fuzzer" "$d/c" -seed="$seed" -fork=1 \
    -ignore_crashes=1 -max_total_time="$secs" -artifact_prefix="$d/a/" >"$d/log" 2>&1 || true
  local execs shallow=0 deep=- f first="" out
  execs=$(grep -o '^#[0-9]*' "$d/log" | tail -1 | tr -d '#')
  for f in $(ls -tr "$d/a"); do
    # The fixed build crashes on the deep bug only.
    out=$("$fixed" "$d/a/$f" 2>&1 || true)
    if grep -q "heap-buffer-overflow" <<<"$out"; then
      [ -n "$first" ] || first=$(($(stat -c %Y "$d/a/$f") - t0))
    else
      shallow=$((shallow + 1))
    fi
  done
  [ -z "$first" ] || deep=$first
  echo "$(( ${execs:-0} / secs )) $shallow $deep"
}
median() { tr ' ' '\n' | grep -v '^$' | grep -v '^-$' | sort -g |
  awk '{a[NR]=$1} END {if (!NR) print "-"; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "# bench/known.sh $seeds $secs ($(date -u +%F), $(nproc) cores): fork mode, -ignore_crashes=1"
printf '%-6s | %-22s | %-22s | %s\n' "" "executions/s" "shallow crashes" "deep bug found at (s)"
declare -A rate crash deep
for seed in $(seq 1 "$seeds"); do
  # The two rates to compare side by side; then the campaign without.
  campaign known "$bugs" "$seed" 0 SEQFUZZ_KNOWN="$known" >"$work/r-known" &
  campaign fixed "$fixed" "$seed" 1 >"$work/r-fixed" &
  wait
  campaign bugs "$bugs" "$seed" 0 >"$work/r-bugs"
  for n in bugs known fixed; do
    read -r r c dp <"$work/r-$n"
    rate[$n]="${rate[$n]:-} $r" crash[$n]="${crash[$n]:-} $c" deep[$n]="${deep[$n]:-} $dp"
  done
done
for n in bugs known fixed; do
  printf '%-6s | %-22s | %-22s | %s\n' "$n" "$(echo "${rate[$n]}" | median):${rate[$n]}" \
    "$(echo "${crash[$n]}" | median):${crash[$n]}" "$(echo "${deep[$n]}" | median):${deep[$n]}"
done
