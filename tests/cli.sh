#!/usr/bin/env bash
# The seqfuzz command line: outputs, exit codes and error messages.
set -uo pipefail
build=$1 src=$2 sanitized=${3:-1}
api=$src/seeds/demo/kvstore.api
sf=$build/seqfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0 passes=0
pass() { echo "ok   $1"; passes=$((passes + 1)); }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }
expect() { # expect NAME WANTED_EXIT PATTERN -- command...
  local name=$1 want=$2 pat=$3
  shift 4
  "$@" >"$work/out" 2>&1
  local rc=$?
  if [ "$rc" != "$want" ] || { [ -n "$pat" ] && ! grep -qE -- "$pat" "$work/out"; }; then
    fail "$name: exit $rc (wanted $want), output:"
    cat "$work/out"
  else
    pass "$name"
  fi
}
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
printf 'h1 = kv_open(@FILE@);\n' >"$work/badt.seq.in"
expect seed-bad 1 "badt.seq.in with .*f1" -- "$sf" seed "$api" "$work/badt.seq.in" "$work/f1" -o "$work/seeded2"
expect embed 0 "" -- "$sf" embed "$api" -o "$work/e.c"
grep -q '{"kv_open", (void \*)&kv_open}' "$work/e.c" && pass embed-table || fail embed-table
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
