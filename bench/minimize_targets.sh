#!/usr/bin/env bash
# Crash minimization on the real-library targets: seqfuzz min vs libFuzzer's
# -minimize_crash=1 vs afl-tmin (the target's AFL++ build), on the same
# crashing inputs, next to the smallest known reproducer of the same bug
# (seeds/LIB/bugs/*.seq, written and minimized by hand).
#
#   bench/minimize_targets.sh [--per-lib N] [LIB...]
#
# Crashing inputs: the first N distinct signatures among the crashes that
# bench/coverage.sh's seqfuzz runs saved (build/bench/coverage/LIB/seqfuzz-*.crashes),
# or, when there are none, a fresh 120 s libFuzzer run; before them, the
# crashing inputs written as text in bench/crashes/LIB/. Each minimizer gets
# the same input; "same" says whether its result crashes with the original
# signature (seqfuzz signature: bug kind + top frames in the library).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
per=3
libs=()
while [ $# -gt 0 ]; do
  case "$1" in
  --per-lib) per=$2; shift 2 ;;
  *) libs+=("$1"); shift ;;
  esac
done
[ ${#libs[@]} -gt 0 ] || libs=(cjson zlib sqlite3 pcre2 libyaml)
SF=$root/build/targets/tools/seqfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
printf '%-8s %-5s %-22s %6s %7s %7s %8s %-5s %s\n' library input method calls bytes runs seconds same signature
for lib in "${libs[@]}"; do
  for mode in libfuzzer afl; do
    [ -x "$root/build/targets/$lib/$mode/${lib}_seqfuzz" ] ||
      "$root/scripts/build-target.sh" "$lib" $mode >"$work/build.log" 2>&1 ||
      { tail -20 "$work/build.log"; exit 1; }
  done
  bin=$root/build/targets/$lib/libfuzzer/${lib}_seqfuzz
  afl=$root/build/targets/$lib/afl/${lib}_seqfuzz
  api=$root/build/targets/$lib/libfuzzer/${lib}_seqfuzz.api
  calls() { "$SF" show "$api" "$1" 2>/dev/null | grep -c ';' || true; }
  # A known hang (zlib's gzbuffer bug) must end: libFuzzer's timeout makes it a signature.
  sig_of() { "$1" -timeout=10 "$2" >"$work/sig.log" 2>&1 && { echo none; return; }; "$SF" signature "$work/sig.log"; }
  # Known reproducers by signature.
  declare -A known=()
  for bug in "$root/seeds/$lib/bugs/"*.seq; do
    [ -e "$bug" ] || continue
    "$SF" encode "$api" "$bug" -o "$work/known" >/dev/null 2>&1 || continue
    s=$(sig_of "$bin" "$work/known")
    known[$s]="$(calls "$work/known") calls, $(wc -c <"$work/known") bytes ($(basename "$bug"))"
  done
  # Crashing inputs, one per signature.
  pool=$(ls -d "$root"/build/bench/coverage/"$lib"/seqfuzz-*.crashes 2>/dev/null || true)
  if [ -z "$pool" ] || [ -z "$(find $pool -name 'crash-*' 2>/dev/null | head -1)" ]; then
    mkdir -p "$work/$lib/c" "$work/$lib/a"
    "$bin" "$work/$lib/c" -max_total_time=120 -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -timeout=10 -seed=1 \
      -artifact_prefix="$work/$lib/a/" >/dev/null 2>&1 || true
    pool=$work/$lib/a
  fi
  # Crashes written as text (bench/crashes/LIB/*.seq) come first.
  mkdir -p "$work/$lib/written"
  for f in "$root/bench/crashes/$lib/"*.seq; do
    [ -e "$f" ] || continue
    "$SF" encode "$api" "$f" -o "$work/$lib/written/crash-$(basename "$f" .seq)" >/dev/null
  done
  declare -A seen=()
  k=0
  for crash in $(find "$work/$lib/written" -name 'crash-*') \
    $(find $pool -name 'crash-*' -size -64k 2>/dev/null | sort | head -400); do
    [ "$k" -lt "$per" ] || break
    want=$(sig_of "$bin" "$crash")
    [ "$want" != none ] && [ -z "${seen[$want]:-}" ] || continue
    seen[$want]=1
    k=$((k + 1))
    d=$work/$lib/$k && mkdir -p "$d"
    cp "$crash" "$d/orig"
    short=$(echo "$want" | cut -c1-60)
    printf '%-8s %-5s %-22s %6s %7s %7s %8s %-5s %s\n' "$lib" "#$k" original "$(calls "$d/orig")" \
      "$(wc -c <"$d/orig")" - - - "$short"
    [ -n "${known[$want]:-}" ] && printf '%-8s %-5s %-22s %s\n' "$lib" "#$k" "known reproducer" "${known[$want]}"
    same() { [ "$(sig_of "$bin" "$1")" = "$want" ] && echo yes || echo no; }
    t0=$(now)
    "$SF" min "$api" "$d/orig" --target "$bin" -o "$d/sf.min" >/dev/null 2>"$d/sf.log" || true
    t1=$(now)
    runs=$(grep -o '[0-9]* runs' "$d/sf.log" | tail -n1 | awk '{print $1}' || true)
    [ -f "$d/sf.min" ] && printf '%-8s %-5s %-22s %6s %7s %7s %8.1f %-5s\n' "$lib" "#$k" "seqfuzz min" \
      "$(calls "$d/sf.min")" "$(wc -c <"$d/sf.min")" "${runs:-?}" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$(same "$d/sf.min")"
    t0=$(now)
    (cd "$d" && "$bin" -minimize_crash=1 -runs=10000 -timeout=10 -seed=1 "$d/orig" >lf.log 2>&1) || true
    t1=$(now)
    best=$(ls -t "$d"/minimized-from-* 2>/dev/null | head -n1 || true)
    [ -n "$best" ] && printf '%-8s %-5s %-22s %6s %7s %7s %8.1f %-5s\n' "$lib" "#$k" "libFuzzer -minimize" \
      "$(calls "$best")" "$(wc -c <"$best")" 10000 "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" \
      "$(same "$best")"
    t0=$(now)
    (cd "$d" && AFL_SKIP_CPUFREQ=1 timeout 300 afl-tmin -i "$d/orig" -o "$d/tmin" -m none -t 10000 \
      -- "$afl" >"$d/tmin.log" 2>&1) || true
    t1=$(now)
    if [ -f "$d/tmin" ]; then
      runs=$(sed 's/\x1b\[[0-9;]*m//g' "$d/tmin.log" | grep -o 'Number of execs done : [0-9]*' |
        awk '{print $NF}' || true)
      printf '%-8s %-5s %-22s %6s %7s %7s %8.1f %-5s\n' "$lib" "#$k" afl-tmin "$(calls "$d/tmin")" \
        "$(wc -c <"$d/tmin")" "${runs:-?}" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" \
        "$(same "$d/tmin")"
    fi
  done
  unset known seen
done
