#!/usr/bin/env bash
# seqfuzz benchmarks on the demo target (kvstore), measured side by side in
# one run: every configuration runs once per seed, configurations interleaved,
# medians reported. Baseline: bench/kvstore_handwritten.c, a byte-driven
# switch harness for the same API, same library, same build flags.
#
#   bench/run.sh [SEEDS] [THROUGHPUT_SECONDS] [CRASH_TIME_LIMIT]
#
# 1. throughput: executions/s and API calls/s on the library with its bug
#    fixed (so that runs do not stop at the first crash);
# 2. time to first crash, libFuzzer and AFL++, both from an empty start
#    (libFuzzer: empty corpus; AFL++: one input that is empty for each
#    harness), wall-clock seconds including start-up;
# 3. ablation: seqfuzz with legality pruning off, with equivalence pruning off;
#    and with sequences of at most 16 calls (SEQFUZZ_MAX_CALLS=16 instead of
#    64): shorter sequences run faster but need more executions to the bug.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=${1:-5}
tput=${2:-10}
limit=${3:-120}
"$root/scripts/build-afl.sh" >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target kvstore_fuzzer kvstore_fixed_fuzzer \
  handwritten_fuzzer handwritten_fixed_fuzzer seqfuzz >/dev/null
B=$root/build
A=$root/build-afl
api=$root/seeds/demo/kvstore.api
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) {print "nan"; exit} if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }

# --- throughput -------------------------------------------------------------
# run_tput NAME BINARY [ENV...]: prints "execs/s calls/exec"
run_tput() {
  local name=$1 bin=$2
  shift 2
  rm -rf "$work/c" && mkdir -p "$work/c"
  env "$@" SEQFUZZ_STATS=1 "$bin" "$work/c" -seed="$seed" -max_total_time="$tput" \
    -print_final_stats=1 >"$work/log" 2>&1 || true
  local execs secs calls
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/log" | awk '{print $2}' || true)
  secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$work/log" | awk '{print $5}' || true)
  [ -n "$secs" ] && [ "$secs" -gt 0 ] || secs=$tput
  calls=$(grep -o 'mean length [0-9.]*' "$work/log" | tail -n1 | awk '{print $3}' || true)
  [ -n "$calls" ] || calls=$(grep -o '[0-9.]* calls per execution' "$work/log" | awk '{print $1}' || true)
  echo "$name $(awk -v e="$execs" -v s="$secs" 'BEGIN {printf "%.0f", e / s}') ${calls:-nan}" >>"$work/tput"
}

# --- time to first crash ----------------------------------------------------
# ttfc_lf NAME BINARY [ENV...]: libFuzzer from an empty corpus
ttfc_lf() {
  local name=$1 bin=$2
  shift 2
  rm -rf "$work/c" "$work/a" && mkdir -p "$work/c" "$work/a"
  local t0 t1
  t0=$(now)
  env "$@" "$bin" "$work/c" -seed="$seed" -max_total_time="$limit" -artifact_prefix="$work/a/" \
    -print_final_stats=1 >"$work/log" 2>&1 || true
  t1=$(now)
  local execs found
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/log" | awk '{print $2}' || true)
  found=$(ls "$work/a" | grep -c '^crash-' || true)
  if [ "$found" -gt 0 ]; then
    echo "$name $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') ${execs:-0}" >>"$work/ttfc"
  else
    echo "$name inf ${execs:-0}" >>"$work/ttfc"
  fi
}

# ttfc_afl NAME BINARY SEED_FILE [ENV...]: AFL++ until the first crash
ttfc_afl() {
  local name=$1 bin=$2 seedfile=$3
  shift 3
  rm -rf "$work/in" "$work/out" && mkdir -p "$work/in"
  cp "$seedfile" "$work/in/seed"
  local t0 t1
  t0=$(now)
  env AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
    AFL_BENCH_UNTIL_CRASH=1 AFL_NO_AFFINITY=1 "$@" \
    timeout "$limit" afl-fuzz -i "$work/in" -o "$work/out" -m none -s "$seed" -- "$bin" \
    >"$work/log" 2>&1 || true
  t1=$(now)
  local crash execs
  crash=$(ls "$work/out/default/crashes" 2>/dev/null | grep '^id:' | head -n1 || true)
  if [ -n "$crash" ]; then
    execs=$(echo "$crash" | grep -o 'execs:[0-9]*' | cut -d: -f2 || true)
    echo "$name $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') ${execs:-0}" >>"$work/ttfc"
  else
    echo "$name inf 0" >>"$work/ttfc"
  fi
}

"$B/seqfuzz" encode "$api" /dev/null -o "$work/empty.seq.bin"
printf '\000' >"$work/empty.hw.bin"
SF_AFL=(AFL_CUSTOM_MUTATOR_LIBRARY="$B/libseqfuzz-afl.so" AFL_CUSTOM_MUTATOR_ONLY=1
        AFL_DISABLE_TRIM=1 SEQFUZZ_API="$api")

