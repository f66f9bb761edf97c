#!/usr/bin/env bash
# The triage benchmark (bench/triage/README.md): small libraries with known
# planted bugs and grammar traps (bench/triage/expect.txt) are fuzzed with
# fixed seeds under libFuzzer, and what comes out is scored:
#  - replay: every saved input (crash-*, leak-*, timeout-*, crash-probe-*,
#    empty ones too) is run again with its fuzzer; it counts as replayed when
#    `seqfuzz signature` of the replay equals that of the report in the log of
#    the fuzzing run that saved it;
#  - triage: `seqfuzz triage` on each run's inputs; each group is mapped to a
#    root cause of expect.txt, and its verdict, its reason, and whether its C
#    reproducer (built with the library's sources and the sanitizers) crashes
#    with the group's signature are checked.
# Then one table, a row per root cause (columns: bench/triage/README.md).
# Always exits 0: the table is the result.
#
#   bench/triage.sh [SEEDS=3] [RUNS=30000]
#
# RUNS bounds the executions per fuzzer and seed; a run that crashes is
# started again on its corpus (next seed) with what is left, RESTARTS starts
# at most. Environment: BUILD (build directory, default build-bench/, configured
# with clang-14 if new), RESTARTS (30), JOBS (fuzzer runs at a time, 2),
# MIN_SECONDS (triage --max-seconds per group, 10), WORK (where runs go,
# default a new /tmp/bench-triage.XXXXXX, kept), SEQFUZZ_SOLVER (0 unless set:
# the planted bugs need no solver, and runs stay closer to deterministic).
set -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
here=$root/bench/triage
seeds=${1:-3}
runs=${2:-30000}
build=${BUILD:-$root/build-bench}
restarts=${RESTARTS:-30}
jobs=${JOBS:-2}
min_seconds=${MIN_SECONDS:-10}
run_seconds=120 # libFuzzer's -max_total_time per run (a bound, never reached by the defaults)
export SEQFUZZ_SOLVER=${SEQFUZZ_SOLVER:-0} SEQFUZZ_STATS=0
cc=${CC_REPRO:-clang-14}
cflags=(-g -O1 -fno-omit-frame-pointer -fno-optimize-sibling-calls "-fsanitize=address,undefined"
  -fno-sanitize-recover=undefined -w)
work=${WORK:-$(mktemp -d /tmp/bench-triage.XXXXXX)}
mkdir -p "$work"
sf=$build/seqfuzz
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%.1f", b - a }'; }
t_start=$(now)

# ---- the fuzzers and the root causes ------------------------------------
declare -A F_API F_SRC C_FUZZ C_VERDICT C_REPORT C_SEQ C_REASON C_GROUPS
fuzzers=() cases=()
cur=
while read -r key rest; do
  case $key in
  '' | '#'*) ;;
  fuzzer)
    read -r name api srcs <<<"$rest"
    fuzzers+=("$name")
    F_API[$name]=$here/$api
    F_SRC[$name]=$(for s in $srcs; do printf '%s ' "$here/$s"; done)
    ;;
  case)
    read -r cur fz verdict <<<"$rest"
    cases+=("$cur")
    C_FUZZ[$cur]=$fz C_VERDICT[$cur]=$verdict C_GROUPS[$cur]=1 C_SEQ[$cur]='' C_REASON[$cur]=.
    ;;
  report) C_REPORT[$cur]=$rest ;;
  seq) C_SEQ[$cur]=$rest ;;
  reason) C_REASON[$cur]=$rest ;;
  groups) C_GROUPS[$cur]=$rest ;;
  *) echo "expect.txt: unknown line '$key $rest'" >&2 ;;
  esac
done <"$here/expect.txt"
for c in "${cases[@]}"; do
  printf '%s\t%s\t%s\t%s\n' "$c" "${C_FUZZ[$c]}" "${C_VERDICT[$c]}" "${C_GROUPS[$c]}"
done >"$work/cases.tsv"
printf '%s\n' "${fuzzers[@]}" >"$work/fuzzers.txt"

# ---- build ----------------------------------------------------------------
echo "bench/triage.sh: $seeds seeds, $runs runs per fuzzer and seed (at most $restarts starts), work in $work"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  echo "code: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- || echo ' + uncommitted changes')"
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1
fi
if ! cmake --build "$build" -j2 --target bench_triage >"$work/build.log" 2>&1; then
  echo "bench/triage.sh: the build failed (last lines of $work/build.log):"
  tail -n 20 "$work/build.log"
  exit 0
fi

# The first of its arguments that exists (a glob's first match).
first() {
  local x
  for x in "$@"; do
    [ -e "$x" ] && { printf '%s\n' "$x"; return; }
  done
}

