#!/usr/bin/env bash
# What the grammar rules of issue 18 (docs/grammar.md: requires, depends_on,
# steal, refcounted, struct handles, default nullable, the C shapes, printf
# and its SQLite dialect, callbacks as mocks, constants, field reads, states,
# locks, variadics) changed on the bundled targets: glue lines (all, and C
# without comments) and grammar lines before and after,
# and the branch coverage of the seqfuzz fuzzer built from each, side by
# side (one core each, same seconds, same flags as bench/coverage.sh: fork
# mode with crashes ignored), medians over seeds.
#
#   bench/rules.sh [--base COMMIT] [--seconds S] [--seeds N] [LIB...]
#
# Defaults: base 2c363fb (before the rules), 600 s, 1 seed, the five of
# bench/coverage.sh. The base is checked out as a git worktree in
# build/bench/rules-base and its targets built there (the Debian sources are
# shared). Each corpus is measured with the coverage build of its own tree
# (scripts/coverage-target.sh: the library's files only, glue not counted).
# Results: a table on stdout and build/bench/rules-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=2c363fb secs=600 seeds=1
libs=()
while [ $# -gt 0 ]; do
  case "$1" in
  --base) base=$2; shift 2 ;;
  --seconds) secs=$2; shift 2 ;;
  --seeds) seeds=$2; shift 2 ;;
  *) libs+=("$1"); shift ;;
  esac
done
[ ${#libs[@]} -gt 0 ] || libs=(cjson zlib sqlite3 pcre2 libyaml)
work="$root/build/bench/rules"
old="$root/build/bench/rules-base"
mkdir -p "$work" "$root/build/targets"
result="$root/build/bench/rules-$(date +%Y%m%d-%H%M%S).txt"

source "$root/bench/lib.sh"
bench_tree "$root" "$old" "$base" # the base tree
# The C text of a glue header without comments and blank lines (cpp).
code_only() { cpp -fpreprocessed -dD -P -w 2>/dev/null | grep -v '^\s*$'; }
lines() { # lines TREE_OR_COMMIT LIB KIND(glue|code|api): code = glue C lines
  local pat
  [ "$3" = api ] && pat='*.api' || pat='*glue*.h'
  if [ -d "$1" ]; then
    if [ "$3" = code ]; then cat "$1"/seeds/"$2"/$pat 2>/dev/null | code_only | wc -l
    else cat "$1"/seeds/"$2"/$pat 2>/dev/null | wc -l; fi
  else
    git -C "$root" ls-tree --name-only "$1" "seeds/$2/" | grep -E "$( [ "$3" = api ] && echo '\.api$' || echo 'glue.*\.h$')" |
      while read -r f; do git -C "$root" show "$1:$f"; done | if [ "$3" = code ]; then code_only | wc -l; else wc -l; fi
  fi
}

{
  echo "# bench/rules.sh --base $base --seconds $secs --seeds $seeds ${libs[*]} ($(date -u +%F), $(nproc) cores)"
  printf '%-8s | %-11s | %-11s | %-26s | %-26s | %s\n' library "glue lines" "api lines" \
    "branches before (median: all)" "branches after (median: all)" ratio
} | tee "$result"
total_old=0 total_new=0 code_old=0 code_new=0
for lib in "${libs[@]}"; do
  go=$(lines "$base" "$lib" glue) gn=$(lines "$root" "$lib" glue)
  code_old=$((code_old + $(lines "$base" "$lib" code))) code_new=$((code_new + $(lines "$root" "$lib" code)))
  ao=$(lines "$base" "$lib" api) an=$(lines "$root" "$lib" api)
  total_old=$((total_old + go)) total_new=$((total_new + gn))
  for tree in "$old" "$root"; do
    for mode in libfuzzer coverage; do
      "$tree/scripts/build-target.sh" "$lib" $mode >"$work/build-$lib-$mode.log" 2>&1
    done
  done
  bo="" bn=""
  for seed in $(seq 1 "$seeds"); do
    coverage_run "$old" "$lib" "$work/$lib/before-$seed" "$seed" 0 "$secs" &
    coverage_run "$root" "$lib" "$work/$lib/after-$seed" "$seed" 1 "$secs" &
    wait
    bo="$bo $(coverage_branches "$old" "$lib" "$work/$lib/report-before-$seed" "$work/$lib/before-$seed")"
    bn="$bn $(coverage_branches "$root" "$lib" "$work/$lib/report-after-$seed" "$work/$lib/after-$seed")"
  done
  mo=$(echo "$bo" | median) mn=$(echo "$bn" | median)
  printf '%-8s | %4s -> %-4s | %4s -> %-4s | %-26s | %-26s | %s\n' "$lib" "$go" "$gn" "$ao" "$an" \
    "$mo:$bo" "$mn:$bn" "$(awk -v a="$mn" -v b="$mo" 'BEGIN {printf "%.2fx", b ? a / b : 0}')" |
    tee -a "$result"
done
printf 'glue lines, all: %d -> %d (%.2fx)\n' "$total_old" "$total_new" \
  "$(awk -v a="$total_new" -v b="$total_old" 'BEGIN {print b ? a / b : 0}')" | tee -a "$result"
printf 'glue C lines without comments and blank lines, all: %d -> %d (%.2fx)\n' "$code_old" "$code_new" \
  "$(awk -v a="$code_new" -v b="$code_old" 'BEGIN {print b ? a / b : 0}')" | tee -a "$result"
echo "results: $result; corpora, logs and reports: $work" >&2
