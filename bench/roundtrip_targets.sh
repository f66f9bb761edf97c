#!/usr/bin/env bash
# The round-trip contract (docs/grammar.md §4a, "Generic contracts") on the
# real libraries whose grammars pair a parser with its printer (`inverse_of`):
# cJSON (cJSON_Parse / cj_print) and libyaml (glue_document_parse /
# glue_document_print). Fuzz each for SECONDS with libFuzzer, one process,
# from a fresh copy of its seed corpus, restarted after every finding with the
# grown corpus and the next -seed, so one finding does not end the campaign
# (a corpus entry whose probe made a finding leaves the corpus first: the next
# run would probe it and stop on it again), then
#  - count the executions (libFuzzer's final stats of every run: all, and
#    those after INITED, i.e. without each restart's run of the corpus), the
#    new corpus entries (each probed: an observed run with the checks) and
#    the findings by kind (`ERROR: seqfuzz: round-trip-failure ...`, sanitizer
#    crashes, leaks, timeouts);
#  - replay every saved input (crash-*, leak-*, timeout-*, and seqfuzz's
#    crash-probe-* for a finding in the mutator's probe, where libFuzzer's own
#    file is empty) and compare its signature with the run that saved it;
#  - triage them all (`seqfuzz triage`): groups, minimized inputs, verdicts.
# Prints a table per library; logs, inputs and triage stay in OUT/LIB.
#   [NO_BUILD=1] [REPLAY_ONLY=1] bench/roundtrip_targets.sh [SECONDS=600] [OUT=/tmp/seqfuzz-roundtrip] [LIB...]
# NO_BUILD=1 uses the targets as built; REPLAY_ONLY=1 replays and triages the
# inputs an earlier run saved in OUT. TARGETS=DIR takes the fuzzers from
# DIR/LIB/libfuzzer (default build/targets; with NO_BUILD=1, e.g. a build of
# seeds/LIB/build.sh with other CFLAGS and OUT), FUZZ_FLAGS adds libFuzzer
# flags to the fuzzing runs (e.g. -detect_leaks=0 while a known leak is
# found in every run).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-600}
out=${2:-${TMPDIR:-/tmp}/seqfuzz-roundtrip}
shift 2 2>/dev/null || shift $#
libs=("$@")
[ ${#libs[@]} -gt 0 ] || libs=(cjson libyaml)
sf=${SEQFUZZ:-$root/build/targets/tools/seqfuzz}
mkdir -p "$out"
printf '%-8s %5s %10s %10s %7s %9s %6s %6s %10s %7s %s\n' lib runs execs fuzzing entries roundtrip \
  other saved replayed groups "bug/misuse"
for lib in "${libs[@]}"; do
  [ "${NO_BUILD:-0}" = 1 ] || "$root/scripts/build-target.sh" "$lib" libfuzzer >"$out/$lib.build.log" 2>&1 ||
    { echo "$lib: build failed ($out/$lib.build.log)"; continue; }
  bindir=${TARGETS:-$root/build/targets}/$lib/libfuzzer
  bin=$bindir/${lib}_seqfuzz api=$bindir/${lib}_seqfuzz.api
  w=$out/$lib
  if [ "${REPLAY_ONLY:-0}" != 1 ] || [ ! -f "$w/saved.txt" ]; then
    rm -rf "$w" && mkdir -p "$w/corpus" "$w/art" "$w/logs"
    unzip -q -o "$bindir/${lib}_seqfuzz_seed_corpus.zip" -d "$w/corpus"
    dict=() flags=()
    [ -f "$bindir/${lib}_seqfuzz.dict" ] && dict=(-dict="$bindir/${lib}_seqfuzz.dict")
    read -ra flags <<<"${FUZZ_FLAGS:-}"
    start=$(date +%s) run=0
    : >"$w/saved.txt"
    while :; do
      left=$((secs - ($(date +%s) - start)))
      [ "$left" -gt 5 ] || break
      run=$((run + 1))
      ls "$w/art" >"$w/before.txt"
      touch "$w/stamp"
      SEQFUZZ_STATS=0 "$bin" "$w/corpus" -seed="$run" -max_total_time="$left" -timeout=25 \
        -rss_limit_mb=2560 -print_final_stats=1 "${dict[@]}" "${flags[@]}" \
        -artifact_prefix="$w/art/" >"$w/logs/run-$run.log" 2>&1
      # libFuzzer's file for a finding outside its run of an input (the
      # probe) is empty and always has the same name: kept aside per run.
      empty_file=$w/art/crash-da39a3ee5e6b4b0d3255bfef95601890afd80709
      [ -e "$empty_file" ] && mkdir -p "$w/empty" && mv "$empty_file" "$w/empty/run-$run"
      ls "$w/art" | comm -13 "$w/before.txt" - | while read -r f; do
        echo "$f $run" >>"$w/saved.txt"
      done
      # A finding on an entry of the corpus (in the probe of an entry, or a
      # leak libFuzzer finds only when it loads the corpus again): the next
      # run would stop on it again. The entry moves to OUT/LIB/quarantine
      # (the artifact, rewritten when an input is found again, keeps it):
      # for crash-X, leak-X, timeout-X the corpus file X (libFuzzer names
      # entries by their SHA-1) or a seed with the same bytes; for a
      # crash-probe file the entry whose text (`seqfuzz show`) is the
      # probe's without its observe_at_end mark.
      mkdir -p "$w/sums" "$w/quarantine"
      find "$w/art" -type f -newer "$w/stamp" | while read -r a; do
        case "$(basename "$a")" in
        crash-probe-*)
          want=$("$sf" show "$api" "$a" 2>/dev/null | grep -v '^observe_at_end;$' | md5sum)
          # (seed corpora may hold directories: libyaml's example seeds)
          find "$w/corpus" -type f | while read -r c; do
            s=$w/sums/$(echo "${c#"$w"/corpus/}" | tr / _)
            [ -f "$s" ] || "$sf" show "$api" "$c" 2>/dev/null | grep -v '^observe_at_end;$' | md5sum >"$s"
            [ "$(cat "$s")" = "$want" ] && mv "$c" "$w/quarantine/"
          done
          ;;
        *)
          c=$(basename "$a")
          c=$w/corpus/${c#*-}
          if [ -e "$c" ]; then
            mv "$c" "$w/quarantine/"
          else
            find "$w/corpus" -type f | while read -r c; do
              [[ "$(basename "$c")" =~ ^[0-9a-f]{40}$ ]] || ! cmp -s "$a" "$c" || mv "$c" "$w/quarantine/"
            done
          fi
          ;;
        esac
      done
    done
  fi
  # Executions and findings per run (each run ends with at most one).
  # Executions count libFuzzer's runs of inputs; `fuzzing` leaves out the
  # ones before INITED (each restart runs the whole corpus once first).
  execs=0 fuzzing=0 probes=0 rt=0 other=0
  : >"$w/findings.txt"
  for log in "$w"/logs/run-*.log; do
    [ -e "$log" ] || continue
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    i=$(sed -n 's/^#\([0-9]*\)[[:space:]]*INITED.*/\1/p' "$log" | head -1)
    execs=$((execs + ${n:-0}))
    fuzzing=$((fuzzing + ${n:-0} - ${i:-${n:-0}}))
    # New corpus entries: each is probed (an observed run, with the checks).
    u=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -1)
    probes=$((probes + ${u:-0}))
    # `seqfuzz signature` exits 1 for a log without a crash.
    if sig=$("$sf" signature "$log" 2>/dev/null) && [ -n "$sig" ]; then
      echo "$(basename "$log" .log): $sig" >>"$w/findings.txt"
      case "$sig" in
      *round-trip-failure*) rt=$((rt + 1)) ;;
      *) other=$((other + 1)) ;;
      esac
    fi
  done
  saved=0 replayed=0
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
  groups=0 verdicts=-
  if [ "$saved" -gt 0 ]; then
    "$sf" triage "$api" "$w/art" --target "$bin" -o "$w/triage" --max-seconds 20 --timeout 25 \
      >"$w/triage.txt" 2>"$w/triage.err"
    groups=$(grep -cE '^\[[0-9]+\]' "$w/triage.txt")
    verdicts="$(grep -c '    likely bug:' "$w/triage.txt")/$(grep -c '    likely API misuse:' "$w/triage.txt")"
  fi
  runs=$(find "$w/logs" -name 'run-*.log' | wc -l)
  printf '%-8s %5s %10s %10s %7s %9s %6s %6s %10s %7s %s\n' "$lib" "$runs" "$execs" "$fuzzing" "$probes" \
    "$rt" "$other" "$saved" "$replayed/$saved" "$groups" "$verdicts"
done
