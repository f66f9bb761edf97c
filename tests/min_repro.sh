#!/usr/bin/env bash
# seqfuzz min and repro end to end on the demo bug: a 12-call crashing input
# shrinks to the known 5-call minimum with the same signature, and the C
# reproducer of the result, built with the sanitizers, crashes the same way.
set -euo pipefail
build=$1 src=$2 cc=${3:-clang}
api=$src/seeds/demo/kvstore.api
sf=$build/seqfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$sf" encode "$api" "$src/tests/data/noisy_crash.seq" -o "$work/crash"
"$build/kvstore_fuzzer" "$work/crash" >"$work/fuzzer.log" 2>&1 && { echo "FAIL: input does not crash"; exit 1; }
want=$("$sf" signature "$work/fuzzer.log")
echo "signature: $want"
"$sf" min "$api" "$work/crash" --target "$build/kvstore_fuzzer" -o "$work/min" >"$work/min.txt" 2>"$work/min.log"
cat "$work/min.txt"
tail -n1 "$work/min.log"
calls=$(grep -c ';' "$work/min.txt")
[ "$calls" -le 5 ] || { echo "FAIL: $calls calls after minimization (known minimum: 5)"; exit 1; }
grep -q "seqfuzz min: $want" "$work/min.log" || { echo "FAIL: signature changed"; exit 1; }
"$build/kvstore_fuzzer" "$work/min" >"$work/min-run.log" 2>&1 && { echo "FAIL: minimized input does not crash"; exit 1; }
[ "$("$sf" signature "$work/min-run.log")" = "$want" ] || { echo "FAIL: minimized input crashes differently"; exit 1; }
"$sf" repro "$api" "$work/min" -o "$work/repro.c"
"$cc" -g -Wall -Wextra -Werror -fsanitize=address,undefined -I"$src/seeds/demo" "$work/repro.c" \
  "$src/seeds/demo/kvstore.c" -o "$work/repro"
