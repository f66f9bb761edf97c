#!/usr/bin/env bash
# The grammar rules of issue 18 (requires, depends_on, steal, refcounted,
# printf, default nullable, C shapes) and three later ones (`P depends_on Q`,
# locks, a state set by calls and required by one) on rulelib
# (tests/rulelib.h), a library with one trap per rule: a memory error only a
# call the rule forbids meets.
#  - Each trap: fuzzing rulelib_no_RULE.api (the full grammar without that
#    rule) from an empty corpus, -seed=1, finds it (its kind and function);
#    `seqfuzz triage` calls it API misuse and names the rule (the three
#    later ones: see below; triage calls the locks trap a bug); its minimized
#    sequence, read with the full grammar, is rejected (a static rule) or
#    runs clean (a run-time one).
#  - The full grammar (rulelib.api), fuzzed three times as long as the
#    slowest trap took (at least 100000 runs), finds nothing and calls every
#    function.
#  - default nullable: on a build with a real NULL bug (rl_list_find), the
#    full grammar finds it and triage calls it a likely bug; the grammar
#    without the rule finds nothing in three times the runs (at least 30000).
#  - An out buffer: on a build whose rl_list_dump writes one byte past a
#    short buffer, the full grammar finds the overrun (the buffer has exactly
#    the size the sequence chose), a likely bug whose C reproducer fails the
#    same way.
#  - C shapes (out string, out buffer, memfile, bool32): a sequence using them
#    all runs clean, as does its C reproducer.
# About a minute (80 s on two busy cores).
set -euo pipefail
build=$1 src=$2 cc=${3:-clang-14}
sf=$build/seqfuzz bin=$build/tests tests=$src/tests
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*"
  exit 1
}

# fuzz NAME FUZZER RUNS [SECONDS]: fuzz from an empty corpus, -seed=1, at most RUNS
# runs and SECONDS (60); the log in $work/NAME.log (COVERED_FUNC lines when no finding ends
# the run), artifacts in $work/NAME/. Its status; $executed: how many runs
# it made.
fuzz() {
  local name=$1 fuzzer=$2 runs=$3 secs=${4:-60}
  mkdir -p "$work/$name.corpus" "$work/$name"
  local rc=0
  "$bin/$fuzzer" "$work/$name.corpus" -seed=1 -runs="$runs" -max_total_time="$secs" -print_coverage=1 \
    -print_final_stats=1 -artifact_prefix="$work/$name/" >"$work/$name.log" 2>&1 || rc=$?
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
  return $rc
}

# found NAME FUZZER WANT: fuzzing with FUZZER finds a crash whose signature
# ("KIND in FUNCTION ...") begins with a match of WANT (an extended regex);
# $needed: the runs it took.
found() {
  local name=$1 fuzzer=$2 want=$3
  fuzz "$name" "$fuzzer" 200000 && { tail -20 "$work/$name.log"; fail "$name: nothing found"; }
  needed=${executed:-0}
  local got
  got=$("$sf" signature "$work/$name.log")
  grep -Eq "^($want)( |$)" <<<"$got" ||
    { grep -A12 'ERROR:' "$work/$name.log" | head -30; fail "$name: found '$got', not '$want'"; }
  echo "$name: $got, in $needed runs"
}

# triaged NAME API FUZZER VERDICT [WORD]: `seqfuzz triage` of what fuzzing
# saved reproduces it all as one group, with VERDICT ("likely bug" or
# "likely API misuse") and a reason matching WORD (an extended regex,
# case-insensitive). The group's files in $work/NAME.out/ (1-*.seq, 1-*.c).
triaged() {
  local name=$1 api=$tests/$2 fuzzer=$3 verdict=$4 word=${5:-} # verdict "": any
  local t=$work/$name.triage
  "$sf" triage "$api" "$work/$name" --target "$bin/$fuzzer" --max-seconds 5 -o "$work/$name.out" \
    >"$t" 2>"$t.log" || { cat "$t" "$t.log"; fail "$name: triage"; }
  grep -q '^\[1\]' "$t" || { cat "$t"; fail "$name: triage has no group"; }
  grep -q '^\[2\]' "$t" && { cat "$t"; fail "$name: triage found more than one group"; }
  grep -Eq ' [1-9][0-9]* not reproduced' "$t" && { cat "$t"; fail "$name: an input not reproduced"; }
  local line
  line=$(grep -m1 '^    likely ' "$t" || true)
  case "$line" in
  "    $verdict"*": "*) ;;
  *)
    cat "$t"
    fail "$name: triage does not say '$verdict'"
    ;;
  esac
  [ -z "$word" ] || grep -qiE "$word" <<<"$line" ||
    { cat "$t"; fail "$name: triage's reason does not name '$word'"; }
  echo "  triage: ${line#    }"
}

