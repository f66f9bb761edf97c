#!/usr/bin/env bash
# The README's path for a new user, end to end, outside the tree: a small
# library's header and its shared library (tests/data/sb: a string buffer
# whose sb_shrink leaves no room for the NUL) in a temporary directory;
# `seqfuzz init` drafts the grammar; the manual steps the README gives
# (ranges and error conventions from the header's comments, observers)
# are applied; `seqfuzz fuzz` finds, triages and sets aside the bug; the
# summary and `seqfuzz report`'s page show it.
#   tests/workflow.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
sf=$build/seqfuzz
export SEQFUZZ_JOBS=1 # the seqfuzz runtime's build, if it needs one (seeds/common.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
t=$work/sb
mkdir -p "$t"
cp "$src/tests/data/sb/sb.h" "$t/"
# The user's library, built as the README says.
clang-14 -shared -fPIC -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
  -fsanitize=fuzzer-no-link "$src/tests/data/sb/sb.c" -I "$t" -o "$t/libsb.so"

# 1. The draft.
(cd "$t" && "$sf" init sb.h --lib libsb.so -o sb.api) || fail "seqfuzz init"
grep -qx 'func sb_t \*sb_new(size_t cap) error null;' "$t/sb.api" || fail "no constructor drafted"
grep -qx 'func void sb_free(sb_t \*b) destructor;' "$t/sb.api" || fail "no destructor drafted"
grep -qx 'func int sb_append(sb_t \*b, bytes data\[len\], size_t len);' "$t/sb.api" ||
  fail "no buffer and length drafted"
# 2. The manual steps (README, "From a header to a campaign").
sed -i -e 's/^func sb_t \*sb_new(size_t cap) error null;/func sb_t *sb_new(size_t cap in [1, 4096]) error null;/' \
  -e 's/^\(func int sb_append(.*)\);/\1 error < 0;/' \
  -e 's/^func size_t sb_len(sb_t \*b);/func size_t sb_len(sb_t *b) observer;/' "$t/sb.api"
"$sf" check "$t/sb.api" || fail "the grammar after the manual steps"

# 3. The campaign.
"$sf" fuzz "$t" -o "$work/run" --seconds 30 --seed 1 >"$work/out" 2>"$work/err" ||
  { tail -30 "$work/err"; fail "seqfuzz fuzz"; }
cat "$work/out"
grep -q "bug: heap-buffer-overflow in sb_append" "$work/out" || fail "the planted bug is not in the summary"
grep -q "sb_shrink(h1);" "$work/out" || fail "the minimized sequence does not shrink"
repro=$(sed -n 's/^ *C reproducer: //p' "$work/out" | head -n1)
[ -f "$repro" ] || fail "no C reproducer file ($repro)"
grep -q "known bugs set aside: [1-9]" "$work/out" || fail "the bug was not set aside"
grep -q "sb_shrink" "$work/run/known/"*.seq || fail "no pattern of the bug"

# 4. The report.
"$sf" report "$work/run" -o "$work/report.html" || fail "seqfuzz report"
grep -q "heap-buffer-overflow" "$work/report.html" || fail "the report has no finding"
grep -q "sb_shrink(h1);" "$work/report.html" || fail "the report has no minimized sequence"
grep -q "<svg" "$work/report.html" || fail "the report has no plot"
echo PASS
