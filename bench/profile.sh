#!/usr/bin/env bash
# Where each bundled real target's fuzzing time goes (issue 20: what seqfuzz
# itself adds, at most 20% of the CPU time), and its executions per second
# next to the library's own harness.
#
#   bench/profile.sh [--seconds S] [--own-seconds S] [--freq HZ] [--known DIR] [--in-process]
#                    [--core N] [--no-build] [LIB...]
#   (30 s at 199 samples a second; cjson zlib sqlite3 libyaml pcre2)
#
# --in-process: one libFuzzer process for the whole run, as OSS-Fuzz runs a
# fuzzer, instead of fork mode's jobs (each of which meets its corpus
# anew: probes, the solver's learning, the engine's start); best with
# --known: a crash ends the process, and the fuzzer starts again from its
# corpus (the table's last column says when).
# --core N: the core both fuzzers run on (0; two profiles side by side on
# two cores, the targets built beforehand: --no-build).
# --own-seconds S: how long the library's own harness runs for its
# executions per second (as long as seqfuzz's run unless told; its rate
# settles within a minute).
# --corpus DIR: start from DIR's files instead of the seed corpus (a
# restart on a grown corpus, as after a crash or a new day's run).
# --env VAR=VAL: run seqfuzz's fuzzer with VAR set (a variant side by side
# with the default on another core).
# --freq HZ: perf's sampling rate; a long run at a lower one keeps perf's
# data (DWARF stacks, 32 KiB a sample) within a few GB.
#
# --known DIR: the campaign sets aside the known bugs whose patterns are in
# DIR/LIB/ (SEQFUZZ_KNOWN, as `seqfuzz fuzz` does; scripts/learn-known.sh
# makes them from crash files): without, a library with a shallow bug ends a
# fork-mode job every second or so, and each new job probes its corpus anew.
#
# Each target is built as OSS-Fuzz would (scripts/build-target.sh LIB). Its
# seqfuzz fuzzer fuzzes from its seed corpus for S seconds as
# bench/coverage.sh runs it (fork mode, crashes ignored, one core) under perf
# with DWARF call graphs, children included (the jobs, the solver's server).
# A sample goes to the innermost frame that is neither the sanitizers'
# runtime, libc nor the kernel, by the source file of its function:
#   library  the target library's code
#   libffi   libffi (the calls themselves)
#   engine   libFuzzer
#   seqfuzz  seqfuzz: decoding, the executor's bookkeeping, mocks, the
#            mutator, the solver
# ("files": a file created or removed where the stack cannot be followed
# past libc, libFuzzer's corpus files mostly and seqfuzz's probe guard;
# "other": no frame of these, as the kernel's page faults)
# except that a sample under a probe (probe_run), the solver or the stateful
# stage counts as seqfuzz's whatever its frame: those runs are seqfuzz's
# own work, not the engine's. So does every sample of a solver server, told
# by its process (perf cannot always unwind a deep stack through libffi's
# call to the loop it serves in). libFuzzer's comparison callbacks, which
# nm gives no source file, are the engine's. A second table splits the
# seqfuzz column: probes, the solver, the stateful stage, the mutator (the
# rest under the custom mutator's entry points), and by the innermost frame
# the executor or the comparison wrappers (cmp-trace, harness/cmp_trace.c).
# The library's own harness then fuzzes the same
# time from its own seeds (no perf), for executions per second side by side;
# seqfuzz's API calls per second are its executions times the mean length
# its statistics report.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=30 own_secs="" freq=199 known="" fork=1 core=0 build=1 start_corpus="" extra_env=()
while [ $# -gt 0 ]; do
  case "$1" in
  --seconds) secs=$2; shift 2 ;;
  --own-seconds) own_secs=$2; shift 2 ;;
  --freq) freq=$2; shift 2 ;;
  --in-process) fork=0; shift ;;
  --core) core=$2; shift 2 ;;
  --no-build) build=0; shift ;;
  --known) known=$(cd "$2" && pwd); shift 2 ;;
  --corpus) start_corpus=$(cd "$2" && pwd); shift 2 ;;
  --env) extra_env+=("$2"); shift 2 ;;
  *) break ;;
  esac
