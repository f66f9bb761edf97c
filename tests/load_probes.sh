#!/usr/bin/env bash
# End to end: while libFuzzer loads a corpus, its runs are the mutator's
# probes (harness/loaded.h). Each entry loaded is probed in the engine's run
# and not run again when the mutator meets it; the engine sees the same
# coverage and makes the same number of runs as when its loading runs are
# plain (SEQFUZZ_LOAD_PROBES=0): the state observers and generic checks of
# a probe reach code a plain run does not (kvstore's observers), and an
# entry added to the pool inside the run would make libFuzzer run it again
# to look for a leak.
set -euo pipefail
build=$1 src=$2
fuzzer=$build/kvstore_fixed_fuzzer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
for s in "$src"/seeds/demo/seeds/*.seq; do
  "$build/seqfuzz" encode "$src/seeds/demo/kvstore.api" "$s" -o "$work/corpus/$(basename "$s")"
done
SEQFUZZ_STATS=0 SEQFUZZ_SOLVER=0 "$fuzzer" "$work/corpus" -seed=1 -runs=30000 >"$work/grow.log" 2>&1
files=$(ls "$work/corpus" | wc -l)

# restart MODE: the corpus loaded again (new entries go to another
# directory, so both modes load the same files), then a few mutations.
restart() {
  rm -rf "$work/out" "$work/stats$1" && mkdir -p "$work/out" "$work/stats$1"
  SEQFUZZ_LOAD_PROBES=$1 SEQFUZZ_STATS_DIR=$work/stats$1 SEQFUZZ_SOLVER=0 "$fuzzer" "$work/out" \
    "$work/corpus" -seed=1 -runs=$((files + 3000)) >"$work/log$1" 2>&1
}
restart 0
restart 1
# inited LOG FIELD: the number after FIELD on the engine's INITED line.
inited() {
  grep -m1 'INITED' "$1" | sed 's/^#/runs: /' | grep -o "$2 [0-9]*" | awk '{print $2}'
}
# probes MODE WHICH: the probes the statistics count, all or "loading runs".
probes() {
  grep -ho "$2 [0-9]*" "$work/stats$1"/stats-*.txt | tail -n1 | awk '{print $NF}'
}
for field in runs: cov: ft: corp:; do
  eval "plain_${field%:}=\$(inited \"\$work/log0\" $field) probed_${field%:}=\$(inited \"\$work/log1\" $field)"
done
loaded=$(probes 1 "loading runs") all=$(probes 1 probes) all_plain=$(probes 0 probes)
echo "corpus files: $files"
echo "plain loading runs:   $plain_runs runs, cov $plain_cov, ft $plain_ft, corp $plain_corp; probes: $all_plain"
echo "probing loading runs: $probed_runs runs, cov $probed_cov, ft $probed_ft, corp $probed_corp; probes: $all, in loading runs: $loaded"
[ -n "$plain_ft" ] && [ -n "$probed_ft" ] && [ -n "$loaded" ] ||
  { tail -20 "$work/log1"; echo "FAIL: no INITED line or statistics"; exit 1; }
# The same coverage: the probes' observers, unheld, leave the engine with a
# quarter fewer features here (1457 against 1900 when tried). A run's
# features can move by one where a check's allocations shift the library's
# memory.
[ "$plain_cov" = "$probed_cov" ] || { echo "FAIL: the engine saw other edges"; exit 1; }
[ $((100 * (plain_ft - probed_ft) / plain_ft)) -eq 0 ] && [ $((100 * (probed_ft - plain_ft) / plain_ft)) -eq 0 ] ||
  { echo "FAIL: the engine saw other features while its loading runs probed"; exit 1; }
# No input run again to look for a leak (the pool grew inside the run).
[ "$plain_runs" = "$probed_runs" ] || { echo "FAIL: the engine ran loaded inputs again"; exit 1; }
[ "$loaded" -ge "$files" ] || { echo "FAIL: not every loaded file was probed in its loading run"; exit 1; }
# The mutator probes only what it made since (its outputs the engine kept),
# not the loaded entries again, which plain loading runs leave to it.
[ "$all_plain" -ge "$plain_corp" ] || { echo "FAIL: plain loading runs: loaded entries not probed"; exit 1; }
[ $((all - loaded)) -lt "$plain_corp" ] || { echo "FAIL: loaded entries probed again"; exit 1; }
echo PASS