"$work/repro" >"$work/repro.log" 2>&1 && { echo "FAIL: reproducer does not crash"; exit 1; }
got=$("$sf" signature "$work/repro.log")
[ "$got" = "$want" ] || { echo "FAIL: reproducer crashes as '$got'"; exit 1; }
# A crash whose minimum needs a replacement, not only removal: h2 comes from
# kv_snapshot(h1) and removing h1's kv_open removes everything; replacing the
# snapshot (and the kv_open only it used) by one kv_open reaches 5 calls.
"$sf" encode "$api" "$src/tests/data/needs_replacement.seq" -o "$work/repl"
"$sf" min "$api" "$work/repl" --target "$build/kvstore_fuzzer" -o "$work/repl.min" >"$work/repl.txt" 2>"$work/repl.log"
grep -q "replacement:" "$work/repl.log" || { echo "FAIL: no replacement step"; cat "$work/repl.log"; exit 1; }
[ "$(grep -c ';' "$work/repl.txt")" -le 5 ] || { echo "FAIL: replacement case not minimal"; cat "$work/repl.txt"; exit 1; }
echo "replacement case: $(tail -n1 "$work/repl.log")"
# doclib_case NAME SEQ STEP MAX_CALLS PATTERN: the doclib input SEQ crashes;
# `seqfuzz min` takes STEP, ends at MAX_CALLS calls or fewer with PATTERN in
# its text and the same signature; its C reproducer crashes the same way.
dapi=$src/tests/doclib.api
doclib_case() {
  local name=$1 seq=$2 step=$3 max=$4 pattern=$5 w=$work/$1
  "$sf" encode "$dapi" "$src/tests/data/$seq" -o "$w"
  "$build/tests/doclib_fuzzer" "$w" >"$w.log" 2>&1 && { echo "FAIL: $name input does not crash"; exit 1; }
  local want
  want=$("$sf" signature "$w.log")
  "$sf" min "$dapi" "$w" --target "$build/tests/doclib_fuzzer" -o "$w.min" >"$w.txt" 2>"$w.mlog"
  cat "$w.txt"
  grep -q "$step:" "$w.mlog" || { echo "FAIL: no $step step"; cat "$w.mlog"; exit 1; }
  [ "$(grep -c ';' "$w.txt")" -le "$max" ] || { echo "FAIL: $step case not minimal"; exit 1; }
  grep -q "$pattern" "$w.txt" || { echo "FAIL: no $pattern in the result"; exit 1; }
  grep -q "seqfuzz min: $want" "$w.mlog" || { echo "FAIL: $name signature changed"; exit 1; }
  "$sf" repro "$dapi" "$w.min" -o "${w}_repro.c"
  "$cc" -g -fsanitize=address,undefined -I"$src/tests" "${w}_repro.c" "$src/tests/doclib.c" -o "${w}_repro"
  "${w}_repro" >"${w}_repro.log" 2>&1 && { echo "FAIL: $name reproducer does not crash"; exit 1; }
  [ "$("$sf" signature "${w}_repro.log")" = "$want" ] || { echo "FAIL: $name reproducer crashes differently"; exit 1; }
  echo "$step case: $(tail -n1 "$w.mlog")"
}
# A crash whose minimum needs materialization: the document the check
# crashes on was built word by word; no removal or replacement keeps the
# crash, but the parse of its printed text (doclib.api: doc_parse inverse_of
# doc_print) replaces the four building calls: 2 calls, whose reproducer
# (a string literal) crashes the same way.
doclib_case doc needs_materialization.seq materialization 2 'doc_parse("'
# A crash whose minimum needs feeding: the feed got its words from a
# document (feed_take); feed_put inverse_of doc_words (a printer of bytes
# with NULs, its length in an out parameter) replaces the take, and the
# document's calls go: 3 calls, whose reproducer crashes the same way.
doclib_case feed needs_feeding.seq feeding 3 'feed_put('
# libFuzzer's own -minimize_crash=1 goes through the custom mutator and works.
(cd "$work" && "$build/kvstore_fuzzer" -minimize_crash=1 -runs=2000 -seed=1 crash >lf-min.log 2>&1) || true
best=$(grep -o "failed to minimize beyond [^ ]* ([0-9]* bytes)" "$work/lf-min.log" | awk '{print $5}' || true)
[ -n "$best" ] && [ -f "$work/$best" ] || { echo "FAIL: -minimize_crash=1 produced nothing"; tail -5 "$work/lf-min.log"; exit 1; }
"$build/kvstore_fuzzer" "$work/$best" >"$work/lf-min-run.log" 2>&1 && { echo "FAIL: -minimize_crash result does not crash"; exit 1; }
[ "$("$sf" signature "$work/lf-min-run.log")" = "$want" ] || { echo "FAIL: -minimize_crash result crashes differently"; exit 1; }
echo "libFuzzer -minimize_crash=1: $(wc -c <"$work/crash") -> $(wc -c <"$work/$best") bytes, $("$sf" show "$api" "$work/$best" | grep -c ';') calls"
# Recoverable error conventions: the session library refuses calls out of
# order and changes nothing, so its grammar says `recoverable` and a run goes
# on after a refused call. Its bug with two refused calls on the way: the
# fuzzer replays it, and so does its C reproducer; the reproducer made from a
# grammar without `recoverable` stops at the first refused call.
sapi=$src/bench/search/session/session.api
"$sf" encode "$sapi" "$src/tests/data/session_refused.seq" -o "$work/sess"
"$build/bench/search/search_session_fuzzer" "$work/sess" >"$work/sess.log" 2>&1 &&
  { echo "FAIL: the session input does not crash"; exit 1; }
swant=$("$sf" signature "$work/sess.log")
sess_repro() { # API NAME: build NAME's reproducer of the session input, run it
  "$sf" repro "$1" "$src/tests/data/session_refused.seq" -o "$work/$2.c"
  "$cc" -g -Wall -Wextra -Werror -fsanitize=address,undefined -I"$src/bench/search/session" \
    "$work/$2.c" "$src/bench/search/session/session.c" -o "$work/$2"
  "$work/$2" >"$work/$2.log" 2>&1
}
sess_repro "$sapi" sess_repro && { echo "FAIL: the session reproducer does not crash"; exit 1; }
[ "$("$sf" signature "$work/sess_repro.log")" = "$swant" ] ||
  { echo "FAIL: the session reproducer crashes differently"; exit 1; }
sed 's/ recoverable;/;/' "$sapi" >"$work/stopping.api"
sess_repro "$work/stopping.api" sess_stopping ||
  { echo "FAIL: without recoverable, the reproducer went past a refused call"; exit 1; }
