#!/usr/bin/env bash
# What mocks add on a real library: zlib's custom allocators (z_stream's
# zalloc/zfree, passed to zg_deflate_init2 and zg_inflate_init2) as mocks
# that fail where their script says, against the same grammar with both
# parameters the NULL constant (zlib's own allocator, which never fails):
# branch coverage of zlib's files after the same seconds, one core each,
# side by side, medians over seeds (same flags as bench/rules.sh).
#
#   bench/mocks_gain.sh [--seconds S] [--seeds N] [--commit C]
#
# Defaults: 600 s, 3 seeds, HEAD. Both variants are built from git worktrees
# of the commit (build/bench/mocks-with, build/bench/mocks-without; the
# second with the grammar and seeds edited by sed), so the working tree can
# change meanwhile. Results: a table on stdout and build/bench/mocks-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=600 seeds=3 commit=HEAD lib=zlib
while [ $# -gt 0 ]; do
  case "$1" in
  --seconds) secs=$2; shift 2 ;;
  --seeds) seeds=$2; shift 2 ;;
  --commit) commit=$2; shift 2 ;;
  *) echo "usage: bench/mocks_gain.sh [--seconds S] [--seeds N] [--commit C]" >&2; exit 2 ;;
  esac
done
work="$root/build/bench/mocks"
result="$root/build/bench/mocks-$(date +%Y%m%d-%H%M%S).txt"
mkdir -p "$work" "$root/build/targets/cache"

source "$root/bench/lib.sh"
with=$root/build/bench/mocks-with without=$root/build/bench/mocks-without
bench_tree "$root" "$with" "$commit"
bench_tree "$root" "$without" "$commit"
# Without mocks: both allocator parameters become `pointer NAME` (NULL), and
# the seeds lose the two empty scripts they passed.
sed -i -e 's/nullable zalloc_fn zalloc/pointer zalloc/; s/nullable zfree_fn zfree/pointer zfree/' \
  "$without/seeds/$lib/$lib.api"
grep -q 'zalloc_fn zalloc' "$without/seeds/$lib/$lib.api" && { echo "sed left a mock" >&2; exit 1; }
find "$without/seeds/$lib" -name '*.seq' -exec sed -i 's/, x"", x"")/)/' {} +

for t in "$with" "$without"; do
  for mode in libfuzzer coverage; do
    "$t/scripts/build-target.sh" "$lib" $mode >"$work/build-$(basename "$t")-$mode.log" 2>&1
  done
done
{
  echo "# bench/mocks_gain.sh --seconds $secs --seeds $seeds --commit $(git -C "$with" rev-parse --short HEAD) ($(date -u +%F), $(nproc) cores)"
  printf '%-6s | %-30s | %-30s | %s\n' library "branches with mocks (median: all)" \
    "branches without (median: all)" ratio
} | tee "$result"
bw="" bo=""
for seed in $(seq 1 "$seeds"); do
  coverage_run "$with" "$lib" "$work/with-$seed" "$seed" 0 "$secs" &
  coverage_run "$without" "$lib" "$work/without-$seed" "$seed" 1 "$secs" &
  wait
  bw="$bw $(coverage_branches "$with" "$lib" "$work/report-with-$seed" "$work/with-$seed")"
  bo="$bo $(coverage_branches "$without" "$lib" "$work/report-without-$seed" "$work/without-$seed")"
done
mw=$(echo "$bw" | median) mo=$(echo "$bo" | median)
printf '%-6s | %-30s | %-30s | %s\n' "$lib" "$mw:$bw" "$mo:$bo" \
  "$(awk -v a="$mw" -v b="$mo" 'BEGIN {printf "%.2fx", b ? a / b : 0}')" | tee -a "$result"
# Branches covered by any seed of one side and none of the other (the
# library's files, from llvm-cov's lcov export of the merged profiles).
branches() { # branches TREE TAG: "file:line:block:branch" covered, sorted
  llvm-profdata-14 merge -sparse "$work"/report-"$2"-*/merged.profdata -o "$work/$2.profdata"
  llvm-cov-14 export "$1/build/targets/$lib/coverage/${lib}_seqfuzz" -instr-profile="$work/$2.profdata" \
    -format=lcov 2>/dev/null | awk -F'[:,]' '/^SF:/ {f = $2} /^BRDA:/ && $5 != "-" && $5 > 0 {print f ":" $2 ":" $3 ":" $4}' |
    grep "/build/targets/cache/src/" | sed 's|.*/||' | sort -u
}
branches "$with" with >"$work/with.branches"
branches "$without" without >"$work/without.branches"
printf 'all seeds: %d branches with mocks, %d without; %d only with mocks, %d only without (%s)\n' \
  "$(wc -l <"$work/with.branches")" "$(wc -l <"$work/without.branches")" \
  "$(comm -23 "$work/with.branches" "$work/without.branches" | wc -l)" \
  "$(comm -13 "$work/with.branches" "$work/without.branches" | wc -l)" \
  "lists: comm -23 $work/with.branches $work/without.branches" | tee -a "$result"
echo "results: $result; corpora, logs and reports: $work" >&2
