#!/usr/bin/env bash
# The seqfuzz command line: outputs, exit codes and error messages.
set -uo pipefail
build=$1 src=$2 sanitized=${3:-1}
api=$src/seeds/demo/kvstore.api
sf=$build/seqfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/checks.sh"
expect check 0 "API 'kvstore' ok: 12 functions" -- "$sf" check "$api"
printf 'api t;\nfunc void f(nope x);\n' >"$work/bad.api"
expect check-bad 1 "^$work/bad.api:2:13: unknown type 'nope'$" -- "$sf" check "$work/bad.api"
expect check-missing 1 "cannot open file" -- "$sf" check "$work/none.api"
expect unknown-cmd 2 "unknown command" -- "$sf" frobnicate
expect encode 0 "" -- "$sf" encode "$api" "$src/seeds/demo/seeds/iterate.seq" -o "$work/in.bin"
"$sf" show "$api" "$work/in.bin" >"$work/shown"
if diff -q "$work/shown" "$src/seeds/demo/seeds/iterate.seq" >/dev/null; then pass show-roundtrip
else fail show-roundtrip; diff "$work/shown" "$src/seeds/demo/seeds/iterate.seq"; fi
printf 'h1 = kv_open(0, 0);\n' >"$work/bad.seq"
expect encode-bad 1 "bad.seq:1:14: 0 violates the precondition of parameter 'capacity'" -- \
  "$sf" encode "$api" "$work/bad.seq" -o "$work/x"
printf 'S\001\000\000\000\000\001' >"$work/other.bin"
expect show-foreign 1 "fingerprint differs" -- "$sf" show "$api" "$work/other.bin"
expect run-ok 0 "outcome: ok, 8 calls made" -- "$sf" run "$api" "$work/in.bin" --lib "$build/libkvstore.so"
expect run-trace 0 "\\[5\\] kv_iter_next\\(h2, &_\\);  -> 1  vlen=1" -- \
  "$sf" run "$api" "$work/in.bin" --lib "$build/libkvstore.so"
printf 'h1 = kv_open(1, 0);\nkv_put(h1, "a", "");\nkv_put(h1, "b", "");\nkv_count(h1);\n' >"$work/full.seq"
expect run-stops 1 "outcome: stopped at call 3: error-result" -- \
  "$sf" run "$api" "$work/full.seq" --lib "$build/libkvstore.so"
printf 'h1 = kv_open(4, 0);\nkv_put(h1, "k", "v");\nh2 = kv_snapshot(h1);\nkv_del(h1, "k");\nkv_compact(h1);\n' >"$work/bug.seq"
if [ "$sanitized" = 1 ]; then # the use after free is only seen with AddressSanitizer
  expect run-crash 2 "outcome: crashed" -- "$sf" run "$api" "$work/bug.seq" --lib "$build/libkvstore.so"
fi
expect run-nolib 3 "symbol not found|cannot open|No such file" -- "$sf" run "$api" "$work/bug.seq" --lib "$work/nolib.so"
expect gen 0 "" -- "$sf" gen "$api" -o "$work/gen" -n 5 --calls 6
n=$(ls "$work/gen" | wc -l)
[ "$n" = 5 ] && pass gen-count || fail "gen-count: $n"
# seed: each file's bytes (quotes, backslashes, NUL, newlines) land in the template.
printf 'h1 = kv_open(4, 0);\nkv_put(h1, "k", @FILE@);\nkv_del(h1, @FILE@);\n' >"$work/t.seq.in"
printf 'a"b\\c\nd' >"$work/f1"
printf 'x\001y' >"$work/f2"
expect seed 0 "" -- "$sf" seed "$api" "$work/t.seq.in" "$work/f1" "$work/f2" -o "$work/seeded"
"$sf" show "$api" "$work/seeded/f1" >"$work/f1.shown"
grep -qF 'kv_put(h1, "k", "a\"b\\c\nd");' "$work/f1.shown" && grep -qF 'kv_del(h1, "a\"b\\c\nd");' "$work/f1.shown" &&
  [ -f "$work/seeded/f2" ] && pass seed-content || { fail seed-content; cat "$work/f1.shown"; }
