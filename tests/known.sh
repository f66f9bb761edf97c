#!/usr/bin/env bash
# Known bugs end to end on the demo (docs/workflow.md, "Known bugs"):
# `seqfuzz known` generalizes the demo's minimized crash (any capacity,
# flags and value, the same key put and deleted, the snapshot before or
# after the delete); a fuzzer run with SEQFUZZ_KNOWN stops a noisier
# variant of it before the call that would crash, and says so; the tools
# that must see every crash (triage, through the run server) still see it;
# a pattern that does not parse is told (file and line) and skipped.
set -euo pipefail
build=$1 src=$2
api=$src/seeds/demo/kvstore.api
sf=$build/seqfuzz
fuzzer=$build/kvstore_fuzzer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
printf 'h1 = kv_open(1, 0);\nkv_put(h1, "", "");\nkv_del(h1, "");\nh2 = kv_snapshot(h1);\nkv_compact(h1);\n' \
  >"$work/min.seq"
mkdir "$work/known"
"$sf" known "$api" "$work/min.seq" --target "$fuzzer" -o "$work/known/demo.seq" 2>"$work/known.log" ||
  { cat "$work/known.log"; fail "seqfuzz known"; }
cat "$work/known/demo.seq"
any=$(sed -n 's/^# any: //p' "$work/known/demo.seq")
for rule in 1.1 2.3 "2.2=2.2" "3.2=2.2"; do
  grep -qw -- "$rule" <<<"$any" || fail "rule $rule missing from '# any: $any'"
done
grep -q "^# order: 1 2 4 3$" "$work/known/demo.seq" || fail "the snapshot-first order is missing"

# Another key, value and capacity, calls in between, the snapshot first.
"$sf" encode "$api" /dev/stdin -o "$work/variant" <<'SEQ'
h1 = kv_open(7, 0);
kv_count(h1);
kv_put(h1, "user", "v1");
h2 = kv_snapshot(h1);
kv_count(h2);
kv_del(h1, "user");
kv_compact(h1);
SEQ
"$fuzzer" "$work/variant" >"$work/plain.log" 2>&1 && fail "the variant does not crash"
SEQFUZZ_KNOWN=$work/known SEQFUZZ_TRACE=1 "$fuzzer" "$work/variant" >"$work/known-run.log" 2>&1 ||
  { tail -20 "$work/known-run.log"; fail "the variant crashed with the bug set aside"; }
grep -q "outcome: stopped at call 7: known-bug" "$work/known-run.log" ||
  { grep outcome "$work/known-run.log"; fail "not stopped before kv_compact"; }
grep -q "1 known bug(s) set aside" "$work/known-run.log" || fail "no word of the known bug"

# Triage runs inputs in the run server: it still sees the crash.
mkdir "$work/crashes"
cp "$work/variant" "$work/crashes/"
SEQFUZZ_KNOWN=$work/known "$sf" triage "$api" "$work/crashes" --target "$fuzzer" >"$work/triage.log" 2>&1
grep -q "1 crash groups" "$work/triage.log" || { cat "$work/triage.log"; fail "triage lost the crash"; }

# A broken pattern: the fuzzer says which file and line, skips it, and
# keeps the others (one bad file must not stop a campaign).
printf '# any: 9.9\nh1 = kv_open(1, 0);\n' >"$work/known/broken.seq"
SEQFUZZ_KNOWN=$work/known SEQFUZZ_TRACE=1 "$fuzzer" "$work/variant" >"$work/broken.log" 2>&1 ||
  fail "the variant crashed with a broken pattern beside the good one"
grep -q "SEQFUZZ_KNOWN: $work/known/broken.seq:1:.*(the file is skipped)" "$work/broken.log" ||
  { cat "$work/broken.log"; fail "no file:line for the broken pattern"; }
grep -q "outcome: stopped at call 7: known-bug" "$work/broken.log" || fail "the good pattern was lost"
echo PASS
