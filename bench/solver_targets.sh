#!/usr/bin/env bash
# Does the solver run on the real targets? One libFuzzer campaign per
# bundled library (scripts/fuzz-target.sh, from its seed corpus, one core),
# then the solver's last statistics line, per minute: steps that tried a
# frontier (attempts), Z3 queries, flips (solutions whose run took the
# missing outcome), flips the engine kept (new coverage), and the share of
# the time the solver took (its budget is 5%, x4 while coverage stalls).
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
echo "# bench/solver_targets.sh $secs ($(date -u +%F), $(nproc) cores): per minute of fuzzing"
printf '%-8s | %8s | %8s | %8s | %8s | %6s | %s\n' lib attempts queries flips kept share "(totals: sites frontiers attempts queries sat unsat timeout flips kept)"
for lib in "${libs[@]}"; do
  SEQFUZZ_STATS=10 taskset -c 0 "$root/scripts/fuzz-target.sh" "$lib" "$secs" --corpus "$work/$lib/corpus" \
    >"$work/$lib.log" 2>&1 || true
  line=$(grep 'seqfuzz: solver:' "$work/$lib.log" | tail -n1)
  if [ -z "$line" ]; then
    printf '%-8s | no solver line (see the log: %s)\n' "$lib" "$(tail -n1 "$work/$lib.log")"
    continue
  fi
  num() { sed -n "s/.*$1 \([0-9]*\).*/\1/p" <<<"$line"; }
  share=$(sed -n 's/.*solver: \([0-9.]*\)% of the time.*/\1/p' <<<"$line")
  sites=$(num sites) fr=$(num frontiers) at=$(num attempts) q=$(num queries) sat=$(num sat)
  unsat=$(num unsat) to=$(num timeout) fl=$(num flips) kept=$(num "kept by the engine")
  pm() { awk -v x="$1" -v s="$secs" 'BEGIN {printf "%.1f", x * 60 / s}'; }
  printf '%-8s | %8s | %8s | %8s | %8s | %5s%% | %s\n' "$lib" "$(pm "$at")" "$(pm "$q")" "$(pm "$fl")" \
    "$(pm "$kept")" "$share" "$sites $fr $at $q $sat $unsat $to $fl $kept"
done