# The first case of fuzzer $1 whose report regex matches file $2 (and whose
# sequence regex matches file $3, when that is not empty), or "-".
match_case() {
  local f=$1 report=$2 seq=$3 c
  for c in "${cases[@]}"; do
    [ "${C_FUZZ[$c]}" = "$f" ] || continue
    grep -aPzq -- "(?s)${C_REPORT[$c]}" "$report" 2>/dev/null || continue
    if [ -n "${C_SEQ[$c]}" ] && [ -s "$seq" ]; then
      grep -aPq -- "${C_SEQ[$c]}" "$seq" 2>/dev/null || continue
    fi
    echo "$c"
    return
  done
  echo -
}

# The sanitizer's report in a log: from its first line on (a fuzzing log's
# status lines, "#1024 pulse ...", are no stack).
report_of() {
  awk 'f || /ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer|seqfuzz)|runtime error: / { f = 1; print }' \
    "$1" 2>/dev/null
}

# A signature with libFuzzer's name for a signal ("deadly") and ASan's (a
# reproducer's "ABRT", with handle_abort=1) made one.
same_kind() { printf '%s\n' "$1" | sed -E 's/^(deadly|ABRT|Aborted)( |$)/signal\2/'; }

# The signature `seqfuzz signature` gives a log's report.
signature_of() {
  local s
  s=$(report_of "$1" | "$sf" signature /dev/stdin 2>/dev/null) || s="no crash"
  same_kind "${s:-no crash}"
}