# More files than the 4,096 its argument list once held (it read past it).
mkdir -p "$work/many"
(cd "$work/many" && seq 1 4200 | xargs touch)
expect seed-many 0 "" -- "$sf" seed "$api" "$work/t.seq.in" "$work/many"/* -o "$work/seeded-many"
n=$(ls "$work/seeded-many" | wc -l)
[ "$n" = 4200 ] && pass seed-many-count || fail "seed-many-count: $n"
printf 'h1 = kv_open(@FILE@);\n' >"$work/badt.seq.in"
expect seed-bad 1 "badt.seq.in with .*f1" -- "$sf" seed "$api" "$work/badt.seq.in" "$work/f1" -o "$work/seeded2"
expect embed 0 "" -- "$sf" embed "$api" -o "$work/e.c"
grep -q '{"kv_open", (void \*)&kv_open}' "$work/e.c" && pass embed-table || fail embed-table

# Help: `seqfuzz CMD --help` / `-h` is that command's help on stdout, exit 0.
for cmd in check show encode run seed gen min repro triage known signature embed init fuzz report oss-fuzz; do
  for h in --help -h; do
    "$sf" $cmd $h >"$work/help" 2>"$work/help.err"
    rc=$?
    if [ $rc = 0 ] && grep -q "^usage: seqfuzz $cmd " "$work/help" && [ ! -s "$work/help.err" ]; then
      pass "help-$cmd$h"
    else fail "help-$cmd$h: exit $rc"; cat "$work/help" "$work/help.err"; fi
  done
done
"$sf" min "$api" x --target y --help >"$work/help" 2>&1 && grep -q -- "--corpus DIR" "$work/help" &&
  pass help-anywhere || { fail help-anywhere; cat "$work/help"; }
for args in --help help; do
  "$sf" $args >"$work/help" 2>"$work/help.err" && grep -q "^  triage " "$work/help" &&
    [ ! -s "$work/help.err" ] && pass "help-all-$args" || { fail "help-all-$args"; cat "$work/help"*; }
done
"$sf" help gen >"$work/help" 2>&1 && grep -q "^usage: seqfuzz gen " "$work/help" &&
  pass help-cmd || { fail help-cmd; cat "$work/help"; }
# Usage errors exit 2, with the command's usage: an option the command does
# not take (it used to be skipped with the word after it), a missing value
# or argument.
expect unknown-option 2 "^seqfuzz show: unknown option '--frob'" -- "$sf" show "$api" "$work/in.bin" --frob
expect unknown-option-usage 2 "^usage: seqfuzz repro API INPUT" -- "$sf" repro "$api" "$work/in.bin" -x 1
expect option-no-value 2 "option -o needs a value" -- "$sf" encode "$api" "$work/bad.seq" -o
expect missing-arg 2 "^usage: seqfuzz encode API TEXT -o INPUT" -- "$sf" encode "$api" -o "$work/x"
expect missing-target 2 "--target FUZZER is required" -- "$sf" min "$api" "$work/in.bin"

# SEQFUZZ_TRACE / run: float results and out parameters as numbers the text
# form reads back (libm: any library works with an API and --lib).
printf 'api m;\nfunc double sqrt(double x);\nfunc float sqrtf(float x);\nfunc double modf(double x, out double *ip);\nfunc float modff(float x, out float *ip);\n' >"$work/m.api"
printf 'sqrt(2.25);\nsqrtf(2.0);\nmodf(-2.5, &_);\nmodff(1.75, &_);\nsqrt(-1.0);\nsqrt(1e300);\n' >"$work/m.seq"
if "$sf" run "$work/m.api" "$work/m.seq" --lib libm.so.6 >"$work/m.out" 2>&1; then
  printf '%s\n' '[1] sqrt(2.25);  -> 1.5' '[2] sqrtf(2.0);  -> 1.4142135381698608' \
    '[3] modf(-2.5, &_);  -> -0.5  ip=-2' '[4] modff(1.75, &_);  -> 0.75  ip=1' \
    '[5] sqrt(-1.0);  -> nan' '[6] sqrt(1e+300);  -> 9.9999999999999998e+149' \
    'outcome: ok, 6 calls made' >"$work/m.want"
  # The sign of the NaN depends on the machine.
  sed 's/-> -nan$/-> nan/' "$work/m.out" | diff -u "$work/m.want" - >"$work/m.diff" && pass trace-floats ||
    { fail trace-floats; cat "$work/m.diff"; }
  # Each printed result, as an argument again, parses to the same value (the
  # text form prints the shortest form of it).
  sed -n 's/^\[[0-9]*\] \(sqrtf\?\)(.*;  -> \([^ ]*\).*/\1(\2);/p' "$work/m.out" >"$work/back.seq"
  printf '%s\n' 'sqrt(1.5);' 'sqrtf(1.4142135);' 'sqrt(nan);' 'sqrt(1e+150);' >"$work/back.want"
  "$sf" encode "$work/m.api" "$work/back.seq" -o "$work/back.bin" &&
    "$sf" show "$work/m.api" "$work/back.bin" >"$work/back.out" && diff -u "$work/back.want" "$work/back.out" &&
    pass trace-floats-parse || { fail trace-floats-parse; cat "$work/back.seq" "$work/back.out"; }
else fail "trace-floats: run failed"; cat "$work/m.out"; fi

# A standalone seeds/<lib>/build.sh (common.sh's default CFLAGS) makes a
# UBSan finding a crash, not a message the run goes on after.
if command -v clang-14 >/dev/null; then
  rtflags=$(unset CC CFLAGS CXXFLAGS; TARGET=clitest OUT=$work/t/out WORK=$work/t/work \
    SEQFUZZ_CACHE=$work/t/cache; . "$src/seeds/common.sh" && runtime_cflags)
  printf 'int main(int argc, char **argv) { volatile int x = 2147483647; (void)argv; return (x + argc) & 0; }\n' >"$work/ub.c"
  clang-14 $rtflags "$work/ub.c" -o "$work/ub" &&
    { env -u UBSAN_OPTIONS "$work/ub" >"$work/ub.out" 2>&1; [ $? != 0 ]; } &&
    grep -q "runtime error: signed integer overflow" "$work/ub.out" && pass common-ubsan-aborts ||
    { fail "common-ubsan-aborts (flags: $rtflags)"; cat "$work/ub.out"; }
