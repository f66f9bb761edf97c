#!/usr/bin/env bash
# The search benchmark's libraries (bench/search/) with their bugs fixed
# (SEARCH_NO_BUGS): seqfuzz and the hand-written harness run each for a
# fixed number of runs and must report nothing. The grammars state every
# rule the libraries document, so a report here would be a false one (misuse
# reported as a bug) or a grammar the benchmark cannot trust.
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
for f in "$build"/bench/search/search_*_nobug_fuzzer "$build"/bench/search/search_*_nobug_handwritten; do
  [ -x "$f" ] || continue
  name=$(basename "$f")
  mkdir -p "$work/$name"
  if ! SEQFUZZ_STATS=0 "$f" "$work/$name" -seed=1 -runs=20000 -artifact_prefix="$work/$name-" \
    >"$work/$name.log" 2>&1; then
    echo "FAIL: $name reported something in 20000 runs:"
    grep -m3 -E "ERROR|SUMMARY" "$work/$name.log" || tail -5 "$work/$name.log"
    exit 1
  fi
  n=$((n + 1))
done
[ "$n" -ge 16 ] || { echo "FAIL: only $n no-bug fuzzers built (8 libraries, 2 harnesses each)"; exit 1; }
echo "$n fuzzers, 20000 runs each: nothing reported"
echo PASS
