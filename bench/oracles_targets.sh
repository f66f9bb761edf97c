#!/usr/bin/env bash
# Oracle campaigns on real libraries (issue 17): the two differential targets
# (pcre2-jit: interpreter against JIT; zlib-libdeflate: zlib against
# libdeflate) and, optionally, cJSON and libyaml, whose grammars' parsers
# (`inverse_of`) get the generic round-trip contract. Each target is fuzzed
# for SECONDS with libFuzzer from its seed corpus, restarted after every
# finding with the grown corpus and the next seed (as
# bench/findings_targets.sh does), so one campaign gathers several findings;
# then prints, per target, the executions, the inputs saved and the distinct
# findings (by signature, `seqfuzz signature`), each with the first ERROR
# line of its report. Logs and inputs stay in OUT/LIB/.
#   [NO_BUILD=1] [KNOWN=DIR] bench/oracles_targets.sh [SECONDS=600] [OUT=build/oracles] [LIB...]
# LIB defaults to the two differential targets; add cjson libyaml for the
# round-trip campaigns. NO_BUILD=1 uses the targets as built. KNOWN=DIR
# sets aside the known bugs whose patterns are in DIR/LIB (SEQFUZZ_KNOWN;
# bench/known-patterns holds each target's), so a campaign finds the others.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-600}
out=${2:-$root/build/oracles}
shift 2 2>/dev/null || shift $#
libs=("$@")
[ ${#libs[@]} -gt 0 ] || libs=(pcre2-jit zlib-libdeflate)
sf=${SEQFUZZ:-$root/build/targets/tools/seqfuzz}
mkdir -p "$out"
printf '%-16s %6s %12s %6s %9s\n' lib runs executions saved findings
for lib in "${libs[@]}"; do
  [ "${NO_BUILD:-0}" = 1 ] || "$root/scripts/build-target.sh" "$lib" libfuzzer >"$out/$lib.build.log" 2>&1 ||
    { echo "$lib: build failed ($out/$lib.build.log)"; continue; }
  bindir=$root/build/targets/$lib/libfuzzer
  bin=$bindir/${lib}_seqfuzz
  w=$out/$lib
  rm -rf "$w" && mkdir -p "$w/corpus" "$w/art" "$w/logs"
  unzip -q -o "$bindir/${lib}_seqfuzz_seed_corpus.zip" -d "$w/corpus"
  dict=()
  [ -f "$bindir/${lib}_seqfuzz.dict" ] && dict=(-dict="$bindir/${lib}_seqfuzz.dict")
  lib_known=""
  [ -n "${KNOWN:-}" ] && [ -d "$KNOWN/$lib" ] && lib_known=$(cd "$KNOWN/$lib" && pwd)
  start=$(date +%s) run=0 execs=0
  : >"$w/findings.txt"
  while :; do
    left=$((secs - ($(date +%s) - start)))
    [ "$left" -gt 5 ] || break
    run=$((run + 1))
    log=$w/logs/run-$run.log
    SEQFUZZ_STATS=0 SEQFUZZ_KNOWN=$lib_known "$bin" "$w/corpus" -seed="$run" -max_total_time="$left" -timeout=25 \
      -rss_limit_mb=2560 -print_final_stats=1 "${dict[@]}" -artifact_prefix="$w/art/" >"$log" 2>&1
    # Executions: libFuzzer's final count (printed after a crash too), else
    # the last status line.
    n=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    [ -n "$n" ] || n=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    execs=$((execs + ${n:-0}))
    if grep -q 'ERROR:' "$log"; then
      echo "$("$sf" signature "$log")	$(grep -m1 'ERROR:' "$log")	run-$run" >>"$w/findings.txt"
    fi
  done
  # libFuzzer's empty file for a crash in a probe (the input is crash-probe-*).
  saved=$(find "$w/art" -type f -size +0 | wc -l)
  distinct=$(cut -f1 "$w/findings.txt" | sort -u | grep -c .)
  printf '%-16s %6s %12s %6s %9s\n' "$lib" "$run" "$execs" "$saved" "$distinct"
  # One line per distinct finding: how many runs hit it, its first ERROR line.
  sort -t"	" -k1,1 -s "$w/findings.txt" | awk -F'\t' '
    $1 != last { if (last != "") printf "    %dx %s\n", n, line; last = $1; n = 0; line = $2 " (" $3 ")" }
    { n++ }
    END { if (last != "") printf "    %dx %s\n", n, line }'
done
