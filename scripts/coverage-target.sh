#!/usr/bin/env bash
# Line and branch coverage of a real library's own source reached by a corpus
# (llvm-cov, source-based), as a text summary and HTML.
#
#   scripts/coverage-target.sh LIB [--fuzzer seqfuzz|own] [-o DIR] CORPUS_DIR...
#
# Runs every input of the corpus directories once through the coverage build
# of LIB's fuzzer (scripts/build-target.sh LIB coverage, built if missing) and
# writes DIR/summary.txt (per file and total) and DIR/html/index.html. The
# harnesses, seqfuzz's glue headers and system headers are not counted. LIB
# may be a target directory (docs/workflow.md; a path with a /, built into
# LIB/.seqfuzz/coverage by its build.sh): its headers (the glue) do not count
# either. The
# last line printed is machine-readable:
#   COVERAGE <lines covered> <lines> <branches covered> <branches>
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: coverage-target.sh LIB [--fuzzer seqfuzz|own] [-o DIR] CORPUS_DIR..." >&2; exit 2; }
[ $# -ge 1 ] || usage
lib=$1; shift
fuzzer=seqfuzz out=""
corpora=()
while [ $# -gt 0 ]; do
  case "$1" in
  --fuzzer) fuzzer=$2; shift 2 ;;
  -o) out=$2; shift 2 ;;
  -*) usage ;;
  *) corpora+=("$1"); shift ;;
  esac
done
[ ${#corpora[@]} -ge 1 ] || usage
arg=$lib base="$root/build/targets/$lib" notlib="|^$root/seeds/"
if [[ "$lib" == */* || ! -x "$root/seeds/$lib/build.sh" ]] && [ -d "$lib" ]; then
  dir=$(cd "$lib" && pwd) base="$(cd "$lib" && pwd)/.seqfuzz" arg=$(cd "$lib" && pwd)
  lib=$(basename "$("$root/scripts/build-target-dir.sh" "$dir" "$base/coverage" coverage | tail -n1)" _seqfuzz)
  # The target directory's headers (its glue) and build outputs are not the
  # library; its C files may be (a library kept beside its grammar).
  notlib="|^$(echo "$dir" | sed 's/[.[\*^$()+?{|]/\\&/g')/(\.seqfuzz/|(.*/)?[^/]*\.h\$)"
fi
bindir="$base/coverage"
bin="$bindir/${lib}_$fuzzer"
[ -x "$bin" ] || "$root/scripts/build-target.sh" "$arg" coverage >&2
[ -n "$out" ] || out="$base/report-$fuzzer"
rm -rf "$out"
mkdir -p "$out/profiles"

# Every input once. A crashing input would end a whole-directory run, so
# then the inputs run one by one. This build has no sanitizer: a heap
# corruption aborts inside malloc, and libFuzzer's handler, printing a
# stack trace, waits forever for malloc's lock (seen on zlib). The signals
# are left to their default action: the process just dies.
export LLVM_PROFILE_FILE="$out/profiles/%p-%m.profraw"
nohandlers="-handle_abrt=0 -handle_segv=0 -handle_bus=0 -handle_ill=0 -handle_fpe=0"
# shellcheck disable=SC2086 # $nohandlers: one flag per word
if ! "$bin" -runs=0 -timeout=25 -rss_limit_mb=4096 $nohandlers "${corpora[@]}" >"$out/run.log" 2>&1; then
  echo "coverage: a whole-corpus run failed (see $out/run.log); running inputs one by one" >&2
  rm -f "$out"/profiles/*
  find "${corpora[@]}" -type f -print0 |
    xargs -0 -n 64 sh -c 'h=$1; shift; "$0" -runs=0 -timeout=25 $h "$@" >/dev/null 2>&1 || for f; do "$0" -timeout=25 $h "$f" >/dev/null 2>&1 || true; done' "$bin" "$nohandlers"
fi
llvm-profdata-14 merge -sparse "$out"/profiles/*.profraw -o "$out/merged.profdata"

# Not the library: harness sources, seqfuzz's embedded table and glue, /usr.
ignore="^/usr/|/embedded\.c\$$notlib"
if [ -f "$bindir/harness-sources.txt" ]; then
  while read -r f; do ignore="$ignore|^$(realpath "$f" | sed 's/[.[\*^$()+?{|]/\\&/g')\$"; done \
    <"$bindir/harness-sources.txt"
fi
llvm-cov-14 report "$bin" -instr-profile="$out/merged.profdata" -ignore-filename-regex="$ignore" \
  >"$out/summary.txt"
llvm-cov-14 show "$bin" -instr-profile="$out/merged.profdata" -ignore-filename-regex="$ignore" \
  -format=html -show-branches=count -output-dir="$out/html" >/dev/null
# TOTAL  regions missed cover  functions missed executed  lines missed cover  branches missed cover
awk -v lib="$lib" -v f="$fuzzer" -v out="$out" '$1 == "TOTAL" {
  printf "%s %s: lines %d/%d (%s), branches %d/%d (%s); report in %s\n", lib, f, $8 - $9, $8, $10,
         $11 - $12, $11, $13, out
  printf "COVERAGE %d %d %d %d\n", $8 - $9, $8, $11 - $12, $11 }' "$out/summary.txt"
