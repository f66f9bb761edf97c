#!/usr/bin/env bash
# The engine flags a libFuzzer build of seqfuzz sets for itself
# (harness/fuzz_target.c, LLVMFuzzerInitialize): the entropic schedule's
# rare-feature threshold, unless the user gives one, and then the user's.
# In fork mode the jobs get the parent's flags.
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fuzzer=$build/kvstore_fixed_fuzzer
mkdir -p "$work/corpus"
# threshold ARGS...: the threshold libFuzzer parsed (-verbosity=2 lists each flag).
threshold() {
  SEQFUZZ_SOLVER=0 "$fuzzer" -runs=0 -verbosity=2 "$@" "$work/corpus" 2>&1 |
    sed -n 's/^Flag: entropic_feature_frequency_threshold //p'
}
got=$(threshold)
echo "threshold by default: ${got:-none}"
[ "$got" = 64 ] || { echo "FAIL: seqfuzz did not set the entropic threshold"; exit 1; }
got=$(threshold -entropic_feature_frequency_threshold=200)
echo "threshold the user set to 200: ${got:-none}"
[ "$got" = 200 ] || { echo "FAIL: the user's threshold did not win"; exit 1; }
# A fork-mode job: its command line comes from the parent's flags.
SEQFUZZ_SOLVER=0 "$fuzzer" -fork=1 -runs=100 -verbosity=2 -ignore_crashes=1 "$work/corpus" \
  >"$work/fork.log" 2>&1 || true
grep -q 'entropic_feature_frequency_threshold=64' "$work/fork.log" ||
  { tail -20 "$work/fork.log"; echo "FAIL: a fork-mode job lacks the threshold"; exit 1; }
echo PASS
