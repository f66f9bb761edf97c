#!/usr/bin/env bash
# Crash minimization on the demo target: seqfuzz min vs libFuzzer's
# -minimize_crash=1 (through the seqfuzz mutator) vs afl-tmin (byte-level,
# on the AFL++ build), on the same crashing inputs: calls and bytes after,
# runs and seconds used. Crashing inputs come from seqfuzz fuzzing runs with
# seeds 1..N. Each is shown next to the smallest known reproducer of the same
# signature (seeds/demo/bugs/*.seq, minimized by hand).
#   bench/minimize.sh [N=5]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-5}
"$root/scripts/build-afl.sh" >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target kvstore_fuzzer seqfuzz >/dev/null
B=$root/build
api=$root/seeds/demo/kvstore.api
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
calls() { "$B/seqfuzz" show "$api" "$1" 2>/dev/null | grep -c ';' || true; }
crashes_same() { # crashes_same FILE: same signature as $want?
  "$B/kvstore_fuzzer" "$1" >"$work/chk.log" 2>&1 && return 1
  [ "$("$B/seqfuzz" signature "$work/chk.log")" = "$want" ]
}
# Known reproducers by signature.
declare -A known=()
for bug in "$root"/seeds/demo/bugs/*.seq; do
  "$B/seqfuzz" encode "$api" "$bug" -o "$work/known" >/dev/null
  "$B/kvstore_fuzzer" "$work/known" >"$work/known.log" 2>&1 || true
  known[$("$B/seqfuzz" signature "$work/known.log")]="$(calls "$work/known") calls, $(wc -c <"$work/known") bytes ($(basename "$bug"))"
done
printf '%-6s %-22s %7s %7s %7s %8s %s\n' input method calls bytes runs seconds same-crash
for seed in $(seq 1 "$n"); do
  d=$work/s$seed && mkdir -p "$d/c" "$d/a"
  "$B/kvstore_fuzzer" "$d/c" -seed="$seed" -artifact_prefix="$d/a/" >/dev/null 2>&1 || true
  crash=$(ls "$d"/a/crash-* 2>/dev/null | head -n1 || true)
  [ -n "$crash" ] || { echo "seed $seed: no crash found"; continue; }
  "$B/kvstore_fuzzer" "$crash" >"$d/orig.log" 2>&1 || true
  want=$("$B/seqfuzz" signature "$d/orig.log")
  printf '%-6s %-22s %7s %7s %7s %8s %s\n' "s$seed" original "$(calls "$crash")" "$(wc -c <"$crash")" - - "$want"
  printf '%-6s %-22s %s\n' "s$seed" "known reproducer" "${known[$want]:-none of this signature}"
  # seqfuzz min
  t0=$(now)
  "$B/seqfuzz" min "$api" "$crash" --target "$B/kvstore_fuzzer" -o "$d/sf.min" >/dev/null 2>"$d/sf.log" || true
  t1=$(now)
  runs=$(grep -o '[0-9]* runs' "$d/sf.log" | tail -n1 | awk '{print $1}' || true)
  same=no; crashes_same "$d/sf.min" && same=yes
  printf '%-6s %-22s %7s %7s %7s %8.2f %s\n' "s$seed" "seqfuzz min" "$(calls "$d/sf.min")" \
    "$(wc -c <"$d/sf.min")" "${runs:-?}" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$same"
  # libFuzzer -minimize_crash=1 (same budget in runs as libFuzzer's default use)
  t0=$(now)
  (cd "$d" && "$B/kvstore_fuzzer" -minimize_crash=1 -runs=10000 -seed=1 "$crash" >lf.log 2>&1) || true
  t1=$(now)
  best=$(grep -o "failed to minimize beyond [^ ]*" "$d/lf.log" | awk '{print $5}' || true)
  [ -n "$best" ] || best=$(ls -t "$d"/minimized-from-* 2>/dev/null | head -n1 || true)
  if [ -n "$best" ]; then
    best=$d/${best#./}
    same=no; crashes_same "$best" && same=yes
    printf '%-6s %-22s %7s %7s %7s %8.2f %s\n' "s$seed" "libFuzzer -minimize" "$(calls "$best")" \
      "$(wc -c <"$best")" "-" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$same"
  fi
  # afl-tmin on the AFL++ build of the same harness
  t0=$(now)
  AFL_SKIP_CPUFREQ=1 afl-tmin -i "$crash" -o "$d/tmin" -m none -- "$root/build-afl/kvstore_fuzzer" >"$d/tmin.log" 2>&1 || true
  t1=$(now)
  if [ -f "$d/tmin" ]; then
    runs=$(sed 's/\x1b\[[0-9;]*m//g' "$d/tmin.log" | grep -o 'Number of execs done : [0-9]*' |
      awk '{print $NF}' || true)
    same=no; crashes_same "$d/tmin" && same=yes
    printf '%-6s %-22s %7s %7s %7s %8.2f %s\n' "s$seed" afl-tmin "$(calls "$d/tmin")" \
      "$(wc -c <"$d/tmin")" "${runs:-?}" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$same"
  fi
done
