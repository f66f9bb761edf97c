#!/usr/bin/env bash
# Callbacks answered by mocks, constant parameters and field reads, on cblib
# (tests/cblib.h, tests/cblib.api): a library that calls back four ways, with
# one planted bug behind each callback that only some answers reach.
#  - Mocks, a vtable, constants, field reads: a sequence using them all gives, call by
#    call, the results their scripts say (chunks cut to the buffer, their
#    length in *got, numbers little endian, an answer out of range the
#    default, as past the script's end, an empty nullable script a NULL);
#    the box's version, size and label destructor are the build's
#    constants; cb_count and cb_ticks read struct members. It runs clean
#    with the bugs too (a consistent comparator, no magic answer).
#  - Each bug, alone (CBLIB_BUGS), is found by fuzzing from an empty corpus
#    with -seed=1: an inconsistent comparator (cb_sort), "BUG!" read
#    (cb_read), a 7-byte 'Z' chunk (cb_pull), a hook answering 42 (cb_tick),
#    seek positions 500040 and 499963 (cb_seek: by the solver, which takes
#    a mock's answers as its variables; not found without it), an
#    allocation failing after a first one succeeded (cb_reserve).
#  - The build without the bugs (CBLIB_NO_BUGS) runs every crashing input
#    clean, finds nothing in 50000 runs (about what the slowest bug takes),
#    and calls every function.
#  - `seqfuzz min` of a crash keeps its signature and makes no script longer;
#    the C reproducers (their mocks answering from the same scripts) crash
#    the same way, and run clean with the fixed library.
#  - Scripts written x"..." print back (seqfuzz show) as written, and what
#    is printed encodes to the same input.
# About 30 s on two cores.
set -euo pipefail
build=$1 src=$2 cc=${3:-clang-14}
sf=$build/seqfuzz bin=$build/tests tests=$src/tests api=$src/tests/cblib.api
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
SECONDS=0

fail() {
  echo "FAIL: $*"
  exit 1
}

"$sf" check "$api" >/dev/null || fail "cblib.api does not check"

# 1. The mocks answer as their scripts say. Each call's expected result.
cat >"$work/mocks.seq" <<'EOF'
h1 = cb_box_new();
cb_label(h1, "hello");
cb_sort(h1, 3, x"ffffffff0100000000000000");
cb_get(h1, 0);
cb_get(h1, 1);
cb_get(h1, 2);
cb_sort(h1, 2, x"00000080");
cb_get(h1, 0);
cb_read(h1, x"144142434445464748494a4b4c4d4e4f5051525354000000800378797a00000000");
cb_pull(h1, x"036162630264650000");
cb_set_hook(h1, x"05ff0a");
cb_tick(h1);
cb_tick(h1);
cb_tick(h1);
cb_ticks(h1);
cb_tick(h1);
cb_set_hook(h1, x"");
cb_tick(h1);
cb_seek(h1, x"0500000009000000");
cb_reserve(h1, 2, 100, x"0000", x"");
cb_load(h1, x"100004616263640100000002656600000000080000000000050000000000");
cb_count(h1);
cb_label_len(h1);
cb_sum(h1);
EOF
# h1: the constants are right (else NULL); 1: the label was copied
# (CB_TRANSIENT); the items 7 6 5 sorted as the comparator said, in order
# (6 < 7, 5 > 6, 7 == 6, then 0: its default): 6 7 5; then 7 < 6 (INT_MIN):
# 7 6; 19 bytes read: 16 of a 20-byte chunk (the buffer's size, *got 16),
# then, as INT_MIN is out of the reader's range (the default: more), "xyz"
# (the reader said it was the last); 5 bytes pulled ("abc", "de", then an
# empty chunk: the end); the hook answers 5, 100 (0xff is out of range: the
# default, a reset), 10 (10 ticks), 100 (the script is used up), then the
# box has none (0); the seek positions 5 and 9: 4; two blocks of 100
# bytes allocated (the allocator's records: 0, 0); 5 bytes loaded through
# the vtable (its read member: "abcd" then "ef", its seek member: 0 and 5,
# its progress member NULL); 15 calls counted; "hello"; 7+6+...+0.
want='handle 1 0 6 7 5 0 7 19 5 _ 5 100 10 10 100 _ 0 4 200 5 15 5 28'
"$sf" encode "$api" "$work/mocks.seq" -o "$work/mocks" || fail "mocks: the text does not parse"
SEQFUZZ_TRACE=1 "$bin/cblib_nobugs_fuzzer" "$work/mocks" >"$work/mocks.log" 2>&1 ||
  { cat "$work/mocks.log"; fail "mocks: the run fails"; }
