#!/usr/bin/env bash
# Each real-library target (seeds/<lib>/build.sh) builds from its Debian
# source, and every seed sequence of its grammar runs through the executor to
# the end (no error stop) with no sanitizer report. And every documented bug
# of the Debian version (seeds/<lib>/bugs/*.seq) still reproduces: its run
# ends with a sanitizer report, a seqfuzz report or a timeout
# (bugs/worked-around/ holds bugs a grammar rule keeps runs from, explained
# in C). And the fuzzer sets the engine flags its size asks for
# (tests/engine_flags.sh).
#   tests/targets_seeds.sh [LIB...]     (default: every seeds/*/build.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
libs=("$@")
if [ ${#libs[@]} -eq 0 ]; then
  for b in "$root"/seeds/*/build.sh; do libs+=("$(basename "$(dirname "$b")")"); done
fi
[ ${#libs[@]} -gt 0 ] || { echo "no targets found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
report='ERROR: [A-Za-z]+Sanitizer: [A-Za-z-]+|runtime error: [^:]*|deadly signal|ERROR: libFuzzer: timeout'
for lib in "${libs[@]}"; do
  out="$root/build/targets/$lib/libfuzzer"
  "$root/scripts/build-target.sh" "$lib" libfuzzer >"$tmp/$lib.build.log" 2>&1 ||
    { echo "FAIL $lib: build (log below)"; tail -20 "$tmp/$lib.build.log"; fail=1; continue; }
  mkdir -p "$tmp/$lib" "$tmp/$lib-files"
  unzip -q "$out/${lib}_seqfuzz_seed_corpus.zip" -d "$tmp/$lib"
  # Seeds made from the library's example files (templates, one directory
  # each) may stop at a parse error of a malformed example, but must not
  # make any sanitizer report; the hand-written ones must run to the end.
  find "$tmp/$lib" -mindepth 1 -maxdepth 1 -type d -exec mv {} "$tmp/$lib-files/" \;
  nfromfiles=$(find "$tmp/$lib-files" -type f | wc -l)
  if [ "$nfromfiles" -gt 0 ]; then
    frc=0
    "$out/${lib}_seqfuzz" -runs=0 "$tmp/$lib-files" >"$tmp/$lib-files.log" 2>&1 || frc=$?
    if [ "$frc" -ne 0 ] || grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$tmp/$lib-files.log"; then
      echo "FAIL $lib: a seed made from an example file made a report:"
      grep -E 'ERROR|runtime error|SUMMARY' "$tmp/$lib-files.log" | head
      fail=1
    fi
  fi
  nseeds=$(find "$tmp/$lib" -type f | wc -l)
  nfiles=$(ls "$root/seeds/$lib/seeds/"*.seq | wc -l)
  log="$tmp/$lib.log"
  rc=0
  SEQFUZZ_TRACE=1 "$out/${lib}_seqfuzz" -runs=0 "$tmp/$lib" >"$log" 2>&1 || rc=$?
  # libFuzzer runs every input once; with -runs=0 it also runs the empty input.
  ok=$(grep -c 'seqfuzz: outcome: ok, [1-9]' "$log" || true)
  if [ "$rc" -ne 0 ] || grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|seqfuzz: outcome: stopped' "$log" ||
    [ "$nseeds" -ne "$nfiles" ] || [ "$ok" -lt "$nseeds" ]; then
    echo "FAIL $lib: exit $rc, $ok of $nseeds seeds ran to the end ($nfiles .seq files); log:"
    grep -E 'ERROR|runtime error|stopped|SUMMARY' "$log" | head -20
    fail=1
  else
    echo "ok   $lib: $nseeds seeds, every call made, no report; $nfromfiles seeds from example files, no report"
  fi
  for bug in "$root/seeds/$lib/bugs/"*.seq; do
    [ -e "$bug" ] || continue
    "$root/build/targets/tools/seqfuzz" encode "$out/${lib}_seqfuzz.api" "$bug" -o "$tmp/bug" >/dev/null
    # -timeout: a bug may be an endless loop (reported as a timeout).
    if "$out/${lib}_seqfuzz" -timeout=5 "$tmp/bug" >"$tmp/bug.log" 2>&1 ||
      ! grep -qE "$report" "$tmp/bug.log"; then
      echo "FAIL $lib: $(basename "$bug") no longer reproduces"
      fail=1
    else
      echo "ok   $lib: $(basename "$bug") reproduces ($(grep -oE "$report" "$tmp/bug.log" | head -1))"
    fi
  done
  # The entropic threshold by the target's size (tests/engine_flags.sh).
  bash "$root/tests/engine_flags.sh" "$out/${lib}_seqfuzz" >"$tmp/flags.log" 2>&1 ||
    { echo "FAIL $lib: engine flags:"; cat "$tmp/flags.log"; fail=1; }
done
exit $fail
