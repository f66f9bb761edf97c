#!/usr/bin/env bash
# The oracles under AFL++: the purpose-written libraries of tests/oracles.sh
# (a second implementation that disagrees, an invariant a bug breaks) fuzzed
# by afl-fuzz with the seqfuzz mutator for SECONDS each; every saved crash is
# replayed by the libFuzzer build of the same fuzzer (it must report the same
# oracle finding) and `seqfuzz triage` groups and minimizes them.
#   bench/oracles_afl.sh [SECONDS=90]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-90}
"$root/scripts/build-afl.sh" >/dev/null
cmake --build "$root/build-afl" -j2 --target difflib_fuzzer oraclelib_fuzzer >/dev/null
cmake -S "$root" -B "$root/build" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j2 --target difflib_fuzzer oraclelib_fuzzer seqfuzz seqfuzz-afl >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for case in difflib:'m = da_new();' oraclelib:'s = os_new(4);'; do
  name=${case%%:*} seed=${case#*:}
  api=$root/tests/$name.api
  mkdir -p "$work/$name/in"
  echo "$seed" >"$work/$name/seed.seq"
  "$root/build/seqfuzz" encode "$api" "$work/$name/seed.seq" -o "$work/$name/in/seed"
  (cd "$work/$name" && AFL_CUSTOM_MUTATOR_LIBRARY="$root/build/libseqfuzz-afl.so" \
    AFL_CUSTOM_MUTATOR_ONLY=1 SEQFUZZ_API="$api" AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 \
    AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 timeout $((secs + 30)) afl-fuzz -i in -o out \
    -m none -V "$secs" -- "$root/build-afl/tests/${name}_fuzzer" >afl.log 2>&1) || true
  crashes=$work/$name/out/default/crashes
  n=$(find "$crashes" -name 'id:*' 2>/dev/null | wc -l)
  execs=$(sed -n 's/^execs_done *: *//p' "$work/$name/out/default/fuzzer_stats" 2>/dev/null)
  echo "$name: $secs s, ${execs:-0} executions, $n crashes saved; replayed by the libFuzzer build:"
  for f in "$crashes"/id:*; do
    [ -e "$f" ] || continue
    # The replay exits non-zero on a finding: read its report apart, or
    # pipefail would count every finding as none as well.
    report=$("$root/build/tests/${name}_fuzzer" "$f" 2>&1 || true)
    grep -m1 -o 'ERROR: seqfuzz: [^:]*' <<<"$report" || echo "(no finding)"
  done | sort | uniq -c
  [ "$n" -gt 0 ] && "$root/build/seqfuzz" triage "$api" "$crashes" \
    --target "$root/build/tests/${name}_fuzzer" 2>/dev/null | sed -n '/crash groups/,$p' | head -20
done
