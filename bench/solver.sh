#!/usr/bin/env bash
# The solver benchmark (bench/solver/README.md): how many of the 15 guarded
# branches of bench/solver/guards.c each configuration flips, and how fast,
# from nothing, in S seconds:
#   seqfuzz+solver   guards_fuzzer (libFuzzer), SEQFUZZ_SOLVER=1
#   seqfuzz          guards_fuzzer (libFuzzer), SEQFUZZ_SOLVER=0 (as before the solver)
#   lf-hw+vp         guards_handwritten_fuzzer, libFuzzer -use_value_profile=1
#   afl-hw+cmplog    the hand-written harness under AFL++ with CmpLog (-c, -l 2AT)
# For each seed the four run two at a time, each pinned to a core (taskset),
# seqfuzz+solver next to seqfuzz, then the two baselines; libFuzzer runs start
# from an empty corpus, AFL++ from one 8-byte zero input. Each run logs the
# first time it reaches each guard (GUARDS_LOG, times since GUARDS_T0_MS, set
# just before the run starts, so start-up counts).
#
#   bench/solver.sh [--seconds S] [--seeds N] [--keep]
#
# Prints the table and saves it as build/bench/solver-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=60
seeds=3
keep=0
while [ $# -gt 0 ]; do
  case $1 in
  --seconds) secs=$2; shift 2 ;;
  --seeds) seeds=$2; shift 2 ;;
  --keep) keep=1; shift ;;
  -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: $0 [--seconds S] [--seeds N] [--keep]" >&2; exit 2 ;;
  esac
done
case $secs$seeds in *[!0-9]*) echo "--seconds and --seeds take positive integers" >&2; exit 2 ;; esac
[ "$secs" -gt 0 ] && [ "$seeds" -gt 0 ] || { echo "--seconds and --seeds must be > 0" >&2; exit 2; }

B=$root/build
O=$B/bench/solver
src=$root/bench/solver
ncpu=$(nproc)
cpu_a=0
cpu_b=$((ncpu > 1 ? 1 : 0))

# --- build ------------------------------------------------------------------
if [ ! -f "$B/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$B" -j"$ncpu" --target guards_fuzzer guards_handwritten_fuzzer >/dev/null
command -v afl-fuzz >/dev/null && command -v afl-clang-fast >/dev/null ||
  { echo "AFL++ is not installed (afl-fuzz, afl-clang-fast): scripts/build-afl.sh installs it" >&2; exit 1; }
driver=""
for d in /usr/lib/afl/libAFLDriver.a /usr/local/lib/afl/libAFLDriver.a; do
  [ -f "$d" ] && { driver=$d; break; }
done
[ -n "$driver" ] || { echo "libAFLDriver.a not found" >&2; exit 1; }
mkdir -p "$O"
# The hand-written harness for AFL++, with the libFuzzer build's sanitizers,
# and its CmpLog twin (AFL_LLVM_CMPLOG=1) for afl-fuzz -c.
afl_cc() { # afl_cc OUT [ENV...]
  local out=$1
  shift
  env AFL_QUIET=1 "$@" afl-clang-fast -O2 -g -fsanitize=address,undefined -I"$src" \
    "$src/guards.c" "$src/guards_handwritten.c" "$driver" -o "$out"
}
afl_cc "$O/guards_handwritten_afl"
afl_cc "$O/guards_handwritten_afl_cmplog" AFL_LLVM_CMPLOG=1

work=$(mktemp -d)
if [ "$keep" = 1 ]; then echo "run directories kept in $work" >&2; else trap 'rm -rf "$work"' EXIT; fi
: >"$work/times"  # config seed guard ms
: >"$work/execs"  # config seed executions

now_ms() { date +%s%3N; }

# finish NAME SEED DIR EXECS: collect a run's first-reach times
finish() {
  local name=$1 seed=$2 dir=$3 execs=$4
  if [ -s "$dir/guards.log" ]; then
    awk -v c="$name" -v s="$seed" 'NF == 2 && (!($1 in t) || $2 < t[$1]) {t[$1] = $2}
      END {for (g in t) print c, s, g, t[g]}' "$dir/guards.log" >>"$work/times"
  fi
  echo "$name $seed ${execs:-0}" >>"$work/execs"
  if [ -z "$execs" ] || [ "$execs" = 0 ]; then
    echo "warning: $name (seed $seed) made no executions; the end of its log:" >&2
    tail -n 5 "$dir/log" >&2
  fi
}

# run_lf NAME SEED CPU BINARY [VAR=VALUE...] [-flag...]: libFuzzer, empty corpus
run_lf() {
  local name=$1 seed=$2 cpu=$3 bin=$4
  shift 4
  local envs=() args=() a
  for a in "$@"; do
    case $a in -*) args+=("$a") ;; *) envs+=("$a") ;; esac
  done
  local dir=$work/$name.$seed
  mkdir -p "$dir/corpus"
  : >"$dir/guards.log"
  env "${envs[@]}" GUARDS_LOG="$dir/guards.log" GUARDS_T0_MS="$(now_ms)" \
    taskset -c "$cpu" "$bin" "$dir/corpus" -seed="$seed" -max_total_time="$secs" \
    -print_final_stats=1 -artifact_prefix="$dir/" "${args[@]}" >"$dir/log" 2>&1 || true
  finish "$name" "$seed" "$dir" \
    "$(grep -o 'stat::number_of_executed_units: [0-9]*' "$dir/log" | awk '{print $2}' || true)"
}

