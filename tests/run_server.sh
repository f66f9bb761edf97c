#!/usr/bin/env bash
# The simplifier's fork server reports every way of failing as the target
# run on its own does: for each failure of crashlib (abort, hang, huge
# malloc, SEGV, overflow, leak, UBSan, a leak only visible once the executor
# has forgotten the run's handles), the signature `seqfuzz triage`
# computes (inputs run in the fuzzer's run server) equals the one of a
# plain `fuzzer -runs=1 FILE` run; and the server survives all of them.
set -euo pipefail
build=$1 src=$2
sf=$build/seqfuzz fuzzer=$build/tests/crashlib_fuzzer api=$src/tests/crashlib.api
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
: >"$work/direct"
for f in abort hang huge_malloc null_write overflow leak shift box_leak; do
  printf 'fail_%s(1);\n' "$f" >"$work/$f.seq"
  [ "$f" != box_leak ] || printf 'b = box_new(1);\nbox_contents(b);\n' >"$work/$f.seq"
  "$sf" encode "$api" "$work/$f.seq" -o "$work/in/$f"
  "$fuzzer" -timeout=2 -runs=1 "$work/in/$f" >"$work/$f.log" 2>&1 && { echo "FAIL: fail_$f did not fail"; exit 1; }
  sig=$("$sf" signature "$work/$f.log")
  echo "direct: fail_$f: $sig"
  [ "$sig" != "no crash" ] || { echo "FAIL: no report for fail_$f"; cat "$work/$f.log"; exit 1; }
  echo "$sig" >>"$work/direct"
done
"$sf" triage "$api" "$work/in" --target "$fuzzer" --timeout 2 --max-seconds 1 \
  >"$work/triage.txt" 2>"$work/triage.err"
cat "$work/triage.txt"
grep -q "inputs ran in fork server" "$work/triage.err" ||
  { echo "FAIL: the run server was not used"; cat "$work/triage.err"; exit 1; }
grep -q "^8 inputs, 8 crash groups, 0 not reproduced" "$work/triage.txt" ||
  { echo "FAIL: expected 8 distinct reproduced crashes"; exit 1; }
sed -n 's/^\[[0-9]*\] //p' "$work/triage.txt" | sort >"$work/served"
sort -o "$work/direct" "$work/direct"
diff "$work/direct" "$work/served" || { echo "FAIL: signatures differ (direct < > served)"; exit 1; }
echo PASS