got=$(for i in $(seq 1 24); do
  line=$(grep -m1 "^seqfuzz: \[$i\] " "$work/mocks.log" || true)
  [ -n "$line" ] || { echo "missing"; continue; }
  case "$line" in *' -> '*) r=${line##* -> } && echo "${r%%  (*}" ;; *) echo _ ;; esac
done | tr '\n' ' ' | sed 's/ $//')
[ "$got" = "$want" ] || { grep '^seqfuzz: \[' "$work/mocks.log"; fail "mocks: results '$got', not '$want'"; }
grep -q '^seqfuzz: outcome: ok, 24 calls made' "$work/mocks.log" || fail "mocks: not every call made"
# The trace says how often the library called mocks during each call: the
# reader twice (a chunk, then the last one), cb_load's members four times
# (seek twice, read twice).
grep -q '^seqfuzz: \[9\] cb_read(.*  -> 19  (mocks called 2 times)$' "$work/mocks.log" ||
  { grep '^seqfuzz: \[9\]' "$work/mocks.log"; fail "mocks: the reader's calls are not in the trace"; }
grep -q '^seqfuzz: \[21\] cb_load(.*  -> 5  (mocks called 4 times)$' "$work/mocks.log" ||
  { grep '^seqfuzz: \[21\]' "$work/mocks.log"; fail "mocks: the vtable's calls are not in the trace"; }
SEQFUZZ_TRACE=1 "$bin/cblib_fuzzer" "$work/mocks" >"$work/mocks.bugs.log" 2>&1 ||
  { grep -A12 'ERROR:' "$work/mocks.bugs.log" | head -30; fail "mocks: the run fails with the bugs"; }
echo "mocks: chunks, counts, defaults, NULL, constants, field reads: as scripted; clean with the bugs"

# fuzz NAME FUZZER RUNS [VAR=VALUE...]: fuzz from an empty corpus, -seed=1,
# at most RUNS runs, in the environment given; the log in $work/NAME.log
# (COVERED_FUNC lines when no finding ends the run), artifacts in
# $work/NAME/, the status in $work/NAME.rc too.
fuzz() {
  local name=$1 fuzzer=$2 runs=$3 rc=0
  shift 3
  mkdir -p "$work/$name.corpus" "$work/$name"
  env "$@" "$bin/$fuzzer" "$work/$name.corpus" -seed=1 -runs="$runs" -max_total_time=100 \
    -print_coverage=1 -print_final_stats=1 -artifact_prefix="$work/$name/" >"$work/$name.log" 2>&1 ||
    rc=$?
  echo $rc >"$work/$name.rc"
  return $rc
}

# 2. Each bug alone, from an empty corpus; and 3. the library without the
#    bugs, fuzzed for 50000 runs. All side by side but seek (how many runs a bug
#    takes varies from run to run, -seed=1 or not). cb_seek's bug, behind
#    two arithmetic guards on the seek callback's answers, is the solver's
#    (the mock's answers are its variables): with the solver (50% of the
#    time) it is found in 300000 runs, without it (same seed, same runs)
#    not.
bugs="sort read pull tick seek reserve"
nobugs_runs=50000
for b in $bugs; do
  [ "$b" != seek ] || continue
  fuzz "$b" cblib_fuzzer 300000 CBLIB_BUGS="$b" SEQFUZZ_SOLVER=1 SEQFUZZ_SOLVER_BUDGET=5 &