# run_afl NAME SEED CPU: AFL++ with CmpLog on the hand-written harness
run_afl() {
  local name=$1 seed=$2 cpu=$3
  local dir=$work/$name.$seed
  mkdir -p "$dir/in"
  : >"$dir/guards.log"
  printf '\0\0\0\0\0\0\0\0' >"$dir/in/seed"
  env AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
    AFL_SKIP_CRASHES=1 GUARDS_LOG="$dir/guards.log" GUARDS_T0_MS="$(now_ms)" \
    taskset -c "$cpu" timeout -k 5 $((secs + 30)) \
    afl-fuzz -i "$dir/in" -o "$dir/out" -m none -s "$seed" -V "$secs" \
    -c "$O/guards_handwritten_afl_cmplog" -l 2AT -- "$O/guards_handwritten_afl" \
    >"$dir/log" 2>&1 || true
  finish "$name" "$seed" "$dir" \
    "$(awk -F: '$1 ~ /^execs_done/ {gsub(/ /, "", $2); print $2}' "$dir/out/default/fuzzer_stats" 2>/dev/null || true)"
}

configs="seqfuzz+solver seqfuzz lf-hw+vp afl-hw+cmplog"
started=$(date '+%Y-%m-%d %H:%M:%S')
for seed in $(seq 1 "$seeds"); do
  echo "seed $seed/$seeds: seqfuzz+solver | seqfuzz (${secs}s)..." >&2
  run_lf seqfuzz+solver "$seed" "$cpu_a" "$O/guards_fuzzer" SEQFUZZ_SOLVER=1 &
  run_lf seqfuzz "$seed" "$cpu_b" "$O/guards_fuzzer" SEQFUZZ_SOLVER=0 &
  wait
  echo "seed $seed/$seeds: lf-hw+vp | afl-hw+cmplog (${secs}s)..." >&2
  run_lf lf-hw+vp "$seed" "$cpu_a" "$O/guards_handwritten_fuzzer" -use_value_profile=1 &
  run_afl afl-hw+cmplog "$seed" "$cpu_b" &
  wait
done

