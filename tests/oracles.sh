#!/usr/bin/env bash
# Oracles beyond crashes (issue 17), on libraries whose bugs crash nothing
# (oraclelib.c, difflib_[ab].c): each fuzzer, from an empty corpus with a
# fixed seed, finds its bug as the one finding its oracle reports (kind,
# function, which rule); the input replays to the same signature, `seqfuzz
# min` cuts it to its known few calls, its C reproducer aborts the same way,
# and `seqfuzz triage` groups it under that signature. Negative controls:
# with the oracle off (the invariant out of the grammar, SEQFUZZ_GENERIC=0,
# SEQFUZZ_DIFF=0) the same fuzzing, three times as long as the finding took,
# finds nothing and the inputs found no longer fail; two implementations
# that agree (rejecting the same inputs by the error convention) give no
# finding. A finding set aside by its signature (harness/known.h) is
# reported no more. About 10 to 20 s.
set -euo pipefail
build=$1 src=$2 cc=${3:-clang-14}
sf=$build/seqfuzz bin=$build/tests tests=$src/tests
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*"
  exit 1
}

# fuzz NAME FUZZER RUNS [VAR=VALUE...]: fuzz from an empty corpus, -seed=1,
# at most RUNS runs; the log in $work/NAME.log (functions reached: NEW_FUNC
# lines, and COVERED_FUNC lines when no finding ends the run), artifacts in
# $work/NAME/. Its status; $executed: how many runs it made.
fuzz() {
  local name=$1 fuzzer=$2 runs=$3
  shift 3
  mkdir -p "$work/$name.corpus" "$work/$name"
  local rc=0
  env "$@" "$bin/$fuzzer" "$work/$name.corpus" -seed=1 -runs="$runs" -max_total_time=30 \
    -print_funcs=1000 -print_coverage=1 -print_final_stats=1 -artifact_prefix="$work/$name/" \
    >"$work/$name.log" 2>&1 || rc=$?
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
  return $rc
}

# control NAME FUZZER [VAR=VALUE...]: the negative control of a finding that
# took $needed runs: the same fuzzing, with the oracle off (VAR=VALUE, or a
# grammar without it), makes three times as many runs (at least 3000) and
# saves nothing.
control() {
  local name=$1 fuzzer=$2
  shift 2
  local runs=$((needed * 3 > 3000 ? needed * 3 : 3000))
  fuzz "$name" "$fuzzer" $runs "$@" || { grep -A6 'ERROR:' "$work/$name.log"; fail "$name: a finding"; }
  grep -q "^Done $runs runs" "$work/$name.log" ||
    { tail -20 "$work/$name.log"; fail "$name: did not make its $runs runs"; }
  [ -z "$(ls -A "$work/$name")" ] || { ls -la "$work/$name"; fail "$name: saved an input"; }
  echo "negative control $name${*:+ ($*)}: $runs runs (the finding above took $needed), nothing found"
}

# calls FILE: how many calls a text sequence has.
calls() {
  grep -v '^observe_at_end;' "$1" | grep -c '^[^#]*;'
}

