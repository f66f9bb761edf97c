#!/usr/bin/env bash
# Fuzz a real-library target for a given time, with the engine's progress
# display and seqfuzz's statistics.
#
#   scripts/fuzz-target.sh LIB SECONDS [--engine libfuzzer|afl] [--fuzzer seqfuzz|own]
#                          [--corpus DIR] [--seed N] [--coverage]
#
# LIB is a name under seeds/ or a target directory (docs/workflow.md; a path
# with a /), whose builds go to LIB/.seqfuzz/ENGINE.
# Builds the target if needed (scripts/build-target.sh). The corpus starts
# from the target's seed corpus and grows in DIR (default
# build/targets/LIB/corpus-FUZZER-ENGINE, LIB/.seqfuzz/corpus-* for a
# directory); crashes go to DIR/../crashes-*/.
# --coverage writes a coverage report of the corpus at the end
# (scripts/coverage-target.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() {
  echo "usage: fuzz-target.sh LIB SECONDS [--engine libfuzzer|afl] [--fuzzer seqfuzz|own]" \
    "[--corpus DIR] [--seed N] [--coverage]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
lib=$1 secs=$2
shift 2
engine=libfuzzer fuzzer=seqfuzz corpus="" seed=1 coverage=0
while [ $# -gt 0 ]; do
  case "$1" in
  --engine) engine=$2; shift 2 ;;
  --fuzzer) fuzzer=$2; shift 2 ;;
  --corpus) corpus=$2; shift 2 ;;
  --seed) seed=$2; shift 2 ;;
  --coverage) coverage=1; shift ;;
  *) usage ;;
  esac
done
arg=$lib base="$root/build/targets/$lib"
if [[ "$lib" == */* || ! -x "$root/seeds/$lib/build.sh" ]] && [ -d "$lib" ]; then
  # A target directory: built (or found up to date) first, for the fuzzer's name.
  arg=$(cd "$lib" && pwd) base="$(cd "$lib" && pwd)/.seqfuzz"
  lib=$(basename "$("$root/scripts/build-target-dir.sh" "$arg" "$base/$engine" "$engine" | tail -n1)" _seqfuzz)
fi
bindir="$base/$engine"
bin="$bindir/${lib}_$fuzzer"
[ -x "$bin" ] || "$root/scripts/build-target.sh" "$arg" "$engine"
[ -n "$corpus" ] || corpus="$base/corpus-$fuzzer-$engine"
crashes="$(dirname "$corpus")/crashes-$(basename "$corpus")"
mkdir -p "$corpus" "$crashes"
if [ -z "$(ls -A "$corpus")" ] && [ -f "$bindir/${lib}_${fuzzer}_seed_corpus.zip" ]; then
  unzip -q -o "$bindir/${lib}_${fuzzer}_seed_corpus.zip" -d "$corpus"
fi
dict=()
[ -f "$bindir/${lib}_$fuzzer.dict" ] && dict=("$bindir/${lib}_$fuzzer.dict")
echo "fuzzing $lib with ${lib}_$fuzzer under $engine for ${secs}s: corpus $corpus, crashes $crashes" >&2

case "$engine" in
libfuzzer)
  SEQFUZZ_STATS=${SEQFUZZ_STATS:-10} "$bin" -max_total_time="$secs" -seed="$seed" -timeout=25 \
    -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$crashes/" \
    ${dict:+-dict="${dict[0]}"} "$corpus" || true
  ;;
afl)
  out="$(dirname "$corpus")/afl-$(basename "$corpus")"
  env=(AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1)
  if [ "$fuzzer" = seqfuzz ]; then
    env+=(AFL_CUSTOM_MUTATOR_LIBRARY="$root/build/targets/tools/libseqfuzz-afl.so"
      AFL_CUSTOM_MUTATOR_ONLY=1 SEQFUZZ_API="$bin.api")
  fi
  [ -t 1 ] || env+=(AFL_NO_UI=1)
  input="$corpus"
  [ -n "$(ls -A "$corpus")" ] || { echo seed >"$corpus/empty"; }
  env "${env[@]}" afl-fuzz -i "$input" -o "$out" -V "$secs" -s "$seed" -t 25000 -m none \
    ${dict:+-x "${dict[0]}"} -- "$bin" || true
  cp -n "$out"/default/queue/id* "$corpus/" 2>/dev/null || true
  cp -n "$out"/default/crashes/id* "$crashes/" 2>/dev/null || true
  ;;
*) usage ;;
esac
n=$(find "$crashes" -type f | wc -l)
echo "corpus: $(find "$corpus" -type f | wc -l) inputs in $corpus; crashes: $n in $crashes" >&2
if [ "$n" -gt 0 ] && [ "$fuzzer" = seqfuzz ]; then
  echo "triage them: build/targets/tools/seqfuzz triage $bindir/${lib}_seqfuzz.api $crashes" \
    "--target $base/libfuzzer/${lib}_seqfuzz" >&2
fi
[ "$coverage" = 0 ] || "$root/scripts/coverage-target.sh" "$arg" --fuzzer "$fuzzer" "$corpus"