# ---- one fuzzer, one seed: fuzz, replay, triage, reproducers ---------------
one_run() {
  local f=$1 seed=$2
  local d=$work/$f/s$seed bin=$build/bench/triage/$f api=${F_API[$f]}
  rm -rf "$d"
  mkdir -p "$d/corpus" "$d/art" "$d/logs" "$d/replay" "$d/repro"
  local left=$runs k=0 rc used execs=0 t0 t1 t2
  t0=$(now)
  while [ "$left" -gt 0 ] && [ "$k" -lt "$restarts" ]; do
    timeout -k 5 $((run_seconds + 60)) "$bin" "$d/corpus" -seed=$((seed + 1000 * k)) -runs="$left" \
      -timeout=10 -max_total_time=$run_seconds -print_final_stats=1 \
      -artifact_prefix="$d/art/r$k-" >"$d/logs/r$k.log" 2>&1
    rc=$?
    used=$(sed -n 's/^stat::number_of_executed_units: *//p' "$d/logs/r$k.log" | tail -n1)
    [[ $used =~ ^[0-9]+$ ]] && [ "$used" -gt 0 ] || used=1
    execs=$((execs + used)) left=$((left - used)) k=$((k + 1))
    [ "$rc" -eq 0 ] && break
  done
  t1=$(now)
  # Replay every input against the report of the run that saved it.
  local a name log orig rep empty replayed c
  : >"$d/artifacts.tsv"
  for a in "$d"/art/*; do
    [ -f "$a" ] || continue
    name=$(basename "$a")
    log=$d/logs/${name%%-*}.log
    report_of "$log" >"$d/replay/$name.orig.txt"
    orig=$(signature_of "$d/replay/$name.orig.txt")
    empty=0
    [ -s "$a" ] || empty=1
    timeout -k 5 60 "$bin" -timeout=10 "$a" >"$d/replay/$name.log" 2>&1
    rep=$(signature_of "$d/replay/$name.log")
    replayed=0
    [ "$orig" != "no crash" ] && [ "$rep" = "$orig" ] && replayed=1
    : >"$d/replay/$name.seq"
    [ "$empty" = 1 ] || "$sf" show "$api" "$a" >"$d/replay/$name.seq" 2>/dev/null
    c=$(match_case "$f" "$d/replay/$name.orig.txt" "$d/replay/$name.seq")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$seed" "$name" "$c" "$empty" "$replayed" \
      "$orig" "$rep" >>"$d/artifacts.tsv"
  done
  # Each fuzzing run that stopped on a crash: did it leave an input that
  # replays? (start, case, replayable, inputs saved)
  local j
  for ((j = 0; j < k; j++)); do
    report_of "$d/logs/r$j.log" >"$d/logs/r$j.report.txt"
    [ -s "$d/logs/r$j.report.txt" ] || continue
    awk -F'\t' -v p="r$j-" -v c="$(match_case "$f" "$d/logs/r$j.report.txt" /dev/null)" '
      index($3, p) == 1 { n++; r += $6; if ($4 != "-") c = $4 }
      END { printf "%s\t%d\t%d\n", c, (r > 0), n }' "$d/artifacts.tsv" 2>/dev/null |
      sed "s/^/$f\t$seed\tr$j\t/" >>"$d/crashes.tsv"
  done
  # Triage every input of the run.
  : >"$d/groups.tsv"
  if [ -n "$(ls -A "$d/art")" ]; then
    timeout -k 5 600 "$sf" triage "$api" "$d/art" --target "$bin" -o "$d/triage" \
      --max-seconds "$min_seconds" >"$d/triage.txt" 2>"$d/triage.err"
    # [N] SIGNATURE / ... / likely bug: REASON  ->  N \t SIGNATURE \t VERDICT \t REASON
    awk '/^\[[0-9]+\] / { if (n) print n "\t" sig "\t" v "\t" r; n = substr($1, 2, length($1) - 2);
                          sig = substr($0, length($1) + 2); v = "none"; r = ""; next }
         n && v == "none" && /^    likely bug: / { v = "bug"; r = substr($0, 17); next }
         n && v == "none" && /^    likely API misuse: / { v = "misuse"; r = substr($0, 24); next }
         END { if (n) print n "\t" sig "\t" v "\t" r }' "$d/triage.txt" >"$d/triage.tsv"
    local n sig verdict reason report seqf src vok rok pok rsig
    while IFS=$'\t' read -r n sig verdict reason; do
      sig=$(same_kind "$sig")
      report=$(first "$d/triage/$n-"*.report.txt)
      seqf=$(first "$d/triage/$n-"*.seq)
      src=$(first "$d/triage/$n-"*.c)
      if [ -z "$report" ]; then
        report=$d/triage/$n.sigline
        printf '%s\n' "$sig" >"$report"
      fi
      c=$(match_case "$f" "$report" "$seqf")
      vok=0 rok=0 pok=0
      if [ "$c" != - ]; then
        [ "$verdict" = "${C_VERDICT[$c]}" ] && vok=1
        [ "$vok" = 1 ] && grep -Piq -- "${C_REASON[$c]}" <<<"$reason" && rok=1
      fi
      # The C reproducer: built with the library's sources, run, same signature?
      rsig="not built"
      # shellcheck disable=SC2086
      if [ -n "$src" ] && "$cc" "${cflags[@]}" -I "$here" "$src" ${F_SRC[$f]} -o "$d/repro/$n" \
        >"$d/repro/$n.build.log" 2>&1; then
        ASAN_OPTIONS=handle_abort=1 timeout -k 5 60 "$d/repro/$n" >"$d/repro/$n.log" 2>&1
        rsig=$(signature_of "$d/repro/$n.log")
        [ "$rsig" = "$sig" ] && pok=1
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$seed" "$n" "$c" "$verdict" "$vok" \
        "$rok" "$pok" "$sig" "$rsig" >>"$d/groups.tsv"
    done <"$d/triage.tsv"
  fi
  t2=$(now)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$seed" "$k" "$execs" "$(since "$t0" "$t1")" \
    "$(since "$t1" "$t2")" >"$d/run.tsv"
}

# Two at a time (JOBS): each run is one process at a time.
for f in "${fuzzers[@]}"; do
  for seed in $(seq 1 "$seeds"); do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    one_run "$f" "$seed" &
  done
done
wait

cat "$work"/*/s*/artifacts.tsv >"$work/artifacts.tsv" 2>/dev/null
cat "$work"/*/s*/groups.tsv >"$work/groups.tsv" 2>/dev/null
cat "$work"/*/s*/run.tsv >"$work/runs.tsv" 2>/dev/null
cat "$work"/*/s*/crashes.tsv >"$work/crashes.tsv" 2>/dev/null

# ---- the table ------------------------------------------------------------
awk -F'\t' -v seeds="$seeds" -v elapsed="$(since "$t_start")" '
function median(list,   a, n, i, j, t) {
  n = split(list, a, " ")
  if (!n) return "-"
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
FILENAME ~ /fuzzers.txt$/ { fuzzer[++nfuzz] = $1; next }
FILENAME ~ /cases.tsv$/ { ncase++; id[ncase] = $1; fz[$1] = $2; want[$1] = $4; next }
FILENAME ~ /artifacts.tsv$/ {
  # fuzzer seed name case empty replayed orig replay
  c = $4 == "-" ? "-" $1 : $4
  arts[c]++; rep[c] += $6; empt[c] += $5; found[c, $2] = 1
  tot_arts++; tot_rep += $6; tot_empty += $5; if ($4 == "-") unk_arts++
  if ($8 != "no crash") member[$1, $2, $8] = member[$1, $2, $8] " " c # triage groups it by this
  next
}
FILENAME ~ /groups.tsv$/ {
  # fuzzer seed n case verdict vok rok pok sig rsig
  c = $4 == "-" ? "-" $1 : $4
  ng[c, $2]++; grp[c]++; vok[c] += $6; rok[c] += $7; pok[c] += $8; triaged[c, $2] = 1
  tot_groups++; tot_v += $6; tot_r += $7; tot_p += $8; if ($4 == "-") unk_groups++
  gsig[$1, $2, $3] = $9
  next
}
FILENAME ~ /crashes.tsv$/ {
  # fuzzer seed start case replayable inputs
  c = $4 == "-" ? "-" $1 : $4
  crashes[c]++; crash_rep[c] += $5; tot_crashes++; tot_crash_rep += $5; found[c, $2] = 1
  next
}
FILENAME ~ /runs.tsv$/ { rs[$1] += $3; ex[$1] += $4; fsec[$1] += $5; tsec[$1] += $6; fl[$1] = 1; next }
END {
  # A group that holds inputs of two root causes merged them (members by signature).
  for (k in gsig) {
    split(k, p, SUBSEP)
    m = member[p[1], p[2], gsig[k]]; split("", seen)
    nd = 0; n = split(m, cs, " ")
    for (i = 1; i <= n; i++) if (!(cs[i] in seen)) { seen[cs[i]] = 1; nd++ }
    if (nd > 1) for (c2 in seen) merged[c2, p[2]] = 1
  }
  fmt = "%-18s %6s %7s %9s %7s %8s %8s %8s %8s %11s\n"
  printf fmt, "case", "found", "triaged", "groups", "merged", "verdict", "reason", "repro", "crashes",
         "inputs"
  printf fmt, "", "seeds", "seeds", "med(want)", "seeds", "right", "right", "same", "replay",
         "replay(0B)"
  for (i = 1; i <= ncase; i++) {
    c = id[i]; nf = 0; nt = 0; nm = 0; list = ""
    for (s = 1; s <= seeds; s++) {
      if ((c, s) in found) { nf++; list = list " " ((c, s) in ng ? ng[c, s] : 0) }
      if ((c, s) in triaged) nt++
      if ((c, s) in merged) nm++
    }
    med = median(list)
    printf fmt, c, nf "/" seeds, nt "/" seeds, med "(" (want[c] ? want[c] : "any") ")", nm "/" seeds,
           (vok[c] + 0) "/" (grp[c] + 0), (rok[c] + 0) "/" (grp[c] + 0), (pok[c] + 0) "/" (grp[c] + 0),
           (crash_rep[c] + 0) "/" (crashes[c] + 0), (rep[c] + 0) "/" (arts[c] + 0) " (" (empt[c] + 0) ")"
  }
  # Groups, crashes and inputs of no root cause, per fuzzer.
  for (c in grp) unknown[c] = 1
  for (c in arts) unknown[c] = 1
  for (c in crashes) unknown[c] = 1
  for (c in unknown) if (c ~ /^-/)
    printf fmt, "unknown:" substr(c, 2), "", "", (grp[c] + 0) " total", "", "", "", (pok[c] + 0) "/" (grp[c] + 0),
           (crash_rep[c] + 0) "/" (crashes[c] + 0), (rep[c] + 0) "/" (arts[c] + 0) " (" (empt[c] + 0) ")"
  # Distinct root causes triage found, per seed, against its groups.
  for (k in ng) { split(k, p, SUBSEP); if (p[1] !~ /^-/) { rcs++; rgs += ng[k] } }
  printf "\ngroups per root cause: %d groups / %d root causes found (summed over seeds) = %.2f; unknown groups %d\n",
         rgs, rcs, rcs ? rgs / rcs : 0, unk_groups
  printf "verdicts right %d/%d, reasons right %d/%d, reproducers with the same signature %d/%d\n",
         tot_v, tot_groups, tot_r, tot_groups, tot_p, tot_groups
  printf "crashes that left an input that replays %d/%d; inputs replayed %d/%d (%d empty); inputs of no known root cause %d\n",
         tot_crash_rep, tot_crashes, tot_rep, tot_arts, tot_empty, unk_arts
  printf "\n%-22s %8s %10s %9s %9s\n", "fuzzer", "starts", "execs", "fuzz s", "triage s"
  for (i = 1; i <= nfuzz; i++) {
    f = fuzzer[i]
    if (f in fl) printf "%-22s %8d %10d %9.1f %9.1f\n", f, rs[f], ex[f], fsec[f], tsec[f]
  }
  printf "total %.0f s\n", elapsed
}' "$work/fuzzers.txt" "$work/cases.tsv" "$work/artifacts.tsv" "$work/groups.tsv" "$work/crashes.tsv" \
  "$work/runs.tsv"
echo "runs, logs, triage outputs: $work"
exit 0