# finding NAME FUZZER API SIGNATURE MAX_CALLS PATTERN SOURCES...: fuzzing
# with FUZZER finds SIGNATURE (in $needed runs); the input saved replays to
# it; `seqfuzz min` keeps it and ends at MAX_CALLS calls or fewer, PATTERN
# in its text (as `seqfuzz show` prints it); the C reproducer built with
# SOURCES aborts with it. Sets $found (the input) and $minimized.
finding() {
  local name=$1 fuzzer=$2 api=$tests/$3 want=$4 max=$5 pattern=$6
  shift 6
  local w=$work/$name
  fuzz "$name" "$fuzzer" 100000 && { tail -20 "$w.log"; fail "$name: the fuzzer found nothing"; }
  needed=$executed
  local got
  got=$("$sf" signature "$w.log")
  [ "$got" = "$want" ] || { grep -A6 'ERROR:' "$w.log"; fail "$name: found '$got', not '$want'"; }
  grep -qF "==ERROR: seqfuzz: $want: " "$w.log" || fail "$name: no report line for $want"
  # The input: libFuzzer's own, or crash-probe-* when a probe found it (its
  # own file is then empty).
  found=
  for f in "$w"/crash-*; do
    [ -s "$f" ] || continue
    "$bin/$fuzzer" "$f" >"$w.replay.log" 2>&1 &&
      fail "$name: $(basename "$f") does not fail when replayed"
    got=$("$sf" signature "$w.replay.log")
    [ "$got" = "$want" ] || fail "$name: $(basename "$f") replays as '$got'"
    found=$f
  done
  [ -n "$found" ] || { ls -la "$w"; fail "$name: no input saved replays the finding"; }
  minimized=$w.min
  "$sf" min "$api" "$found" --target "$bin/$fuzzer" -o "$minimized" >/dev/null 2>"$w.min.log" ||
    { cat "$w.min.log"; fail "$name: seqfuzz min"; }
  grep -qxF "seqfuzz min: $want" "$w.min.log" ||
    { cat "$w.min.log"; fail "$name: min lost the signature"; }
  "$sf" show "$api" "$minimized" >"$w.min.txt"
  local n
  n=$(calls "$w.min.txt")
  [ "$n" -le "$max" ] || { cat "$w.min.txt"; fail "$name: $n calls after seqfuzz min (most: $max)"; }
  grep -Eq "$pattern" "$w.min.txt" ||
    { cat "$w.min.txt"; fail "$name: no '$pattern' in the minimized input"; }
  "$bin/$fuzzer" "$minimized" >"$w.min.run" 2>&1 && fail "$name: the minimized input does not fail"
  [ "$("$sf" signature "$w.min.run")" = "$want" ] || fail "$name: the minimized input fails differently"
  # The C reproducer asserts the same oracle.
  "$sf" repro "$api" "$minimized" -o "$w.repro.c"
  local srcs=() s
  for s in "$@"; do srcs+=("$tests/$s"); done
  "$cc" -g -w -fsanitize=address,undefined -I"$tests" "$w.repro.c" "${srcs[@]}" -o "$w.repro" ||
    fail "$name: the reproducer does not build"
  "$w.repro" >"$w.repro.log" 2>&1 && fail "$name: the reproducer does not fail"
  got=$("$sf" signature "$w.repro.log")
  [ "$got" = "$want" ] || { cat "$w.repro.log"; fail "$name: the reproducer fails as '$got'"; }
  echo "$name: $want, in $needed runs; $n calls: $(grep -v '^observe_at_end;' "$w.min.txt" | tr '\n' ' ')"
}

# triaged NAME FUZZER API SIGNATURE: `seqfuzz triage` of the inputs fuzzing
# saved reproduces them all, groups them under SIGNATURE (kind, function,
# rule) alone, and calls it a likely bug.
triaged() {
  local name=$1 fuzzer=$2 api=$tests/$3 want=$4
  "$sf" triage "$api" "$work/$name" --target "$bin/$fuzzer" --max-seconds 5 \
    >"$work/$name.triage" 2>"$work/$name.triage.log" ||
    { cat "$work/$name.triage.log"; fail "$name: triage"; }
  local t=$work/$name.triage
  grep -qxF "[1] $want" "$t" || { cat "$t"; fail "$name: triage has no group '$want'"; }
  grep -q '^\[2\]' "$t" && { cat "$t"; fail "$name: triage found more than one group"; }
  grep -A2 '^\[1\]' "$t" | grep -q 'likely bug:' || { cat "$t"; fail "$name: not a likely bug"; }
  grep -Eq ' [1-9][0-9]* not reproduced' "$t" && { cat "$t"; fail "$name: an input not reproduced"; }
  return 0
}

# replays_clean FUZZER INPUT [VAR=VALUE...]: INPUT no longer fails.
replays_clean() {
  local fuzzer=$1 input=$2
  shift 2
  env "$@" "$bin/$fuzzer" "$input" >"$work/clean.log" 2>&1 ||
    { cat "$work/clean.log"; fail "$(basename "$input") still fails on $fuzzer with $*"; }
}

# 1. An invariant (oraclelib.api): a full set's count goes wrong when it
#    loses a negative value. Without the invariant: nothing. (The minimum is
#    3 calls, os_new(1) filled by one os_add; seqfuzz min does not lower a
#    larger capacity the fuzzer chose, together with the adds that fill it:
#    up to 6 with os_new(4), which a burst of adds fills.)
want="invariant-violation in os_remove [invariant 1 of oset]"
finding invariant oraclelib_fuzzer oraclelib.api "$want" 6 'os_remove\(h1, -[1-8]\)' oraclelib.c
triaged invariant oraclelib_fuzzer oraclelib.api "$want"
control noinv oraclelib_noinv_fuzzer
replays_clean oraclelib_noinv_fuzzer "$found"
replays_clean oraclelib_noinv_fuzzer "$minimized"

# 2. A postcondition with old() (oraclelib_contract.api), the same bug.
want="contract-violation in os_remove [ensures 2]"
finding contract oraclelib_contract_fuzzer oraclelib_contract.api "$want" 6 \
  'os_remove\(h1, -[1-8]\)' oraclelib.c
triaged contract oraclelib_contract_fuzzer oraclelib_contract.api "$want"