# --- table --------------------------------------------------------------------
guards='1;affine u32;13x + 5 == 0x9e3779b1
2;affine u64;x * 0x100000001b3 + 0x2545f491 == 0xd6e8feb86659fd93
3;affine i32;(i64)x * -7 + 100 == 691358124
4;linear 3 args;3a - 7b + 13c == 0x1337c0de (u32)
5;linear system;a + b == 1000003 && a - b == 77 (i32)
6;linear i64;5a - 3b == -123456789012345
7;shift+mask;((x >> 8) & 0xfffff) == 0xabcde
8;two masks;x & 0xff00ff00 == 0x12003400 && x & 0x00ff00ff == 0x00560078
9;shift u64;x >> 36 == 0xfeedfac
10;pack 2 args;(hi & 0xffff) << 16 | (lo & 0xffff) == 0xdeadbeef
11;byte sum;len >= 4 && sum(buf) mod 2^16 == 6000 (len <= 32)
12;weighted sum;len >= 4 && h = h*31 + b (u32) == 0x7a3f5c21
13;from argument;x == (seed ^ 0xa5a5a5a5) * 7919
14;from setter;x == (ctx.seed ^ 0x5bd1e995) * 2654435761 (seed: gctx_seed or run-time)
15;run-time global;x - 0x1000 == FNV-1a-64("seqfuzz-guards")'
ng=$(printf '%s\n' "$guards" | wc -l)
mkdir -p "$B/bench"
out=$B/bench/solver-$(date +%Y%m%d-%H%M%S).txt
{
  echo "== bench/solver.sh: $seeds seed(s) x ${secs}s per configuration, started $started =="
  echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)'), $ncpu cores, 2 runs at a time"
  echo
  printf '%s\n' "$guards" | awk -F';' -v configs="$configs" -v seeds="$seeds" -v ng="$ng" \
    -v times="$work/times" -v execs="$work/execs" '
    function median(list,   n, v, i, j, x) { # space-separated numbers
      n = split(list, v, " ")
      if (n == 0) return "nan"
      for (i = 2; i <= n; i++) { x = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
      return n % 2 ? v[(n + 1) / 2] + 0 : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    BEGIN {
      INF = 1e18
      nc = split(configs, cfg, " ")
      while ((getline line < times) > 0) { split(line, f, " "); t[f[1], f[2], f[3]] = f[4]; flips[f[1], f[2]]++ }
      while ((getline line < execs) > 0) { split(line, f, " "); ex[f[1]] = ex[f[1]] " " f[3] }
    }
    { id[NR] = $1; kind[NR] = $2; cond[NR] = $3 }
    END {
      for (c = 1; c <= nc; c++) {
        k = cfg[c]; fl = ""
        for (s = 1; s <= seeds; s++) fl = fl " " (flips[k, s] + 0)
        nflip[k] = median(fl); tl = ""
        for (g = 1; g <= ng; g++) {
          l = ""; hit = 0
          for (s = 1; s <= seeds; s++) {
            if ((k, s, id[g]) in t) { l = l " " t[k, s, id[g]] / 1000; hit++ } else l = l " " INF
          }
          m = median(l); cnt[k, g] = hit
          cell[k, g] = m >= INF ? "-" : sprintf("%.2f", m)
          if (m < INF) tl = tl " " m
        }
        mt[k] = tl == "" ? "-" : sprintf("%.2f s", median(tl))
      }
      printf "%-16s %10s %7s %16s %14s\n", "config", "flipped", "share", "median t/branch", "executions"
      for (c = 1; c <= nc; c++) {
        k = cfg[c]
        printf "%-16s %10s %6.0f%% %16s %14.0f\n", k, nflip[k] "/" ng, 100 * nflip[k] / ng, mt[k], median(ex[k])
      }
      print ""
      print "flipped: median over seeds of the guards reached; median t/branch: median, over the"
      print "guards flipped in the majority of seeds, of their median time to flip (s, from start)."
      print ""
      printf "time to flip per guard (s, median over seeds; - = not flipped in the majority of seeds%s):\n",
        (seeds > 1 ? "; [k] = seeds that flipped it" : "")
      printf "%-3s %-15s", "id", "kind"
      for (c = 1; c <= nc; c++) printf " %15s", cfg[c]
      printf "   %s\n", "condition"
      for (g = 1; g <= ng; g++) {
        printf "%-3s %-15s", id[g], kind[g]
        for (c = 1; c <= nc; c++) {
          k = cfg[c]; v = cell[k, g]
          if (seeds > 1) v = v " [" cnt[k, g] "]"
          printf " %15s", v
        }
        printf "   %s\n", cond[g]
      }
    }'
  echo
  echo "raw first-reach times (config seed guard ms):"
  sort -k1,1 -k2,2n -k3,3n "$work/times" | sed 's/^/  /'
  echo "raw executions (config seed executions):"
  sed 's/^/  /' "$work/execs"
} | tee "$out"
echo "saved in $out" >&2