# under_full NAME HOW [WHY]: the minimized sequence of trap NAME, read with
# the full grammar: HOW is "rejected" (the text form refuses it, with a
# message matching WHY), "clean" (it runs clean: the call that would break
# the rule is not made, or the cleanup is right) or "either".
under_full() {
  local name=$1 how=$2 why=${3:-} seq
  seq=$(ls "$work/$name.out"/1-*.seq)
  if "$sf" encode "$tests/rulelib.api" "$seq" -o "$work/$name.full" >"$work/$name.enc.log" 2>&1; then
    [ "$how" != rejected ] || { cat "$seq"; fail "$name: the full grammar accepts the trap's sequence"; }
    "$bin/rulelib_fuzzer" "$work/$name.full" >"$work/$name.full.log" 2>&1 ||
      { cat "$seq"; grep -A8 ERROR "$work/$name.full.log"; fail "$name: fails with the full grammar"; }
    echo "  with the full grammar: runs clean"
  else
    [ "$how" != clean ] ||
      { cat "$seq" "$work/$name.enc.log"; fail "$name: the full grammar rejects the trap's sequence"; }
    grep -qiE "$why" "$work/$name.enc.log" ||
      { cat "$work/$name.enc.log"; fail "$name: rejected, but not for '$why'"; }
    echo "  with the full grammar: rejected ($(head -1 "$work/$name.enc.log"))"
  fi
}

# trap_of RULE WANT WORD HOW [WHY [VERDICT]]: the trap of RULE (see above),
# found as WANT, triage calling it VERDICT (default "likely API misuse"; ""
# for any) naming WORD, HOW (and WHY) under the full grammar.
slowest=0
trap_of() {
  local rule=$1 want=$2 word=$3 how=$4 why=${5:-} verdict=${6-likely API misuse}
  found "no_$rule" "rulelib_no_${rule}_fuzzer" "$want"
  [ "$needed" -le "$slowest" ] || slowest=$needed
  triaged "no_$rule" "rulelib_no_$rule.api" "rulelib_no_${rule}_fuzzer" "$verdict" "$word"
  under_full "no_$rule" "$how" "$why"
}

# Each variant differs from the full grammar by its rule alone (and names).
for v in "$tests"/rulelib_no_*.api; do
  n=$(diff <(grep -v '^ *#' "$tests/rulelib.api" | grep -v '^api ') \
    <(grep -v '^ *#' "$v" | grep -v '^api ') | grep -c '^[<>]' || true)
  if [ "$n" -lt 1 ] || [ "$n" -gt 3 ]; then fail "$(basename "$v"): $n lines differ from rulelib.api"; fi
  "$sf" check "$v" >/dev/null || fail "$(basename "$v") does not check"
done
"$sf" check "$tests/rulelib.api" || fail "rulelib.api does not check"

# 1. requires with an observer: rl_list_get(l, i) past the end.
trap_of requires_index "heap-buffer-overflow in rl_list_get" 'requires' either 'requires|precondition'
# 2. requires relating two arguments: rl_list_sum_range(l, lo, hi), lo > hi.
trap_of requires_relation "heap-buffer-overflow in rl_list_sum_range" 'requires' either \
  'requires|precondition'
#    ... and two handles: rl_list_move_all(l, l).
trap_of requires_alias "heap-use-after-free in rl_list_move_all" 'requires' either \
  'requires|precondition'
# 3. depends_on: rl_iter_next on an iterator whose list was freed.
trap_of depends_on "heap-use-after-free in rl_iter_next" 'depends_on' rejected 'dependent|depends_on'
# 4. steal: a node rl_list_append_new failed on (and released) released again.
trap_of steal "heap-use-after-free in rl_node_unref" 'steal' clean
# 5. refcounted: the second reference to a node never released.
trap_of refcounted "leak in rl_node_new" 'refcounted' clean
# 6. printf: a format whose %s has no argument.
trap_of printf "(SEGV|ubsan: [a-z ]*null pointer) in rl_list_printf" 'printf' clean
# 7. P depends_on Q: a cursor attached to a list (rl_cursor_attach) reads it
#    when used or freed. Found as: cursor, list, attach, then the cleanup,
#    newest first, frees the list before the cursor (the full grammar frees
#    the dependent first: runs clean). Triage: a value attached to the list
#    used after the list's destructor ("... the grammar should say so
#    (`depends_on`, ...)").
trap_of depends_on_param "heap-use-after-free in rl_cursor_(next|free)" 'depends_on' either \
  'dependent|depends_on'
# 8. locks: rl_batch_end writes the block its list had at rl_batch_begin,
#    freed by any call changing the list since (found as rl_list_printf
#    pushing an item). Triage cannot tell this from a library bug (the
#    demo's snapshot freed under it by kv_compact has the same shape, and
#    is one): it calls it a likely bug and names the rule that would make it
#    misuse ("... unless what rl_batch_end works on must have the rl_list to
#    itself while it lives (the grammar should then say `locks` ...)").
trap_of locks "heap-use-after-free in rl_batch_end" 'locks' rejected 'locked|locks' 'likely bug'
# 9. A state: rl_list_bsearch on a list not sorted since it last changed
#    (rl_sorted(l) is 0) runs past the block: found as push 0, push -1,
#    bsearch 1. Triage calls it misuse, through its rule for an argument
#    whose value the crash needs, not the state: "heap-buffer-overflow in
#    rl_list_bsearch needs its argument 'key' at 1 (at its lowest legal
#    value it does not crash): if the library documents a bound on it (an
#    index below a length, lo <= hi), state it with `requires`". key has no
#    bound: it crashes above every item of a list whose last item is below
#    its first (at 0 it is found). Triage knows no state. The state's
#    `requires` is a run-time rule: the sequence runs clean with it (the
#    call is not made).
trap_of state "heap-buffer-overflow in rl_list_bsearch" 'requires' clean

