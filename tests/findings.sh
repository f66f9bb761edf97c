#!/usr/bin/env bash
# Findings you can trust (probelib's traps):
#  1. a crash inside an observer while the mutator probes a corpus entry
#     (outside libFuzzer's run of an input, whose own artifact is then empty)
#     leaves an input that the fuzzer replays to the same signature, whose
#     C reproducer crashes the same way;
#  2. a leak in a call given one handle twice is a bug when two different
#     handles leak the same way (the alias is no reason), the second made
#     the way the first was (the leak needs a source bag with items);
#  3. a crash inside the description's glue is called the glue's fault;
#  4. with that observer part of the coverage state (`coverage`), the seed
#     crashes in the engine's own run, right after its call, and its C
#     reproducer calls the observer where the harness did.
set -euo pipefail
build=$1 src=$2 cc=${3:-clang-14}
sf=$build/seqfuzz fuzzer=$build/tests/probelib_fuzzer api=$src/tests/probelib.api
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/art" "$work/in"

# 1. The seed runs clean; the mutator's first probe of it aborts in tally_check.
printf 't = tally_new();\ntally_take(t);\n' >"$work/take.seq"
"$sf" encode "$api" "$work/take.seq" -o "$work/corpus/seed"
"$fuzzer" "$work/corpus" -seed=1 -runs=2000 -artifact_prefix="$work/art/" >"$work/fuzz.log" 2>&1 &&
  { echo "FAIL: the fuzzer found nothing"; exit 1; }
want=$("$sf" signature "$work/fuzz.log")
echo "fuzzing: $want"
[ "$want" = "deadly in tally_check" ] || { echo "FAIL: unexpected crash"; tail -30 "$work/fuzz.log"; exit 1; }
replayed=0
for f in "$work"/art/*; do
  [ -s "$f" ] || continue # libFuzzer's own file for a crash outside its run: empty
  "$fuzzer" "$f" >"$f.log" 2>&1 && { echo "FAIL: $(basename "$f") does not crash when replayed"; exit 1; }
  got=$("$sf" signature "$f.log")
  [ "$got" = "$want" ] || { echo "FAIL: $(basename "$f") replays as '$got'"; exit 1; }
  replayed=$((replayed + 1))
  probe=$f
done
[ "$replayed" -gt 0 ] || { echo "FAIL: no artifact replays the crash"; ls -la "$work/art"; exit 1; }
echo "artifacts replayed: $replayed, e.g. $(basename "$probe")"
# It says its runs observe, and keeps saying so once minimized.
"$sf" show "$api" "$probe" | grep -qx 'observe_at_end;' || { echo "FAIL: not marked observed"; exit 1; }
"$sf" min "$api" "$probe" --target "$fuzzer" -o "$work/probe.min" >"$work/min.txt" 2>"$work/min.log" ||
  { echo "FAIL: seqfuzz min"; cat "$work/min.log"; exit 1; }
grep -q "seqfuzz min: $want" "$work/min.log" || { echo "FAIL: min lost the signature"; cat "$work/min.log"; exit 1; }
grep -qx 'observe_at_end;' "$work/min.txt" || { echo "FAIL: min dropped the mark"; cat "$work/min.txt"; exit 1; }
probe=$work/probe.min
"$sf" repro "$api" "$probe" -o "$work/repro.c"
"$cc" -g -fsanitize=address,undefined -I"$src/tests" "$work/repro.c" "$src/tests/probelib.c" -o "$work/repro"
"$work/repro" >"$work/repro.log" 2>&1 && { echo "FAIL: the reproducer does not crash"; exit 1; }
got=$("$sf" signature "$work/repro.log")
[ "$got" = "$want" ] || { echo "FAIL: the reproducer crashes as '$got'"; exit 1; }
echo "reproducer: $got"

# 2 and 3: triage's verdicts.
printf 'b = bag_new();\nbag_put(b, 7);\nbag_merge(b, b);\n' >"$work/alias.seq"
printf 't = tally_new();\npg_rename(t, "abc");\n' >"$work/glue.seq"
"$sf" encode "$api" "$work/alias.seq" -o "$work/in/alias"
"$sf" encode "$api" "$work/glue.seq" -o "$work/in/glue"
"$sf" triage "$api" "$work/in" --target "$fuzzer" --max-seconds 5 >"$work/triage.txt" 2>/dev/null
cat "$work/triage.txt"
grep -A3 '^\[[0-9]*\] leak' "$work/triage.txt" | grep -q 'likely bug:' ||
  { echo "FAIL: the leak with an alias not at fault is not a likely bug"; exit 1; }
grep -A3 '^\[[0-9]*\] heap-buffer-overflow' "$work/triage.txt" |
  grep -q 'likely API misuse: .*pg_rename.*probelib_glue.h.*glue' ||
  { echo "FAIL: the crash in the glue is not blamed on the glue"; exit 1; }

# 4. The coverage observer is called after each call that did not fail.
capi=$build/tests/probelib_coverage.api cfuzzer=$build/tests/probelib_coverage_fuzzer
grep -q 'observer coverage;' "$capi" || { echo "FAIL: no coverage mark in $capi"; exit 1; }
"$sf" encode "$capi" "$work/take.seq" -o "$work/cov"
"$cfuzzer" "$work/cov" >"$work/cov.log" 2>&1 && { echo "FAIL: the coverage observer was not called"; exit 1; }
got=$("$sf" signature "$work/cov.log")
[ "$got" = "$want" ] || { echo "FAIL: the coverage run crashes as '$got'"; exit 1; }
"$sf" repro "$capi" "$work/cov" -o "$work/cov_repro.c"
grep -q 'tally_check(h1); /\* coverage \*/' "$work/cov_repro.c" ||
  { echo "FAIL: the reproducer does not call the coverage observer"; exit 1; }
"$cc" -g -fsanitize=address,undefined -I"$src/tests" "$work/cov_repro.c" "$src/tests/probelib.c" -o "$work/cov_repro"
"$work/cov_repro" >"$work/cov_repro.log" 2>&1 && { echo "FAIL: the coverage reproducer does not crash"; exit 1; }
got=$("$sf" signature "$work/cov_repro.log")
[ "$got" = "$want" ] || { echo "FAIL: the coverage reproducer crashes as '$got'"; exit 1; }
echo "coverage observer: $got, in the run and in its reproducer"
echo "ok"