# 3. A round trip (oraclelib_roundtrip.api): "v=-1" does not parse. Found
#    while the mutator probes a corpus entry or checks a sampled output:
#    the input says so (observe_at_end).
want="round-trip-failure in or_parse [rejects its printer's output]"
finding roundtrip oraclelib_roundtrip_fuzzer oraclelib_roundtrip.api "$want" 2 'or_add\(h1, -' \
  oraclelib.c
grep -qx 'observe_at_end;' "$work/roundtrip.min.txt" || fail "roundtrip: min dropped observe_at_end"
triaged roundtrip oraclelib_roundtrip_fuzzer oraclelib_roundtrip.api "$want"
control roundtrip_off oraclelib_roundtrip_fuzzer SEQFUZZ_GENERIC=0
replays_clean oraclelib_roundtrip_fuzzer "$found" SEQFUZZ_GENERIC=0
replays_clean oraclelib_roundtrip_fuzzer "$minimized" SEQFUZZ_GENERIC=0
#    Set aside by its signature (a known bug's file with no calls): the
#    inputs replay clean, and the same fuzzing saves nothing.
mkdir -p "$work/known-roundtrip"
printf '# a known bug: %s\n# signature: %s\n' "$want" "$want" >"$work/known-roundtrip/rt.seq"
replays_clean oraclelib_roundtrip_fuzzer "$found" SEQFUZZ_KNOWN="$work/known-roundtrip"
replays_clean oraclelib_roundtrip_fuzzer "$minimized" SEQFUZZ_KNOWN="$work/known-roundtrip"
control roundtrip_known oraclelib_roundtrip_fuzzer SEQFUZZ_KNOWN="$work/known-roundtrip"
#    The campaign's learner (scripts/learn-known.sh, as `seqfuzz fuzz` runs
#    it): the finding becomes a pattern of calls; a variant that comes back
#    is set aside by its signature.
lk=$work/learn
mkdir -p "$lk/crashes" "$lk/known"
cp "$found" "$lk/crashes/first"
learn() {
  bash "$src/scripts/learn-known.sh" "$sf" "$tests/oraclelib_roundtrip.api" \
    "$bin/oraclelib_roundtrip_fuzzer" "$lk/crashes" "$lk/known" "$lk/work"
}
learn
[ "$(ls "$lk/known" | wc -l)" = 1 ] || { ls "$lk/known"; fail "learner: not one pattern"; }
grep -q '^# signature:' "$lk/known"/*.seq && fail "learner: a signature at first sight"
printf 'observe_at_end;\nh1 = or_new();\nor_add(h1, 3);\nor_add(h1, 1);\nor_add(h1, -9);\n' |
  "$sf" encode "$tests/oraclelib_roundtrip.api" /dev/stdin -o "$lk/crashes/variant"
learn
[ "$(ls "$lk/known" | wc -l)" = 2 ] || { ls "$lk/known"; fail "learner: the variant added no pattern"; }
grep -qxF "# signature: $want" "$lk/known"/learned-2-*.seq ||
  { cat "$lk/known"/*.seq; fail "learner: the variant is not set aside by its signature"; }
echo "roundtrip set aside: by its signature, also as the learner's answer to a variant"

#    Values that reach no new code are checked too (SEQFUZZ_CHECK_OUTPUTS,
#    one output in 16 run again with the checks): from seeds that cover
#    every edge of the library with values >= 0, hit counts ignored
#    (-use_counters=0), no run is a new entry, so no probe meets a negative
#    value; a sampled output does. Without the sample the same 50,000 runs
#    find nothing.
sw=$work/sampled
mkdir -p "$sw/seeds"
printf 'h1 = or_new();\nor_add(h1, 3);\nor_value(h1);\nor_print(h1);\nor_free(h1);\n' |
  "$sf" encode "$tests/oraclelib_roundtrip.api" /dev/stdin -o "$sw/seeds/record"
for text in x v= v=a v=12 v=12a v=99999999; do
  printf 'h1 = or_parse("%s");\n' "$text" |
    "$sf" encode "$tests/oraclelib_roundtrip.api" /dev/stdin -o "$sw/seeds/parse-$text"
done
# sampled_fuzz NAME [VAR=VALUE...]: 50,000 runs from the seeds; its status.
sampled_fuzz() {
  local name=$1
  shift
  rm -rf "${sw:?}/$name" && mkdir -p "$sw/$name/corpus" "$sw/$name/out"
  cp "$sw/seeds"/* "$sw/$name/corpus/"
  env SEQFUZZ_STATS=0 "$@" "$bin/oraclelib_roundtrip_fuzzer" "$sw/$name/corpus" -seed=1 -runs=50000 \
    -use_counters=0 -reduce_inputs=0 -artifact_prefix="$sw/$name/out/" >"$sw/$name.log" 2>&1
}
sampled_fuzz on && { tail -5 "$sw/on.log"; fail "sampled outputs: nothing found in 50000 runs"; }
[ "$("$sf" signature "$sw/on.log")" = "$want" ] ||
  { grep -A6 'ERROR:' "$sw/on.log"; fail "sampled outputs: not the round trip"; }
[ "$(ls "$sw/on/corpus" | wc -l)" = "$(ls "$sw/seeds" | wc -l)" ] ||
  fail "sampled outputs: a new corpus entry (a probe may have found it)"
probe_input=$(ls "$sw/on/out"/crash-probe-* 2>/dev/null | head -1)
[ -n "$probe_input" ] || { ls -la "$sw/on/out"; fail "sampled outputs: no crash-probe input"; }
"$bin/oraclelib_roundtrip_fuzzer" "$probe_input" >"$sw/replay.log" 2>&1 &&
  fail "sampled outputs: $(basename "$probe_input") does not fail when replayed"
[ "$("$sf" signature "$sw/replay.log")" = "$want" ] || fail "sampled outputs: replays differently"
sampled_fuzz off SEQFUZZ_CHECK_OUTPUTS=0 ||
  { grep -A6 'ERROR:' "$sw/off.log"; fail "without sampled outputs: a finding"; }
[ -z "$(ls -A "$sw/off/out")" ] || fail "without sampled outputs: an input saved"
echo "sampled outputs: the round trip found with no new corpus entry; without them, not in 50000 runs"

# 4. An impure observer (oraclelib_impure.api): peeking into a box of three
#    changes its digest.
want="impure-observer in ob_peek [changes ob_digest]"
finding impure oraclelib_impure_fuzzer oraclelib_impure.api "$want" 4 'ob_put' oraclelib.c
triaged impure oraclelib_impure_fuzzer oraclelib_impure.api "$want"
control impure_off oraclelib_impure_fuzzer SEQFUZZ_GENERIC=0
replays_clean oraclelib_impure_fuzzer "$found" SEQFUZZ_GENERIC=0
replays_clean oraclelib_impure_fuzzer "$minimized" SEQFUZZ_GENERIC=0

# 5. Two implementations (difflib.api): db_del leaves a wrong minimum. The
#    capacities (ignored) and the means (within the tolerance) differ
#    legitimately: the finding is the minimum.
want="divergence in da_min [observer]"
finding divergence difflib_fuzzer difflib.api "$want" 5 'da_del' difflib_a.c difflib_b.c
triaged divergence difflib_fuzzer difflib.api "$want"
control divergence_off difflib_fuzzer SEQFUZZ_DIFF=0
grep -q '^COVERED_FUNC:.* da_del ' "$work/divergence_off.log" || fail "divergence_off: da_del never ran"
grep -q '^COVERED_FUNC:.* db_' "$work/divergence_off.log" && fail "divergence_off: db_* ran"
replays_clean difflib_fuzzer "$found" SEQFUZZ_DIFF=0
replays_clean difflib_fuzzer "$minimized" SEQFUZZ_DIFF=0
#    The campaign's learner, given the divergence twice: its signature names
#    a function, not a bug, so the second time it is not set aside by its
#    signature (that would hide every later divergence in da_min): patterns
#    of calls, one of which sets the second input aside.
lk=$work/learn-diff
mkdir -p "$lk/crashes" "$lk/known"
learn_diff() {
  bash "$src/scripts/learn-known.sh" "$sf" "$tests/difflib.api" "$bin/difflib_fuzzer" \
    "$lk/crashes" "$lk/known" "$lk/work"
}
cp "$found" "$lk/crashes/first"
learn_diff
cp "$minimized" "$lk/crashes/second"
learn_diff
[ -n "$(ls "$lk/known")" ] || fail "learner: no pattern for the divergence"
grep -q '^# signature:' "$lk/known"/*.seq &&
  { cat "$lk/known"/*.seq; fail "learner: a divergence set aside by its signature"; }
replays_clean difflib_fuzzer "$minimized" SEQFUZZ_KNOWN="$lk/known"
echo "divergence learnt twice: $(ls "$lk/known" | wc -l) pattern(s) of calls, none by signature"

# 6. Two implementations that agree (difflib_agree.api): the same texts
#    rejected by the error convention, the same answers otherwise: no
#    finding in three times the runs the divergence took (at least 3000);
#    both implementations ran.
control agree difflib_agree_fuzzer
for f in v2_acc_feed v2_acc_parse v2_acc_format v2_acc_total acc_parse; do
  grep -q "^COVERED_FUNC:.* $f " "$work/agree.log" || fail "agree: $f never ran"
done
echo "agree: both implementations ran, no divergence"
echo "ok"
