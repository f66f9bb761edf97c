#!/usr/bin/env bash
# The main job on the bundled demo target: install what is missing, build,
# fuzz the kvstore library with seqfuzz under libFuzzer until its bug is
# found, print the crashing input as a sequence, then minimize it and write a
# standalone C reproducer.
#   scripts/demo.sh [SECONDS]     (default: at most 600 s of fuzzing)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
limit=${1:-600}
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target seqfuzz kvstore_fuzzer >/dev/null
api="$root/seeds/demo/kvstore.api"
out="$root/out/demo"
rm -rf "$out" && mkdir -p "$out/corpus" "$out/crashes"
for s in "$root"/seeds/demo/seeds/*.seq; do
  "$root/build/seqfuzz" encode "$api" "$s" -o "$out/corpus/$(basename "$s" .seq)"
done
echo "seqfuzz: fuzzing the demo target (kvstore) for at most ${limit}s..."
set +e
"$root/build/kvstore_fuzzer" "$out/corpus" -artifact_prefix="$out/crashes/" \
  -max_total_time="$limit" -print_final_stats=1 >"$out/fuzz.log" 2>&1
set -e
crash=$(ls "$out"/crashes/crash-* 2>/dev/null | head -n1 || true)
if [ -z "$crash" ]; then
  echo "seqfuzz: no crash within ${limit}s (log: $out/fuzz.log)" >&2
  exit 1
fi
grep -m1 -E "ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer)" "$out/fuzz.log" || true
grep -m1 "^SUMMARY" "$out/fuzz.log" || true
grep -m1 "stat::number_of_executed_units" "$out/fuzz.log" || true
echo "seqfuzz: crashing input $crash, as a sequence:"
"$root/build/seqfuzz" show "$api" "$crash"
echo
echo "seqfuzz: minimizing it (each candidate runs in a fresh process)..."
if "$root/build/seqfuzz" min "$api" "$crash" --target "$root/build/kvstore_fuzzer" \
  -o "$out/minimized" --max-seconds 60 >"$out/minimized.seq" 2>"$out/min.log"; then
  tail -n2 "$out/min.log"
  cat "$out/minimized.seq"
  "$root/build/seqfuzz" repro "$api" "$out/minimized" -o "$out/repro.c"
  echo "seqfuzz: C reproducer in $out/repro.c; build and run it with"
  echo "  clang -g -fsanitize=address,undefined -I$root/seeds/demo $out/repro.c $root/seeds/demo/kvstore.c -o $out/repro && $out/repro"
else
  echo "seqfuzz: minimization failed (see $out/min.log)" >&2
fi
