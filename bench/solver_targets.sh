#!/usr/bin/env bash
# Does the solver run on the real targets? One campaign per bundled library,
# as bench/coverage.sh runs them (the seqfuzz fuzzer of scripts/build-target.sh
# LIB, its seed corpus, one core, fork mode with crashes ignored: cJSON's
# NaN conversion crashes within a few dozen runs), each job writing its
# statistics to SEQFUZZ_STATS_DIR; then the solver's counts summed over the
# jobs, per minute: steps that tried a frontier (attempts), Z3 queries, flips
# (solutions whose run took the missing outcome), flips the engine kept (new
# coverage). A job that crashed counts up to its last statistics tick (10 s).
#
#   bench/solver_targets.sh [SECONDS] [LIB...]   (default 120 s; cjson zlib sqlite3 libyaml pcre2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-120}
shift || true
libs=("$@")
[ ${#libs[@]} -gt 0 ] || libs=(cjson zlib sqlite3 libyaml pcre2)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# bench/solver_targets.sh $secs ($(date -u +%F), $(nproc) cores): per minute of fuzzing, summed over the jobs"
printf '%-8s | %5s | %9s | %8s | %8s | %6s | %s\n' lib jobs attempts queries flips kept \
  "(totals: attempts queries sat unsat timeout flips kept)"
for lib in "${libs[@]}"; do
  bindir=$root/build/targets/$lib/libfuzzer
  [ -x "$bindir/${lib}_seqfuzz" ] || "$root/scripts/build-target.sh" "$lib" >/dev/null
  d=$work/$lib
  mkdir -p "$d/corpus" "$d/crashes" "$d/stats"
  unzip -q -o "$bindir/${lib}_seqfuzz_seed_corpus.zip" -d "$d/corpus" || true
  SEQFUZZ_STATS=10 SEQFUZZ_STATS_DIR=$d/stats taskset -c 0 "$bindir/${lib}_seqfuzz" \
    -max_total_time="$secs" -seed=1 -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
    -timeout=25 -rss_limit_mb=2560 -artifact_prefix="$d/crashes/" $([ -f "$bindir/${lib}_seqfuzz.dict" ] && echo "-dict=$bindir/${lib}_seqfuzz.dict") \
    "$d/corpus" >"$d/log" 2>&1 || true
  # Each file's solver line (its job's totals), summed.
  { cat "$d"/stats/stats-*.txt 2>/dev/null | grep 'seqfuzz: solver:' || true; } |
    awk -v lib="$lib" -v s="$secs" -v jobs="$(ls "$d/stats" | wc -l)" '
      function num(key,   m) { return match($0, key " [0-9]+") ? substr($0, RSTART + length(key) + 1, RLENGTH - length(key) - 1) + 0 : 0 }
      { at += num("attempts"); q += num("queries"); sat += num("sat"); un += num("unsat");
        to += num("timeout"); fl += num("flips"); kept += num("kept by the engine") }
      END { pm = 60 / s
            printf "%-8s | %5d | %9.1f | %8.1f | %8.1f | %6.1f | %d %d %d %d %d %d %d\n", lib, jobs,
                   at * pm, q * pm, fl * pm, kept * pm, at, q, sat, un, to, fl, kept }'
done
