#!/usr/bin/env bash
# Fuzz the demo target with AFL++ and the seqfuzz custom mutator, one main
# (-M) and one secondary (-S) instance, for SECONDS; then report what each
# instance did and whether the mutator logged any error.
#   scripts/fuzz-afl.sh [SECONDS] [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-600}
out=${2:-$root/out/afl}
"$root/scripts/build-afl.sh" >/dev/null
api=$root/seeds/demo/kvstore.api
rm -rf "$out" && mkdir -p "$out/in"
for s in "$root"/seeds/demo/seeds/*.seq; do
  "$root/build/seqfuzz" encode "$api" "$s" -o "$out/in/$(basename "$s" .seq)"
done
common=(AFL_CUSTOM_MUTATOR_LIBRARY="$root/build/libseqfuzz-afl.so" AFL_CUSTOM_MUTATOR_ONLY=1
        SEQFUZZ_API="$api" AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1
        AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1)
for role in M:main S:second; do
  flag=${role%%:*} name=${role##*:}
  env "${common[@]}" SEQFUZZ_STATS_FILE="$out/$name.seqfuzz-stats" SEQFUZZ_STATS=30 \
    timeout "$secs" afl-fuzz -i "$out/in" -o "$out/sync" -m none -"$flag" "$name" \
    -- "$root/build-afl/kvstore_fuzzer" >"$out/$name.log" 2>&1 &
done
wait || true
status=0
for name in main second; do
  stats=$out/sync/$name/fuzzer_stats
  if [ ! -f "$stats" ]; then
    echo "$name: no fuzzer_stats (afl-fuzz did not run; see $out/$name.log)"
    status=1
    continue
  fi
  printf '%s: ' "$name"
  awk -F' *: ' '$1 ~ /^(execs_done|execs_per_sec|corpus_count|corpus_imported|saved_crashes|run_time)$/ {printf "%s=%s ", $1, $2}' "$stats"
  echo
  tail -n1 "$out/$name.seqfuzz-stats" 2>/dev/null | sed 's/^[0-9]* /  /'
  if grep -qiE "custom mutator.*(error|fail)|PROGRAM ABORT|seqfuzz: " "$out/$name.log"; then
    echo "  mutator or afl-fuzz error in $out/$name.log:"
    grep -iE "custom mutator.*(error|fail)|PROGRAM ABORT|seqfuzz: " "$out/$name.log" | head -5
    status=1
  fi
done
exit $status