# The full grammar, three times as long as the slowest trap took: nothing.
runs=$((slowest * 3 > 100000 ? slowest * 3 : 100000))
# (Its count is the point: a loaded machine gets more time, not fewer runs.)
fuzz full rulelib_fuzzer $runs 300 || { grep -A12 'ERROR:' "$work/full.log" | head -30; fail "full: a finding"; }
grep -q "^Done $runs runs" "$work/full.log" || { tail -20 "$work/full.log"; fail "full: not $runs runs"; }
[ -z "$(ls -A "$work/full")" ] || { ls -la "$work/full"; fail "full: saved an input"; }
grep -o '^func [^(]*(' "$tests/rulelib.api" | sed 's/($//; s/.*[ *]//' >"$work/funcs"
while read -r f; do
  grep -q "^COVERED_FUNC:.* $f " "$work/full.log" || fail "full: $f never ran"
done <"$work/funcs"
echo "full grammar: $runs runs (the slowest trap took $slowest), nothing found, every function ran"

# 10. default nullable: the NULL bug of rl_list_find is a bug; without the
#    rule, no NULL key, nothing found.
found nullable rulelib_null_fuzzer "(SEGV|ubsan: load of null pointer.*) in rl_list_find"
triaged nullable rulelib.api rulelib_null_fuzzer "likely bug"
runs=$((needed * 3 > 30000 ? needed * 3 : 30000))
fuzz no_nullable rulelib_no_nullable_fuzzer $runs ||
  { grep -A12 'ERROR:' "$work/no_nullable.log" | head -30; fail "no_nullable: a finding"; }
grep -q "^Done $runs runs" "$work/no_nullable.log" || fail "no_nullable: not $runs runs"
grep -q '^COVERED_FUNC:.* rl_list_find ' "$work/no_nullable.log" || fail "no_nullable: no rl_list_find"
echo "no_nullable: $runs runs, nothing found"

# 11. An out buffer sized exactly: rl_list_dump's overrun, a bug; the C
#    reproducer allocates it the same way.
found dump rulelib_dump_fuzzer "heap-buffer-overflow in rl_list_dump"
triaged dump rulelib.api rulelib_dump_fuzzer "likely bug"
repro=$(ls "$work/dump.out"/1-*.c)
"$cc" -g -w -fsanitize=address,undefined -I"$tests" -DRULELIB_BUG_DUMP "$repro" "$tests/rulelib.c" \
  -o "$work/dump.repro" || fail "dump: the reproducer does not build"
"$work/dump.repro" >"$work/dump.repro.log" 2>&1 && fail "dump: the reproducer does not fail"
[ "$("$sf" signature "$work/dump.repro.log")" = "$("$sf" signature "$work/dump.log")" ] ||
  { cat "$work/dump.repro.log"; fail "dump: the reproducer fails differently"; }
echo "  reproducer: the same overrun"

# The C shapes in one sequence, observed as the mutator's probes do (the
# generic contracts: observers, a repeated run): it runs clean, keeping the
# grammar's contracts on them (on the build with the dump bug too: a buffer
# as large as the dump), and so does its reproducer.
cat >"$work/shapes.seq" <<'EOF'
observe_at_end;
h1 = rl_list_new();
rl_list_load(h1, "7 -8 9");
rl_list_name(h1, &_);
rl_list_dump(h1, 12);
rl_list_flag(h1, true);
rl_list_find(h1, "-8");
rl_list_load(h1, x"31");
EOF
"$sf" encode "$tests/rulelib.api" "$work/shapes.seq" -o "$work/shapes" ||
  fail "shapes: the text does not parse"
for f in rulelib_fuzzer rulelib_dump_fuzzer; do
  "$bin/$f" "$work/shapes" >"$work/shapes.log" 2>&1 || { cat "$work/shapes.log"; fail "shapes: $f fails"; }
done
"$sf" repro "$tests/rulelib.api" "$work/shapes" -o "$work/shapes.c"
"$cc" -g -w -fsanitize=address,undefined -I"$tests" "$work/shapes.c" "$tests/rulelib.c" \
  -o "$work/shapes.repro" || fail "shapes: the reproducer does not build"
"$work/shapes.repro" >"$work/shapes.repro.log" 2>&1 ||
  { cat "$work/shapes.repro.log"; fail "shapes: the reproducer fails"; }
echo "shapes: out string, out buffer, memfile, bool32 run clean, and in C"
echo "ok"