done
fuzz nobugs cblib_nobugs_fuzzer $nobugs_runs &
wait || true
# seek: alone, after the others, with the solver's share of the time raised:
# the budget is time-based, and side by side with six other fuzzers on two
# cores its queries ran out of it (the bug was not found in three runs in a row).
# 300000 runs each, as the other bugs get: with 100000, two of four full
# suites under ctest -j2 missed it (2026-12-02), other tests' builds taking
# the cores; without the solver 300000 find nothing either.
seek_runs=300000
fuzz seek cblib_fuzzer $seek_runs CBLIB_BUGS=seek SEQFUZZ_SOLVER=1 SEQFUZZ_SOLVER_BUDGET=50 || true
fuzz seek.nosolver cblib_fuzzer $seek_runs CBLIB_BUGS=seek SEQFUZZ_SOLVER=0 || true
[ "$(cat "$work/seek.nosolver.rc")" = 0 ] ||
  { grep -A12 'ERROR:' "$work/seek.nosolver.log" | head -20; fail "seek: found without the solver: the test does not show what it means to"; }
grep -q "^Done $seek_runs runs" "$work/seek.nosolver.log" || { tail -5 "$work/seek.nosolver.log"; fail "seek: the run without the solver stopped early"; }
echo "seek: not found without the solver in $seek_runs runs" 
slowest=0
for b in $bugs; do
  [ "$(cat "$work/$b.rc")" != 0 ] || { tail -20 "$work/$b.log"; fail "$b: nothing found"; }
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$b.log")
  sig=$("$sf" signature "$work/$b.log")
  [ "$sig" = "heap-buffer-overflow in cb_$b" ] ||
    { grep -A12 'ERROR:' "$work/$b.log" | head -30; fail "$b: found '$sig', not a heap-buffer-overflow in cb_$b"; }
  crash=$(ls "$work/$b"/crash-* 2>/dev/null | head -1)
  [ -n "$crash" ] || fail "$b: no crashing input saved"
  cp "$crash" "$work/$b.crash"
  [ "${runs:-0}" -le "$slowest" ] || slowest=${runs:-0}
  echo "$b: $sig, in ${runs:-?} runs"
done
echo "  ($SECONDS s so far)"

# 3. The library without the bugs: each crashing input runs clean; fuzzing
#    finds nothing and calls every function (cb_count is the build's own:
#    checked above).
for b in $bugs; do
  "$bin/cblib_nobugs_fuzzer" "$work/$b.crash" >"$work/$b.fixed.log" 2>&1 ||
    { grep -A12 'ERROR:' "$work/$b.fixed.log" | head -30; fail "$b: the crashing input fails without the bug"; }
done
runs=$nobugs_runs
[ "$(cat "$work/nobugs.rc")" = 0 ] || { grep -A12 'ERROR:' "$work/nobugs.log" | head -30; fail "nobugs: a finding"; }
grep -q "^Done $runs runs" "$work/nobugs.log" || { tail -20 "$work/nobugs.log"; fail "nobugs: not $runs runs"; }
[ -z "$(ls -A "$work/nobugs")" ] || { ls -la "$work/nobugs"; fail "nobugs: saved an input"; }
grep '^func ' "$api" | grep -v ' reads ' | grep -o '^func [^(]*(' | sed 's/($//; s/.*[ *]//' >"$work/funcs"
while read -r f; do
  grep -q "^COVERED_FUNC:.* $f " "$work/nobugs.log" || fail "nobugs: $f never ran"
done <"$work/funcs"
echo "no bugs: the crashing inputs run clean; $runs runs (the slowest bug took $slowest), nothing found, every function ran"
echo "  ($SECONDS s so far)"

# scripts INPUT: the lengths of the mock scripts of INPUT, summed (from its
# reproducer's sf_script definitions).
scripts() {
  "$sf" repro "$api" "$1" -o "$1.scripts.c" || fail "$1: no reproducer"
  sed -n 's/^static struct sf_script sf_script.*, \([0-9]*\), 0};$/\1/p' "$1.scripts.c" |
    awk '{ n += $1 } END { print n + 0 }'
}