echo "recoverable: $swant, reproduced past two refused calls"
# Flags shrink one by one: fail_on_option fails on FAIL_OPT_F alone, so of
# the eight set only that one stays (halving the number would keep most).
capi=$src/tests/crashlib.api
printf 'fail_on_option(FAIL_OPT_A|FAIL_OPT_B|FAIL_OPT_C|FAIL_OPT_D|FAIL_OPT_E|FAIL_OPT_F|FAIL_OPT_G|FAIL_OPT_H);\n' \
  >"$work/flags.seq"
"$sf" encode "$capi" "$work/flags.seq" -o "$work/flags"
"$sf" min "$capi" "$work/flags" --target "$build/tests/crashlib_fuzzer" -o "$work/flags.min" \
  >"$work/flags.txt" 2>"$work/flags.log" || { echo "FAIL: flags case"; cat "$work/flags.log"; exit 1; }
[ "$(cat "$work/flags.txt")" = "fail_on_option(FAIL_OPT_F);" ] ||
  { echo "FAIL: flags not shrunk to the one that fails:"; cat "$work/flags.txt"; exit 1; }
echo "flags: $(cat "$work/flags.txt")"
# Known bugs: minimized by its signature alone, fail_abort(1000) slides onto
# fail_abort(0); with that one known, no candidate may complete it (min and
# triage), so the result stays a bug of its own.
mkdir -p "$work/known" "$work/abort-crashes"
printf 'fail_abort(0);\n' >"$work/known/zero.seq"
printf 'fail_abort(1000);\n' >"$work/abort.seq"
"$sf" encode "$capi" "$work/abort.seq" -o "$work/abort"
cp "$work/abort" "$work/abort-crashes/crash-1"
"$sf" min "$capi" "$work/abort" --target "$build/tests/crashlib_fuzzer" -o "$work/abort.min" \
  >"$work/abort.txt" 2>"$work/abort.log" || { echo "FAIL: abort case"; cat "$work/abort.log"; exit 1; }
[ "$(cat "$work/abort.txt")" = "fail_abort(0);" ] ||
  { echo "FAIL: without --known, expected fail_abort(0):"; cat "$work/abort.txt"; exit 1; }
"$sf" min "$capi" "$work/abort" --target "$build/tests/crashlib_fuzzer" -o "$work/abort.kmin" \
  --known "$work/known" >"$work/abort-k.txt" 2>"$work/abort-k.log" ||
  { echo "FAIL: abort case with --known"; cat "$work/abort-k.log"; exit 1; }
[ "$(cat "$work/abort-k.txt")" = "fail_abort(1);" ] ||
  { echo "FAIL: with --known, expected fail_abort(1):"; cat "$work/abort-k.txt"; exit 1; }
grep -q "refused: they complete a known bug" "$work/abort-k.log" || { echo "FAIL: no refusal told"; exit 1; }
"$sf" triage "$capi" "$work/abort-crashes" --target "$build/tests/crashlib_fuzzer" -o "$work/abort-t" \
  --known "$work/known" >"$work/abort-t.txt" 2>&1 || { echo "FAIL: triage --known"; cat "$work/abort-t.txt"; exit 1; }
grep -rqx 'fail_abort(1);' "$work/abort-t" || { echo "FAIL: triage slid onto the known bug"; ls "$work/abort-t"; exit 1; }
if "$sf" min "$capi" "$work/abort" --target "$build/tests/crashlib_fuzzer" --known "$work/none" 2>"$work/err"; then
  echo "FAIL: min accepted a --known directory that does not exist"; exit 1
fi
grep -q -- "--known $work/none" "$work/err" || { echo "FAIL: no clear --known error"; cat "$work/err"; exit 1; }
echo "known: fail_abort(1000) -> $(cat "$work/abort.txt") alone, $(cat "$work/abort-k.txt") with it known"
# A non-crashing input is refused, not "minimized".
"$sf" encode "$api" "$src/seeds/demo/seeds/basic.seq" -o "$work/ok"
if "$sf" min "$api" "$work/ok" --target "$build/kvstore_fuzzer" >/dev/null 2>"$work/err"; then
  echo "FAIL: min accepted a non-crashing input"; exit 1
fi
grep -q "does not crash" "$work/err" || { echo "FAIL: no clear error"; cat "$work/err"; exit 1; }
echo "PASS"
