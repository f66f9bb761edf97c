#!/usr/bin/env bash
# The engine flags a libFuzzer build of seqfuzz sets for itself
# (harness/fuzz_target.c, LLVMFuzzerInitialize): the entropic schedule's
# rare-feature threshold, 64 on a target of 20,000 edges or more unless the
# user gives one (then the user's), libFuzzer's 255 on a smaller one. In
# fork mode the jobs get the parent's flags.
#   tests/engine_flags.sh FUZZER...   (tests/targets_seeds.sh runs it on the
#   real targets, ctest on a small one)
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
# parsed FUZZER ARGS...: the threshold libFuzzer runs with (its line
# "Running with entropic power schedule (0xFF, 100)"), then the edges it
# loaded.
parsed() {
  local f=$1
  shift
  SEQFUZZ_SOLVER=0 "$f" -runs=0 "$@" "$work/corpus" >"$work/log" 2>&1 || true
  local hex
  hex=$(sed -n 's/.*entropic power schedule (0x\([0-9A-Fa-f]*\),.*/\1/p' "$work/log")
  echo "$([ -n "$hex" ] && echo $((16#$hex)) || echo none)" \
    "$(sed -n 's/.*Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$work/log" | head -1)"
}
for fuzzer in "$@"; do
  read -r got edges < <(parsed "$fuzzer")
  want=255
  [ "${edges:-0}" -ge 20000 ] && want=64
  echo "$(basename "$fuzzer"): $edges edges, threshold $got"
  [ "$got" = "$want" ] || { echo "FAIL: threshold $got, $want expected"; exit 1; }
  read -r got _ < <(parsed "$fuzzer" -entropic_feature_frequency_threshold=200)
  [ "$got" = 200 ] || { echo "FAIL: the user's threshold (200) did not win: $got"; exit 1; }
  [ "$want" = 64 ] || continue
  # A fork-mode job: its command line comes from the parent's flags.
  SEQFUZZ_SOLVER=0 "$fuzzer" -fork=1 -runs=20 -verbosity=2 -ignore_crashes=1 "$work/corpus" \
    >"$work/fork.log" 2>&1 || true
  grep -q 'Created: .*entropic_feature_frequency_threshold=64' "$work/fork.log" ||
    { tail -20 "$work/fork.log"; echo "FAIL: a fork-mode job lacks the threshold"; exit 1; }
done
echo PASS