# 4. seqfuzz min of cb_read's and cb_pull's crashes: the same signature, no
#    script longer than before.
for b in read pull; do
  sig=$("$sf" signature "$work/$b.log")
  CBLIB_BUGS=$b "$sf" min "$api" "$work/$b.crash" --target "$bin/cblib_fuzzer" --max-seconds 20 \
    -o "$work/$b.min" >"$work/$b.min.txt" 2>"$work/$b.min.log" ||
    { cat "$work/$b.min.log"; fail "$b: min fails"; }
  grep -q "seqfuzz min: $sig" "$work/$b.min.log" || { cat "$work/$b.min.log"; fail "$b: min changed the signature"; }
  CBLIB_BUGS=$b "$bin/cblib_fuzzer" "$work/$b.min" >"$work/$b.min.run.log" 2>&1 &&
    fail "$b: the minimized input does not crash"
  [ "$("$sf" signature "$work/$b.min.run.log")" = "$sig" ] || fail "$b: the minimized input crashes differently"
  before=$(scripts "$work/$b.crash") after=$(scripts "$work/$b.min")
  [ "$after" -le "$before" ] || fail "$b: min made the scripts longer ($before -> $after bytes)"
  echo "$b: min keeps '$sig': $(grep -c ';' "$work/$b.min.txt") calls, scripts $before -> $after bytes"
  sed 's/^/    /' "$work/$b.min.txt"
done

# 5. The C reproducers: of the pull crash as found and of the minimized read
#    crash, each crashing the same way, and running clean with the fixed
#    library; the mocks sequence's too.
# repro NAME INPUT [CFLAGS...]: build INPUT's reproducer with cblib (and
# CFLAGS) as $work/NAME.repro.
repro() {
  local name=$1 input=$2
  shift 2
  "$sf" repro "$api" "$input" -o "$work/$name.c" || fail "$name: no reproducer"
  "$cc" -g -Wall -Wextra -Werror -fsanitize=address,undefined -I"$tests" "$@" "$work/$name.c" \
    "$tests/cblib.c" -o "$work/$name.repro" || fail "$name: the reproducer does not build"
}
for b in pull read seek reserve; do
  input=$work/$b.crash
  [ "$b" != read ] || input=$work/$b.min
  repro "$b" "$input"
  CBLIB_BUGS=$b "$work/$b.repro" >"$work/$b.repro.log" 2>&1 && fail "$b: the reproducer does not fail"
  [ "$("$sf" signature "$work/$b.repro.log")" = "$("$sf" signature "$work/$b.log")" ] ||
    { cat "$work/$b.repro.log"; fail "$b: the reproducer fails differently"; }
  repro "$b.fixed" "$input" -DCBLIB_NO_BUGS
  "$work/$b.fixed.repro" >"$work/$b.fixed.repro.log" 2>&1 ||
    { cat "$work/$b.fixed.repro.log"; fail "$b: the reproducer fails without the bug"; }
  echo "$b: the reproducer fails the same way, and not without the bug"
done
repro mocks "$work/mocks" -DCBLIB_NO_BUGS
"$work/mocks.repro" >"$work/mocks.repro.log" 2>&1 ||
  { cat "$work/mocks.repro.log"; fail "mocks: the reproducer fails"; }
echo "mocks: the reproducer runs clean"

# 6. Scripts in the text form: written x"...", encoded, printed back the
#    same (the other arguments in their canonical form).
cat >"$work/text.seq" <<'EOF'
h1 = cb_box_new();
cb_sort(h1, 8, x"ffffffff0100000000000000");
cb_read(h1, x"044255472101000000");
cb_pull(h1, x"075a616263646566");
cb_pull(h1, x"00");
cb_set_hook(h1, x"2a");
cb_set_hook(h1, x"");
cb_load(h1, x"0300010203");
cb_tick(h1);
cb_label(h1, "box");
cb_count(h1);
EOF
"$sf" encode "$api" "$work/text.seq" -o "$work/text" || fail "text: does not parse"
"$sf" show "$api" "$work/text" >"$work/text.out" || fail "text: show fails"
"$sf" encode "$api" "$work/text.out" -o "$work/text.again" || fail "text: what show prints does not parse"
cmp -s "$work/text" "$work/text.again" || fail "text: what show prints is another input"
diff "$work/text.seq" "$work/text.out" >"$work/text.diff" ||
  { cat "$work/text.diff"; fail "text: scripts are not printed back as written"; }
echo "text: scripts print back as written"
echo "ok ($SECONDS s)"
