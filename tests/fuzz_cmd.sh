#!/usr/bin/env bash
# seqfuzz fuzz on a target directory outside the tree: the demo's kvstore as
# a prebuilt instrumented archive and a grammar whose `header`/`library` lines
# point at it. A 15 s campaign (the demo's use-after-free takes a second or
# two) must build the fuzzer, find, triage and summarize the bug, and write
# the run directory's files; a second one, stopped by SIGINT, must reuse the
# build and stop the engine; --help and a directory without .api answer
# with their exit codes. (The first build of the seqfuzz runtime under
# build/targets/ takes longer, as for the ossfuzz test.)
#   tests/fuzz_cmd.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1 src=$2
sf=$build/seqfuzz
export SEQFUZZ_JOBS=1 # the seqfuzz runtime's build, if it needs one (seeds/common.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
pass() { echo "ok   $1"; }
fail() {
  echo "FAIL $1"
  fails=$((fails + 1))
}

# The target directory: kvstore.api pointing at kvstore.h and libkvstore.a.
t=$work/target
mkdir -p "$t/include" "$t/lib" "$t/seeds"
cp "$src/seeds/demo/kvstore.h" "$t/include/"
cp "$src/seeds/demo/seeds/"*.seq "$t/seeds/"
clang-14 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fsanitize=fuzzer-no-link \
  -I "$t/include" -c "$src/seeds/demo/kvstore.c" -o "$work/kvstore.o" &&
  ar rcs "$t/lib/libkvstore.a" "$work/kvstore.o" || { echo "FAIL building libkvstore.a"; exit 1; }
sed -e 's|^library .*|library "lib/libkvstore.a";|' "$src/seeds/demo/kvstore.api" >"$t/kvstore.api"
grep -q '^library "lib/libkvstore.a";' "$t/kvstore.api" || { echo "FAIL editing the grammar"; exit 1; }

if "$sf" fuzz --help >"$work/help" 2>&1 && grep -q "TARGET/.seqfuzz/ENGINE" "$work/help"; then
  pass help
else
  fail "help: $(head -3 "$work/help")"
fi
mkdir -p "$work/empty"
"$sf" fuzz "$work/empty" -o "$work/run-empty" >"$work/empty.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "no .api file" "$work/empty.out"; then
  pass no-api
else
  fail "no-api: exit $rc: $(cat "$work/empty.out")"
fi

# The campaign.
run=$work/run
start=$(date +%s)
"$sf" fuzz "$t" -o "$run" --seconds 15 --seed 1 >"$work/summary" 2>"$work/stderr"
rc=$?
echo "campaign: exit $rc in $(($(date +%s) - start)) s"
[ $rc = 0 ] && pass exit-0 || { fail "exit $rc"; tail -20 "$work/stderr"; }
cmp -s "$work/summary" "$run/summary.txt" && pass summary.txt || fail "summary.txt differs from the output"
[ -x "$t/.seqfuzz/libfuzzer/kvstore_seqfuzz" ] && pass built-in-target ||
  fail "no fuzzer in $t/.seqfuzz/libfuzzer"

# The summary: a use-after-free finding with its minimized sequence (the
# snapshot and compaction that free the shared value) and a reproducer.
awk '/^\[[0-9]+\] bug: heap-use-after-free/ {on = 1} on && /^$/ {exit} on' "$work/summary" \
  >"$work/finding"
repro=$(sed -n 's/^ *C reproducer: \(.*\.c\)$/\1/p' "$work/finding" | head -n1)
if grep -q "kv_snapshot(" "$work/finding" && grep -q "kv_compact(" "$work/finding" &&
  [ -n "$repro" ] && [ -f "$repro" ] && grep -q "kv_compact(" "$repro"; then
  pass summary-finding
else
  fail "summary-finding"
  cat "$work/summary"
fi

# progress.tsv: the header, then rows whose executions grow.
header=$'elapsed_s\texecs\texecs_per_s\tcorpus\tedges\tfindings\tpruned_illegal_pct\tpruned_equiv_pct\tsolver_flips'
if [ "$(head -n1 "$run/progress.tsv")" = "$header" ] &&
  awk -F'\t' 'NR > 1 { if (NF != 9 || $2 !~ /^[0-9]+$/) bad = 1; if (NR == 2) first = $2; last = $2; rows++ }
              END { exit !(rows >= 3 && !bad && last > first && last >= 100) }' "$run/progress.tsv"; then
  pass progress.tsv
else
  fail progress.tsv
  cat "$run/progress.tsv"
fi

# findings.tsv: the group, as a bug.
if [ "$(head -n1 "$run/findings.tsv")" = $'id\tkind\tverdict\tcount\tsignature' ] &&
  awk -F'\t' 'NR > 1 && $2 == "heap-use-after-free" && $3 == "bug" && $4 >= 1 && $5 ~ /use-after-free/ {ok = 1}
              END {exit !ok}' "$run/findings.tsv"; then
  pass findings.tsv
else
  fail findings.tsv
  cat "$run/findings.tsv"
fi

# run.txt: every key, with the values of this run.
ok=1
for k in target api fuzzer engine jobs seconds started ended command; do
  grep -q "^$k=." "$run/run.txt" || { ok=0; echo "run.txt: no $k"; }
done
grep -qx "target=$(cd "$t" && pwd -P)" "$run/run.txt" && grep -qx "engine=libfuzzer" "$run/run.txt" &&
  grep -qx "seconds=15" "$run/run.txt" && grep -qx "jobs=1" "$run/run.txt" || ok=0
s=$(sed -n 's/^started=//p' "$run/run.txt") e=$(sed -n 's/^ended=//p' "$run/run.txt")
[ -n "$s" ] && [ -n "$e" ] && [ "$e" -ge $((s + 15)) ] 2>/dev/null || ok=0
[ $ok = 1 ] && pass run.txt || { fail run.txt; cat "$run/run.txt"; }
[ -s "$run/stats.txt" ] && grep -q "^seqfuzz: " "$run/stats.txt" && pass stats.txt || fail stats.txt

# Ctrl-C: a campaign without a time limit stops on SIGINT, its engine with
# it, and still triages; the fuzzer built above is reused.
"$sf" fuzz "$t" -o "$work/run2" >"$work/summary2" 2>"$work/stderr2" &
pid=$!
sleep 6
kill -INT $pid
start=$(date +%s)
wait $pid
rc=$?
if [ $rc = 0 ] && [ $(($(date +%s) - start)) -lt 60 ] && grep -q "(interrupted)" "$work/summary2" &&
  grep -q "interrupted: stopping the engine" "$work/stderr2" &&
  grep -q "libFuzzer: run interrupted" "$work/run2/engine.log" &&
  grep -q "is up to date" "$work/run2/build.log"; then
  pass sigint
else
  fail "sigint: exit $rc"
  tail -5 "$work/stderr2"
  head -1 "$work/summary2"
  grep "libFuzzer: run interrupted" "$work/run2/engine.log"
  grep "up to date" "$work/run2/build.log"
fi
if pgrep -f "$work/run2/corpus" >/dev/null; then
  fail "sigint: engine processes left: $(pgrep -f "$work/run2/corpus" | tr '\n' ' ')"
else
  pass sigint-engine-gone
fi

[ $fails = 0 ] && echo "all passed" || echo "$fails failed"
[ $fails = 0 ]
