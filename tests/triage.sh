#!/usr/bin/env bash
# No false positives, and misuse called misuse: fuzzing ownlib with its
# correct grammar finds nothing; with a wrong grammar it crashes, and triage
# classifies every crash group as API misuse with the right reason. The demo
# bug is classified as a likely bug.
set -euo pipefail
build=$1 src=$2
sf=$build/seqfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ok" "$work/wrong" "$work/crashes"
"$build/tests/ownlib_fuzzer" "$work/ok" -seed=1 -runs=30000 >"$work/ok.log" 2>&1 ||
  { echo "FAIL: the correct grammar crashed:"; grep -m3 -E "ERROR|SUMMARY" "$work/ok.log"; exit 1; }
echo "correct grammar: $(grep -o 'Done [0-9]* runs' "$work/ok.log"), no crash"
# Three runs: seeded with an attach (the wrong grammar frees the child twice),
# seeded with a label (never freed), and from nothing.
wapi=$src/tests/ownlib_wrong.api
mkdir -p "$work/a" "$work/b" "$work/c"
printf 'h1 = node_new(1);\nh2 = node_new(2);\nnode_attach(h1, h2);\n' >"$work/attach.seq"
printf 'h1 = node_new(1);\nnode_label(h1);\n' >"$work/label.seq"
"$sf" encode "$wapi" "$work/attach.seq" -o "$work/a/seed"
"$sf" encode "$wapi" "$work/label.seq" -o "$work/b/seed"
for d in a b c; do
  "$build/tests/ownlib_wrong_fuzzer" "$work/$d" -seed=1 -runs=30000 \
    -artifact_prefix="$work/crashes/$d-" >/dev/null 2>&1 || true
done
n=$(ls "$work/crashes" | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: the wrong grammar found nothing"; exit 1; }
"$sf" triage "$src/tests/ownlib_wrong.api" "$work/crashes" --target "$build/tests/ownlib_wrong_fuzzer" \
  --max-seconds 10 >"$work/triage.txt" 2>/dev/null
cat "$work/triage.txt"
groups=$(grep -cE '^\[[0-9]+\]' "$work/triage.txt")
misuse=$(grep -c 'likely API misuse' "$work/triage.txt" || true)
[ "$groups" -gt 0 ] && [ "$misuse" = "$groups" ] || { echo "FAIL: $misuse of $groups groups called misuse"; exit 1; }
grep -q "likely API misuse: .*without .consume." "$work/triage.txt" ||
  { echo "FAIL: the double free was not traced to a missing consume"; exit 1; }
grep -q "likely API misuse: .*declare .release." "$work/triage.txt" ||
  { echo "FAIL: the leak was not traced to a missing release"; exit 1; }
# The demo bug is a bug.
mkdir -p "$work/demo"
"$sf" encode "$src/seeds/demo/kvstore.api" "$src/tests/data/noisy_crash.seq" -o "$work/demo/crash"
"$sf" triage "$src/seeds/demo/kvstore.api" "$work/demo" --target "$build/kvstore_fuzzer" \
  --max-seconds 10 >"$work/demo.txt" 2>/dev/null
grep -q "likely bug" "$work/demo.txt" || { echo "FAIL: the demo bug was not called a bug"; cat "$work/demo.txt"; exit 1; }
echo "PASS"