: >"$work/tput"
: >"$work/ttfc"
for seed in $(seq 1 "$seeds"); do
  echo "seed $seed/$seeds..." >&2
  run_tput seqfuzz "$B/kvstore_fixed_fuzzer"
  run_tput handwritten "$B/handwritten_fixed_fuzzer"
  run_tput seqfuzz-no-legality "$B/kvstore_fixed_fuzzer" SEQFUZZ_LEGALITY=0
  run_tput seqfuzz-no-equivalence "$B/kvstore_fixed_fuzzer" SEQFUZZ_EQUIVALENCE=0
  run_tput seqfuzz-max16 "$B/kvstore_fixed_fuzzer" SEQFUZZ_MAX_CALLS=16
  ttfc_lf libfuzzer/seqfuzz "$B/kvstore_fuzzer"
  ttfc_lf libfuzzer/handwritten "$B/handwritten_fuzzer"
  ttfc_lf libfuzzer/seqfuzz-no-legality "$B/kvstore_fuzzer" SEQFUZZ_LEGALITY=0
  ttfc_lf libfuzzer/seqfuzz-no-equivalence "$B/kvstore_fuzzer" SEQFUZZ_EQUIVALENCE=0
  ttfc_lf libfuzzer/seqfuzz-max16 "$B/kvstore_fuzzer" SEQFUZZ_MAX_CALLS=16
  ttfc_afl afl/seqfuzz "$A/kvstore_fuzzer" "$work/empty.seq.bin" "${SF_AFL[@]}"
  ttfc_afl afl/handwritten "$A/handwritten_fuzzer" "$work/empty.hw.bin"
done

echo
echo "== throughput ($seeds seeds x ${tput}s, library bug fixed; medians) =="
printf '%-26s %12s %12s %14s\n' config execs/s calls/exec calls/s
for c in seqfuzz handwritten seqfuzz-no-legality seqfuzz-no-equivalence seqfuzz-max16; do
  e=$(awk -v c="$c" '$1 == c {print $2}' "$work/tput" | median)
  k=$(awk -v c="$c" '$1 == c {print $3}' "$work/tput" | median)
  printf '%-26s %12s %12s %14.0f\n' "$c" "$e" "$k" "$(awk -v e="$e" -v k="$k" 'BEGIN {print e * k}')"
  eval "tput_${c//-/_}=$e; calls_${c//-/_}=$k"
done
awk -v a="$tput_seqfuzz" -v b="$tput_handwritten" -v ka="$calls_seqfuzz" -v kb="$calls_handwritten" \
  'BEGIN {printf "ratio seqfuzz/handwritten: %.2fx executions/s, %.2fx API calls/s\n", a / b, (a * ka) / (b * kb)}'
awk -v a="$tput_seqfuzz_max16" -v b="$tput_handwritten" \
  'BEGIN {printf "ratio seqfuzz-max16/handwritten: %.2fx executions/s\n", a / b}'
echo
echo "== time to first crash ($seeds seeds, limit ${limit}s; medians, inf = not found) =="
printf '%-34s %10s %12s\n' config seconds executions
for c in libfuzzer/seqfuzz libfuzzer/handwritten libfuzzer/seqfuzz-no-legality \
         libfuzzer/seqfuzz-no-equivalence libfuzzer/seqfuzz-max16 afl/seqfuzz afl/handwritten; do
  t=$(awk -v c="$c" '$1 == c {print $2}' "$work/ttfc" | median)
  x=$(awk -v c="$c" '$1 == c {print $3}' "$work/ttfc" | median)
  printf '%-34s %10s %12s\n' "$c" "$t" "$x"
  key=${c//[\/-]/_}
  eval "t_$key=$t; x_$key=$x"
done
for e in libfuzzer afl; do
  eval "a=\$t_${e}_seqfuzz; b=\$t_${e}_handwritten; xa=\$x_${e}_seqfuzz; xb=\$x_${e}_handwritten"
  awk -v e="$e" -v a="$a" -v b="$b" -v xa="$xa" -v xb="$xb" 'BEGIN {
    printf "%s: seqfuzz finds it %.1fx faster (wall clock), with %.1fx fewer executions\n", e, b / a, xb / (xa > 0 ? xa : 1)}'
done
awk -v a="$x_libfuzzer_seqfuzz_max16" -v b="$x_libfuzzer_seqfuzz" -v ta="$t_libfuzzer_seqfuzz_max16" \
  -v tb="$t_libfuzzer_seqfuzz" 'BEGIN {
  printf "libfuzzer: seqfuzz-max16 needs %.1fx the executions of seqfuzz (%.1fx the time)\n", a / (b > 0 ? b : 1), ta / tb}'
echo
echo "raw measurements:"
sed 's/^/  tput /' "$work/tput"
sed 's/^/  ttfc /' "$work/ttfc"
