#!/usr/bin/env bash
# Branch coverage of each real library's source: seqfuzz vs the library's own
# (or OSS-Fuzz's) harness, both under plain libFuzzer, same time budget, one
# core each, side by side, several seeds; medians and their ratio.
#
#   bench/coverage.sh [--seconds S] [--seeds N] [--reuse] [--known DIR] [LIB...]
#
# Defaults: 600 s, 3 seeds, all of cjson zlib sqlite3 pcre2 libyaml. Each
# fuzzer starts from its own seed corpus (the target's seed sequences for
# seqfuzz; the project's seed corpus, if it ships one, for the other), with
# its dictionary, -timeout=25 -rss_limit_mb=2560, in libFuzzer's fork mode
# with crashes, OOMs and timeouts ignored (both the same way). Coverage is measured on the
# final corpus with the coverage build (scripts/coverage-target.sh): covered
# branches and lines of the library's own files, counted (not percentages:
# the two binaries may link different parts of a static library).
# Results: a table on stdout and build/bench/coverage-<date>.txt. --reuse
# keeps the results of (library, seed) pairs an earlier run measured with
# the same budget, so seeds can be added in several sittings.
# --known DIR: seqfuzz's fuzzer sets aside the known bugs whose patterns are
# in DIR/LIB/ (SEQFUZZ_KNOWN), as a `seqfuzz fuzz` campaign sets aside each
# bug it has triaged (bench/known-patterns: each bundled library's bugs).
# Without, a shallow bug, or an oracle's finding the own harness cannot
# see, ends a fork-mode job every few seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=600 seeds=3 reuse=0 known=""
libs=()
while [ $# -gt 0 ]; do
  case "$1" in
  --seconds) secs=$2; shift 2 ;;
  --seeds) seeds=$2; shift 2 ;;
  --reuse) reuse=1; shift ;;
  --known) known=$(cd "$2" && pwd); shift 2 ;;
  *) libs+=("$1"); shift ;;
  esac
done
[ ${#libs[@]} -gt 0 ] || libs=(cjson zlib sqlite3 pcre2 libyaml)
work="$root/build/bench/coverage"
mkdir -p "$work"
result="$root/build/bench/coverage-$(date +%Y%m%d-%H%M%S).txt"

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

run_one() { # run_one LIB FUZZER SEED CORE
  local lib=$1 f=$2 seed=$3 core=$4 bindir="$root/build/targets/$1/libfuzzer"
  local corpus="$work/$lib/$f-$seed"
  rm -rf "$corpus" "$corpus.crashes"
  mkdir -p "$corpus" "$corpus.crashes"
  [ -f "$bindir/${lib}_${f}_seed_corpus.zip" ] && unzip -q -o "$bindir/${lib}_${f}_seed_corpus.zip" -d "$corpus"
  local dict=() lib_known=""
  [ -f "$bindir/${lib}_$f.dict" ] && dict=(-dict="$bindir/${lib}_$f.dict")
  [ "$f" = seqfuzz ] && [ -n "$known" ] && [ -d "$known/$lib" ] && lib_known=$known/$lib
  # Fork mode with crashes ignored: libraries with known bugs (seeds/*/bugs)
  # would otherwise end a run in seconds. Same flags for both fuzzers.
  SEQFUZZ_STATS=0 SEQFUZZ_KNOWN=$lib_known taskset -c "$core" "$bindir/${lib}_$f" -max_total_time="$secs" -seed="$seed" \
    -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
    -timeout=25 -rss_limit_mb=2560 -artifact_prefix="$corpus.crashes/" "${dict[@]}" "$corpus" \
    >"$corpus.log" 2>&1 || true
}

{
  echo "# bench/coverage.sh --seconds $secs --seeds $seeds${known:+ --known $known} ${libs[*]} ($(date -u +%F), $(nproc) cores)"
  printf '%-8s | %-28s | %-28s | %-6s | %-6s | %s\n' library "seqfuzz branches (median: all)" \
    "own branches (median: all)" ratio "lines" crashes
} | tee "$result"
for lib in "${libs[@]}"; do
  # Always (incremental): a coverage build older than the grammar the corpus
  # was fuzzed with would decode the corpus into other calls.
  for mode in libfuzzer coverage; do
    "$root/scripts/build-target.sh" "$lib" $mode >/dev/null
  done
  declare -A br=() ln=()
  crashes=0
  for seed in $(seq 1 "$seeds"); do
    done_file() { echo "$work/$lib/report-$1-$seed/coverage-$secs.txt"; }
    if [ "$reuse" = 0 ] || [ ! -f "$(done_file seqfuzz)" ] || [ ! -f "$(done_file own)" ]; then
      run_one "$lib" seqfuzz "$seed" 0 &
      run_one "$lib" own "$seed" 1 &
      wait
      for f in seqfuzz own; do
        "$root/scripts/coverage-target.sh" "$lib" --fuzzer "$f" -o "$work/$lib/report-$f-$seed" \
          "$work/$lib/$f-$seed" 2>/dev/null | grep '^COVERAGE' >"$work/$lib/coverage.tmp"
        mv "$work/$lib/coverage.tmp" "$(done_file "$f")"
      done
    fi
    for f in seqfuzz own; do
      read -r _ lc _ bc _ <"$(done_file "$f")"
      br[$f]="${br[$f]:-} $bc"
      ln[$f]="${ln[$f]:-} $lc"
      crashes=$((crashes + $(find "$work/$lib/$f-$seed.crashes" -type f | wc -l)))
    done
  done
  ms=$(echo "${br[seqfuzz]}" | median) mo=$(echo "${br[own]}" | median)
  ls_=$(echo "${ln[seqfuzz]}" | median) lo=$(echo "${ln[own]}" | median)
  printf '%-8s | %-28s | %-28s | %-6s | %-6s | %s\n' "$lib" "$ms:${br[seqfuzz]}" "$mo:${br[own]}" \
    "$(awk -v a="$ms" -v b="$mo" 'BEGIN {printf "%.2fx", b ? a / b : 0}')" \
    "$(awk -v a="$ls_" -v b="$lo" 'BEGIN {printf "%.2fx", b ? a / b : 0}')" "$crashes" | tee -a "$result"
  unset br ln
done
echo "results: $result; corpora, logs and reports: $work" >&2