done
libs=("$@")
[ ${#libs[@]} -gt 0 ] || libs=(cjson zlib sqlite3 libyaml pcre2)
work=$(mktemp -d)
# PROFILE_KEEP=1 keeps each library's perf.data, logs and corpus.
if [ "${PROFILE_KEEP:-0}" = 1 ]; then echo "runs in $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

# fuzz BIN CORPUS_ZIP DICT DIR KNOWN: S seconds as bench/coverage.sh fuzzes,
# the log in DIR/log; KNOWN: SEQFUZZ_KNOWN's directory or "". In one
# process, a crash ends the run: the fuzzer starts again from the corpus it
# has grown, as ClusterFuzz restarts a fuzzer after a crash, until S seconds
# have passed (DIR/ends: the second of each crash; DIR/execs: each process's
# executions).
fuzz() {
  mkdir -p "$4/corpus" "$4/crashes" "$4/stats"
  if [ -n "$start_corpus" ]; then
    cp "$start_corpus"/* "$4/corpus/"
  else
    unzip -q -o "$2" -d "$4/corpus" 2>/dev/null || true
  fi
  local mode=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  [ "$fork" = 1 ] || mode=(-print_final_stats=1)
  local start=$SECONDS left=$secs
  : >"$4/log"
  : >"$4/ends"
  : >"$4/execs"
  while [ "$left" -gt 0 ]; do
    env ${extra_env[@]+"${extra_env[@]}"} SEQFUZZ_STATS=5 SEQFUZZ_STATS_DIR=$4/stats SEQFUZZ_KNOWN=$5 taskset -c "$core" "$1" -max_total_time="$left" -seed=1 \
      "${mode[@]}" -timeout=25 -rss_limit_mb=2560 \
      -artifact_prefix="$4/crashes/" $([ -f "$3" ] && echo "-dict=$3") "$4/corpus" >"$4/log.1" 2>&1 || true
    cat "$4/log.1" >>"$4/log"
    { grep -o 'stat::number_of_executed_units: [0-9]*' "$4/log.1" || true; } | awk '{print $2}' >>"$4/execs"
    [ "$fork" = 0 ] && grep -q 'Test unit written to' "$4/log.1" || break
    echo $((SECONDS - start)) >>"$4/ends"
    left=$((secs - (SECONDS - start)))
  done
  rm -f "$4/log.1"
  echo $((SECONDS - start)) >"$4/seconds"
}

# execs_per_s DIR: executions a second; in fork mode the parent's last
# exec/s, in one process all the processes' executions over the run's time.
execs_per_s() {
  if [ "$fork" = 1 ]; then
    { grep -o 'exec/s:\? [0-9]*' "$1/log" || true; } | tail -1 | awk '{print $2 + 0}'
  else
    awk -v t="$(cat "$1/seconds")" '{n += $1} END {print (t > 0 ? int(n / t) : 0)}' "$1/execs"
  fi
}

echo "# bench/profile.sh --seconds $secs --freq $freq${known:+ --known $known}$([ "$fork" = 1 ] || echo " --in-process")${start_corpus:+ --corpus $start_corpus}${extra_env[*]+ --env ${extra_env[*]}} ($(date -u +%F), $(nproc) cores, $(git -C "$root" rev-parse --short HEAD))"
printf '%-8s | %7s | %7s | %6s | %6s | %7s | %6s | %6s | %11s | %9s | %s\n' lib samples library libffi \
  engine seqfuzz files other "seqfuzz x/s" "calls/s" "own harness x/s"
splits=()
# crash_times ENDS WHO: " (WHO crashed at 12,80 s, restarted)", or nothing.
crash_times() {
  [ -s "$1" ] || return 0
  if [ "$(wc -l <"$1")" -le 10 ]; then
    printf ' (%s crashed at %s s, restarted)' "$2" "$(paste -sd, "$1")"
  else
    printf ' (%s crashed %s times from %s s, restarted)' "$2" "$(wc -l <"$1")" "$(head -1 "$1")"
  fi
}
for lib in "${libs[@]}"; do
  [ "$build" = 0 ] || "$root/scripts/build-target.sh" "$lib" >"$work/$lib.build.log" 2>&1 ||
    { tail -5 "$work/$lib.build.log"; exit 1; }
  bindir=$root/build/targets/$lib/libfuzzer
  bin=$bindir/${lib}_seqfuzz
  d=$work/$lib
  mkdir -p "$d"
  lib_known=""
  [ -n "$known" ] && [ -d "$known/$lib" ] && lib_known=$known/$lib
  perf record -q -F "$freq" --call-graph dwarf,32768 -o "$d/perf.data" -- \
    bash -c "$(declare -f fuzz); secs=$secs fork=$fork core=$core; $(declare -p start_corpus extra_env); fuzz '$bin' '$bindir/${lib}_seqfuzz_seed_corpus.zip' '$bindir/${lib}_seqfuzz.dict' '$d' '$lib_known'" \
    2>/dev/null
  # Function -> category, by the source file nm -l gives each symbol.
  nm -l --defined-only "$bin" 2>/dev/null | awk -v root="$root" '
    NF >= 4 { f = $NF; sub(/:[0-9]+$/, "", f); c = "";
              if (f ~ /cmp_trace\.c$/) c = "seqfuzz/cmp-trace";
              else if (f ~ "^" root "/mutator/") c = "seqfuzz/mutator";
              else if (f ~ "^" root "/solver/") c = "seqfuzz/solver";
              else if (f ~ "^" root "/(harness|sequence|grammar|contracts|base|simplifier)/" ||
                  f ~ /embedded\.c$/) c = "seqfuzz/executor";
              else if (f ~ /compiler-rt\/lib\/fuzzer|\/fuzzer\/Fuzzer/) c = "engine";
              else if (f ~ /compiler-rt|sanitizer/) c = "skip";
              else if (f ~ "^" root "/(build/targets|seeds)/") c = "library"; # and its glue
              if (c != "") print $3, c }' >"$d/map"
  perf script -i "$d/perf.data" -F pid,ip,sym,dso >"$d/script" 2>/dev/null
  # The solver servers: the processes any of whose samples is in the server
  # loop (a deep stack in the library may not reach it).
  awk 'NF == 1 && $1 ~ /^[0-9]+$/ { pid = $1 } $2 ~ /^(sf_solver_serve|serve_observe)$/ { print pid }' \
    "$d/script" | sort -u >"$d/servers"
  awk -v lib="$lib" -v map="$d/map" -v split_file="$d/split" -v servers="$d/servers" '
    BEGIN { while ((getline l < map) > 0) { split(l, a, " "); cat[a[1]] = a[2] }
            while ((getline l < servers) > 0) server[l] = 1 }
    function classify(sym, dso) {
      # libffi: its shared library, or its static archive (no source files):
      # ffi_call and the argument classification it calls.
      if (dso ~ /libffi/ || sym ~ /^(ffi_|examine_argument$|classify_argument$)/) return "libffi";
      if (dso ~ /libz3/) return "seqfuzz/solver";
      # The engine: its own code, and the coverage and comparison callbacks
      # (libFuzzer defines them; nm gives them no source file).
      if (sym ~ /^(fuzzer::|__sanitizer_cov_)/) return "engine";
      if (sym in cat) return cat[sym] == "skip" ? "" : cat[sym];
      return "";
    }
    # A sample belongs to seqfuzz by the run it is part of (a probe, the
    # solver, the stateful stage; else the mutator) or else by its innermost
    # frame; part says which piece of seqfuzz.
    function flush() {
      if (!nf) return;
      n++;
      c = part = "";
      if (pid in server) part = "solver";
      for (i = 1; i <= nf && part == ""; i++) {
        if (fs[i] ~ /^probe_run/) part = "probes";
        else if (fs[i] ~ /^(sf_solver|serve)/) part = "solver";
        else if (fs[i] ~ /^sf_mut_stateful_stage/) part = "stateful";
      }
      for (i = 1; i <= nf && part == ""; i++)
        if (fs[i] ~ /^(LLVMFuzzerCustomMutator|LLVMFuzzerCustomCrossOver)$/) part = "mutator";
      if (part != "") c = "seqfuzz";
      for (i = 1; i <= nf && c == ""; i++) c = classify(fs[i], ds[i]);
      for (i = 1; i <= nf && c == ""; i++) if (fs[i] ~ /^(do_sys_openat2|do_unlinkat|ext4_)/) c = "files";
      if (c == "") c = "other";
      if (c ~ /^seqfuzz\//) { if (part == "") part = substr(c, 9); c = "seqfuzz" }
      if (c == "seqfuzz") parts[part]++;
      k[c]++;
      nf = 0;
    }
    /^$/ { flush(); next }
    NF == 1 && $1 ~ /^[0-9]+$/ { pid = $1; next }
    { sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym); nf++; fs[nf] = sym; ds[nf] = $NF }
    END { flush();
          printf "%-8s | %7d | %6.1f%% | %5.1f%% | %5.1f%% | %6.1f%% | %5.1f%% | %5.1f%% |", lib, n,
                 100 * k["library"] / n, 100 * k["libffi"] / n, 100 * k["engine"] / n,
                 100 * k["seqfuzz"] / n, 100 * k["files"] / n, 100 * k["other"] / n
          split("probes solver stateful mutator executor cmp-trace", order, " ")
          printf "%-8s | %7s |", lib, "seqfuzz:" > split_file
          for (j = 1; j <= 6; j++) printf " %s %.1f%%", order[j], 100 * parts[order[j]] / n > split_file
          printf "\n" > split_file }' "$d/script" >"$d/row"
  x=$(execs_per_s "$d")
  # Executions over the jobs' statistics files, times their mean length.
  # (none when a run in one process crashed within its first 5 s)
  len=$({ cat "$d"/stats/stats-*.txt 2>/dev/null || true; } | { grep -o 'mean length [0-9.]*' || true; } |
    awk '{s += $3; n++} END {print n ? s / n : 0}')
  secs=${own_secs:-$secs} start_corpus="" fuzz "$bindir/${lib}_own" "$bindir/${lib}_own_seed_corpus.zip" "$bindir/${lib}_own.dict" "$d/own" ""
  # In one process, say whose runs crashed and when (restarted each time).
  ended=""
  if [ "$fork" = 0 ]; then
    ended+=$(crash_times "$d/ends" seqfuzz)$(crash_times "$d/own/ends" "own harness")
  fi
  printf '%s %11s | %9.0f | %s%s\n' "$(cat "$d/row")" "$x" "$(awk -v x="$x" -v l="$len" 'BEGIN {print x * l}')" \
    "$(execs_per_s "$d/own")" "$ended"
  splits+=("$(cat "$d/split")")
done
# The seqfuzz column split by what the time was for: runs of probes, of the
# solver and of the stateful stage (library code included), the mutator, and
# else by the innermost seqfuzz frame: the executor (decoding, calls'
# bookkeeping, mocks, cleanup) or the comparison tracing's wrappers.
echo
printf '%s\n' "${splits[@]}"