fi

cfz=$build/tests/crashlib_fuzzer capi=$src/tests/crashlib.api
if [ -x "$cfz" ]; then
  # show --target marks the call that crashed with the signature, as
  # `seqfuzz signature` names the fuzzer's report; the marked text parses.
  printf 'h1 = counter_new();\ncounter_poke(h1);\nfail_abort(1);\ncounter_poke(h1);\n' >"$work/abort.seq"
  "$sf" encode "$capi" "$work/abort.seq" -o "$work/abort.bin"
  "$cfz" -runs=1 "$work/abort.bin" >"$work/abort.log" 2>&1
  sig=$("$sf" signature "$work/abort.log")
  expect show-target 0 "" -- "$sf" show "$capi" "$work/abort.bin" --target "$cfz"
  cp "$work/out" "$work/marked"
  printf 'h1 = counter_new();\ncounter_poke(h1);\nfail_abort(1);  # <- crashed here: %s\ncounter_poke(h1);\n' \
    "$sig" >"$work/marked.want"
  diff -u "$work/marked.want" "$work/marked" >"$work/marked.diff" && pass show-target-mark ||
    { fail show-target-mark; cat "$work/marked.diff"; }
  "$sf" encode "$capi" "$work/marked" -o "$work/marked.bin" && "$sf" show "$capi" "$work/marked.bin" >"$work/unmarked" &&
    diff -q "$work/unmarked" "$work/abort.seq" >/dev/null && pass show-target-parses ||
    { fail show-target-parses; cat "$work/unmarked"; }
  printf 'h1 = counter_new();\ncounter_poke(h1);\n' >"$work/fine.seq"
  expect show-target-nocrash 0 "^# no crash" -- "$sf" show "$capi" "$work/fine.seq" --target "$cfz"
  if [ "$sanitized" = 1 ]; then
    # The demo's use after free shows in the observers after the last call.
    expect show-target-after 0 "^# crashed after the calls .*: heap-use-after-free in " -- \
      "$sf" show "$api" "$work/bug.seq" --target "$build/kvstore_fuzzer"
    # triage -o: the directory made with its parents, one file of each kind
    # named after the bug kind ("ubsan: shift exponent") in [A-Za-z0-9._-].
    mkdir -p "$work/crashes"
    printf 'h1 = counter_new();\nfail_shift(0);\n' >"$work/shift.seq"
    "$sf" encode "$capi" "$work/shift.seq" -o "$work/crashes/shift"
    "$sf" triage "$capi" "$work/crashes" --target "$cfz" -o "$work/tri/a/b" --max-seconds 5 >"$work/out" 2>&1
    rc=$?
    ls "$work/tri/a/b" 2>/dev/null | sort >"$work/names"
    stem=$(sed -n 's/\.c$//p' "$work/names")
    [ $rc = 0 ] && [ -n "$stem" ] && printf '%s\n' "$stem".{c,input,report.txt,seq} findings.tsv |
      diff -q - "$work/names" >/dev/null &&
      pass triage-mkdir || { fail "triage-mkdir: exit $rc, files:"; cat "$work/names" "$work/out"; }
    if [ -s "$work/names" ] &&
      ! grep -v '^findings.tsv$' "$work/names" | grep -qvE '^1-ubsan-([A-Za-z0-9._]+-)*[A-Za-z0-9_]+\.(c|input|report\.txt|seq)$'
    then pass triage-names; else fail triage-names; cat "$work/names"; fi
    # findings.tsv: a row per group (docs/workflow.md).
    if [ "$(sed -n 2p "$work/tri/a/b/findings.tsv" | cut -f1-4)" = "$(printf '1\t%s\tbug\t1' "${stem#1-}")" ]
    then pass triage-findings-tsv; else fail triage-findings-tsv; cat "$work/tri/a/b/findings.tsv"; fi
    # A directory that cannot be made: one error, exit 1.
    touch "$work/afile"
    expect triage-mkdir-fails 1 "afile/b: cannot create directory" -- "$sf" triage "$capi" "$work/crashes" \
      --target "$cfz" -o "$work/afile/b" --max-seconds 5
    n=$(grep -c "cannot create" "$work/out")
    [ "$n" = 1 ] && pass triage-mkdir-one-error || fail "triage-mkdir-one-error: $n errors"
    # A file that cannot be written (a directory in its place): exit 1.
    mkdir -p "$work/tri2/${stem:-1-x}.c"
    expect triage-write-fails 1 "${stem:-1-x}.c: cannot create file" -- "$sf" triage "$capi" \
      "$work/crashes" --target "$cfz" -o "$work/tri2" --max-seconds 5
  fi
else
  echo "skip show --target and triage checks: no $cfz"
fi

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
