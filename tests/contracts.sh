#!/usr/bin/env bash
# The stateful testing stage (contracts/contracts.h, mutator/stateful.c) on
# statelib (tests/statelib.h): its bug needs sl_reopen on a queue sl_take has
# just left draining, a state corpus entries pass through but where random
# extension hardly ever calls sl_reopen. In passing runs sl_reopen always
# meets `sl_draining(q) == 0`: the stage infers it, and calls sl_reopen on a
# stored draining queue.
#  - The bug's sequence crashes the bug build and runs clean without the bug.
#  - From an empty corpus with -seed=7 (the solver off: runs are then
#    reproducible), the stage finds the bug within 400,000 runs, and the
#    crashing input ends with sl_take then sl_reopen on the queue taken
#    from; without the stage (SEQFUZZ_CONTRACTS=0) the same runs find
#    nothing. Seed 7 with the stage: 14,336 runs at 246b61d (over seeds 1-8
#    it found it in 4 within 200,000 runs and in 7 within 600,000, without
#    it 0 and 2); about 48,000 once names were reused from every earlier
#    call (5 of 8 within 200,000, without 2); 169,447 with length control
#    (6 of 8, without 2 of 8); 26,206 with insertions favouring the
#    functions whose calls find (over seeds 1-8 within 400,000 runs, 7 of
#    8, without the stage 2: seeds 1 and 2). With handle arguments taking
#    new objects only where none fits (SEQFUZZ_FRESH_VALUES=0, the default
#    since the thirty-sixth session) random extension reaches the state
#    more often: over seeds 1-8 within 400,000 runs, 6 of 8 with the stage,
#    3 of 8 without it (seeds 6, 7 and 8; seed 7 at 102,534 runs), so the
#    seed was 3 (70,051 runs with the stage). With integer arguments set to
#    what they were compared with (the thirty-eighth session), 8 of 8 with
#    the stage (6 ending in sl_take, sl_reopen; the other two crash in an
#    sl_reopen a mutation carried along with later calls), 3 of 8 without
#    (seeds 3, 5 and 6), so the seed is 7 (14,553 runs with the stage). All
#    in scripts/test.sh's sanitized build: an unsanitized build's runs
#    differ.
#  - Without the bug, nothing is reported in 100,000 runs with the stage
#    on; its report (SEQFUZZ_CONTRACTS_OUT) lists preconditions its calls
#    refuted, and keeps the contracts that hold as grammar lines that parse
#    once put in the grammar.
# About 90 s on two cores.
set -euo pipefail
build=$1 src=$2
sf=$build/seqfuzz bin=$build/tests api=$src/tests/statelib.api
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*"
  exit 1
}

"$sf" check "$api" >/dev/null || fail "statelib.api does not check"

# 1. The bug's sequence.
"$sf" encode "$api" "$src/tests/data/statelib_bug.seq" -o "$work/bug.bin"
"$bin/statelib_fuzzer" -runs=1 "$work/bug.bin" >"$work/bug.log" 2>&1 &&
  fail "the bug's sequence does not crash the bug build"
grep -q "heap-use-after-free" "$work/bug.log" || fail "no use after free: $(tail -5 "$work/bug.log")"
"$bin/statelib_nobugs_fuzzer" -runs=1 "$work/bug.bin" >"$work/nobug.log" 2>&1 ||
  fail "the bug's sequence fails without the bug: $(tail -5 "$work/nobug.log")"

# fuzz FUZZER STAGE DIR RUNS [ENV...]: libFuzzer from an empty corpus, seed 7.
fuzz() {
  local fuzzer=$1 stage=$2 dir=$3 runs=$4
  shift 4
  mkdir -p "$dir/corpus"
  env SEQFUZZ_SOLVER=0 SEQFUZZ_STATS=0 SEQFUZZ_CONTRACTS="$stage" "$@" \
    "$fuzzer" "$dir/corpus" -seed=7 -runs="$runs" -artifact_prefix="$dir/" >"$dir/log" 2>&1
}

# 2. The stage finds the bug; without it, the same runs do not.
fuzz "$bin/statelib_fuzzer" 5 "$work/on" 400000 && fail "the stage did not find the bug in 400000 runs"
grep -q "heap-use-after-free" "$work/on/log" || fail "the stage's crash is not the bug: $(grep SUMMARY "$work/on/log")"
crash=$(ls "$work/on"/crash-* | head -1)
"$sf" show "$api" "$crash" >"$work/crash.seq"
last=$(grep -v '^observe_at_end' "$work/crash.seq" | tail -2)
echo "$last" | grep -Eq '^(h[0-9]+) = sl_take\((h[0-9]+)\);$' || fail "no sl_take before the last call: $last"
taken=$(echo "$last" | head -1 | sed -E 's/.*sl_take\((h[0-9]+)\);/\1/')
echo "$last" | tail -1 | grep -qx "sl_reopen($taken);" || fail "the last call is not sl_reopen($taken): $last"
fuzz "$bin/statelib_fuzzer" 0 "$work/off" 400000 ||
  fail "found without the stage (the library no longer needs it): $(grep SUMMARY "$work/off/log")"

# 3. Without the bug: the report, and no finding.
fuzz "$bin/statelib_nobugs_fuzzer" 5 "$work/nb" 100000 SEQFUZZ_CONTRACTS_OUT="$work/nb/contracts.txt" ||
  fail "a report without the bug: $(grep -A3 ERROR "$work/nb/log" | head -5)"
report=$work/nb/contracts.txt
[ -s "$report" ] || fail "no contracts report"
# The stage made calls that refuted preconditions (here random runs also
# reach sl_reopen on a draining queue: without the bug it is new code).
grep -Eq '^#   refuted \(the stage: the call (ran|failed by its error convention)\): requires ' "$report" ||
  fail "no precondition refuted by the stage: $(grep refuted "$report" | head -5)"
# What holds is written as grammar lines (with their support) that parse
# once put in the grammar: sl_new's result is an empty queue.
grep -Eq '^  ensures sl_len\(ret\) == 0  # support [0-9]+$' "$report" ||
  fail "sl_new's postcondition is not reported: $(head -20 "$report")"
sed 's/^\(func sl_queue \*sl_new(unsigned cap in \[4, 64\]) error null\);$/\1\n    ensures sl_len(ret) == 0;/' \
  "$api" >"$work/with.api"
grep -q 'ensures sl_len(ret) == 0;' "$work/with.api" || fail "sl_new's declaration changed: update the test"
"$sf" check "$work/with.api" >/dev/null || fail "the reported contract does not parse in the grammar"
head -1 "$report" | grep -Eq '^# seqfuzz contracts: inferred from [0-9]+ runs' || fail "no header"
echo "contracts: ok"
