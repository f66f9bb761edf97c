#!/usr/bin/env bash
# Findings on the real libraries: fuzz each for SECONDS (libFuzzer, restarted
# after every crash with the grown corpus and the next seed, so one campaign
# gathers many crashes), then
#  - replay every saved input (crash-*, leak-*, timeout-*, and seqfuzz's
#    crash-probe-* for a crash in a probe, where libFuzzer's own file is
#    empty) with the fuzzer and compare its signature with the one of the
#    run that saved it;
#  - triage all of them (`seqfuzz triage`): groups, verdicts, reasons.
# Prints a table per library; the triage reports stay in OUT/LIB/triage.txt.
#   [NO_BUILD=1] [REPLAY_ONLY=1] bench/findings_targets.sh [SECONDS=600] [OUT=build/findings] [LIB...]
# REPLAY_ONLY=1 replays and triages the inputs an earlier run saved in OUT.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-600}
out=${2:-$root/build/findings}
shift 2 2>/dev/null || shift $#
libs=("$@")
[ ${#libs[@]} -gt 0 ] || libs=(cjson zlib sqlite3 pcre2 libyaml)
sf=${SEQFUZZ:-$root/build/targets/tools/seqfuzz}
mkdir -p "$out"
printf '%-8s %6s %8s %10s %9s %7s %s\n' lib runs saved replayed empty groups "bug/misuse"
for lib in "${libs[@]}"; do
  # NO_BUILD=1: use the targets as built (several of these scripts at once).
  [ "${NO_BUILD:-0}" = 1 ] || "$root/scripts/build-target.sh" "$lib" libfuzzer >"$out/$lib.build.log" 2>&1 ||
    { echo "$lib: build failed ($out/$lib.build.log)"; continue; }
  bindir=$root/build/targets/$lib/libfuzzer
  bin=$bindir/${lib}_seqfuzz api=$bindir/${lib}_seqfuzz.api
  w=$out/$lib
  if [ "${REPLAY_ONLY:-0}" = 1 ] && [ -f "$w/saved.txt" ]; then
    run=$(ls "$w/logs" | grep -c '^run-')
  else
    rm -rf "$w" && mkdir -p "$w/corpus" "$w/art" "$w/logs"
    unzip -q -o "$bindir/${lib}_seqfuzz_seed_corpus.zip" -d "$w/corpus"
    dict=()
    [ -f "$bindir/${lib}_seqfuzz.dict" ] && dict=(-dict="$bindir/${lib}_seqfuzz.dict")
    # Fuzz: one run per crash until the time is used.
    start=$(date +%s) run=0
    : >"$w/saved.txt"
    while :; do
      left=$((secs - ($(date +%s) - start)))
      [ "$left" -gt 5 ] || break
      run=$((run + 1))
      ls "$w/art" >"$w/before.txt"
      SEQFUZZ_STATS=0 "$bin" "$w/corpus" -seed="$run" -max_total_time="$left" -timeout=25 \
        -rss_limit_mb=2560 "${dict[@]}" -artifact_prefix="$w/art/" >"$w/logs/run-$run.log" 2>&1
      # libFuzzer's file for a crash outside its run of an input is empty
      # (and always has the same name): kept aside, one per run.
      empty_file=$w/art/crash-da39a3ee5e6b4b0d3255bfef95601890afd80709
      [ -e "$empty_file" ] && mkdir -p "$w/empty" && mv "$empty_file" "$w/empty/run-$run"
      ls "$w/art" | comm -13 "$w/before.txt" - | while read -r f; do
        echo "$f $run" >>"$w/saved.txt"
      done
    done
  fi
  # Replay each saved input; libFuzzer's empty file for a crash in a probe
  # counts as replayed when the probe's own file from that run replays.
  saved=0 replayed=0 empty=0
  : >"$w/replay-failures.txt"
  while read -r f r; do
    saved=$((saved + 1))
    want=$("$sf" signature "$w/logs/run-$r.log")
    "$bin" -runs=1 -timeout=25 -rss_limit_mb=2560 "$w/art/$f" >"$w/logs/replay-$f.log" 2>&1
    got=$("$sf" signature "$w/logs/replay-$f.log")
    if [ "$got" = "$want" ]; then
      replayed=$((replayed + 1))
    else
      echo "$lib: $f (run $r) replays as '$got', was '$want'" >>"$w/replay-failures.txt"
    fi
  done <"$w/saved.txt"
  for e in "$w"/empty/run-*; do
    [ -e "$e" ] || continue
    r=${e##*run-}
    saved=$((saved + 1)) empty=$((empty + 1))
    if grep -q "^crash-probe-.* $r\$" "$w/saved.txt" && ! grep -q "(run $r)" "$w/replay-failures.txt"; then
      replayed=$((replayed + 1))
    else
      echo "$lib: libFuzzer's empty file of run $r and no probe file of that run that replays" >>"$w/replay-failures.txt"
    fi
  done
  groups=0 verdicts=-
  if [ "$saved" -gt 0 ]; then
    "$sf" triage "$api" "$w/art" --target "$bin" -o "$w/triage" --max-seconds 20 --timeout 25 \
      >"$w/triage.txt" 2>"$w/triage.err"
    groups=$(grep -cE '^\[[0-9]+\]' "$w/triage.txt")
    verdicts="$(grep -c '    likely bug:' "$w/triage.txt")/$(grep -c '    likely API misuse:' "$w/triage.txt")"
  fi
  printf '%-8s %6s %8s %10s %9s %7s %s\n' "$lib" "$run" "$saved" "$replayed/$saved" "$empty" "$groups" "$verdicts"
done
