#!/usr/bin/env bash
# End to end: a libFuzzer build of seqfuzz counts the edges each corpus entry
# reaches first (harness/edges.h, through the linker wrap of the engine's
# counter registration), and the schedule credits only those entries as new
# code: fewer than the entries libFuzzer keeps (it also keeps inputs that only
# change hit counts, and smaller copies of entries).
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
for s in "$src"/seeds/demo/seeds/*.seq; do
  "$build/seqfuzz" encode "$src/seeds/demo/kvstore.api" "$s" -o "$work/corpus/$(basename "$s")"
done
SEQFUZZ_STATS=1 SEQFUZZ_SOLVER=0 "$build/kvstore_fixed_fuzzer" "$work/corpus" -seed=1 -runs=150000 \
  >"$work/log" 2>&1
stats=$(grep 'seqfuzz: execs' "$work/log" | tail -n1)
found=$(grep 'seqfuzz: new code' "$work/log" | tail -n1)
[ -n "$stats" ] && [ -n "$found" ] || { tail -20 "$work/log"; echo "FAIL: no statistics"; exit 1; }
edges=$(echo "$stats" | grep -o 'edges [0-9]*' | awk '{print $2}')
new_code=$(echo "$found" | grep -o '[0-9]*/' | tr -d / | awk '{s += $1} END {print s + 0}')
kept=$(grep -cE '^#[0-9]+.*(NEW|REDUCE)' "$work/log" || true)
echo "edges counted: $edges; entries credited as new code: $new_code; entries libFuzzer kept: $kept"
[ "${edges:-0}" -gt 0 ] || { echo "FAIL: no edges counted (counter tables not seen)"; exit 1; }
[ "$new_code" -gt 0 ] || { echo "FAIL: no entry credited as new code"; exit 1; }
[ "$new_code" -lt "$kept" ] || { echo "FAIL: every kept entry credited as new code"; exit 1; }
echo PASS
