#!/usr/bin/env bash
# Build the seqfuzz fuzzer of a target directory (docs/workflow.md: one
# NAME.api, and a build.sh or the grammar's `library` and `header` lines),
# or keep the one built before when it is up to date.
#
#   scripts/build-target-dir.sh TARGET OUT [libfuzzer|afl|coverage]
#
# With TARGET/build.sh: it runs as OSS-Fuzz would, with SEQFUZZ_ROOT, OUT,
# WORK, CC, CFLAGS and LIB_FUZZING_ENGINE exported as scripts/build-target.sh
# sets them for the mode. Without one: seeds/common.sh's seqfuzz_fuzzer links
# OUT/NAME_seqfuzz against the `library` lines (relative to TARGET; built with
# the fuzzing flags, so libFuzzer only), with include directories where the
# `header` lines' files are (TARGET or a directory below it); TARGET/seeds/*.seq
# become OUT/NAME_seqfuzz_seed_corpus.zip and NAME.dict OUT/NAME_seqfuzz.dict.
#
# Reuse: OUT/.fuzzer names the fuzzer built last; it is kept while neither the
# .api, build.sh, a library file, a header the grammar names in TARGET, a seed
# nor the dictionary is newer than it. The last line on stdout is the
# fuzzer's path; everything else goes to stderr. Exit 1 on a build error,
# 2 on a usage error or an invalid target directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: build-target-dir.sh TARGET OUT [libfuzzer|afl|coverage]" >&2; exit 2; }
[ $# -ge 2 ] || usage
[ -d "$1" ] || { echo "build-target-dir.sh: $1: not a directory" >&2; exit 2; }
target=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
mode=${3:-libfuzzer}
case "$mode" in libfuzzer | afl | coverage) ;; *) usage ;; esac
shopt -s nullglob
apis=("$target"/*.api)
if [ ${#apis[@]} -ne 1 ]; then
  echo "build-target-dir.sh: $target: ${#apis[@]} .api files (a target directory holds exactly one)" >&2
  exit 2
fi
api=${apis[0]}
name=$(basename "$api" .api)

# The grammar's `header` and `library` strings, comments and other strings
# aside (one per line: KIND TEXT).
grammar_files() {
  perl -0777 -ne 's{"(?:\\.|[^"\\\n])*"|/\*.*?\*/|//[^\n]*|#[^\n]*}{substr($&, 0, 1) eq "\"" ? $& : " "}gse;
    while (/\b(library|header)\s+"((?:\\.|[^"\\])*)"\s*;/g) { print "$1 $2\n" }' "$api"
}
libs=() incs=("$target") deps=("$api")
while read -r kind file; do
  case "$kind" in
  library)
    case "$file" in /*) ;; *) file="$target/$file" ;; esac
    libs+=("$file")
    deps+=("$file")
    ;;
  header)
    # Where `#include "FILE"` finds it: TARGET, or a directory below it.
    case "$file" in /*) continue ;; esac
    if [ -f "$target/$file" ]; then
      deps+=("$target/$file")
      continue
    fi
    found=$(find "$target" -path "$target/.seqfuzz" -prune -o -type f -path "*/$file" -print | head -n1)
    if [ -n "$found" ]; then
      incs+=("${found%/"$file"}")
      deps+=("$found")
    fi
    ;;
  esac
done < <(grammar_files)
[ -f "$target/build.sh" ] && deps+=("$target/build.sh")
deps+=("$target"/seeds/*.seq "$target"/seeds/*.seq.in "$target/$name.dict")
# seqfuzz's own runtime, which the fuzzer links: a newer seqfuzz rebuilds it.
deps+=("$root"/{base,grammar,sequence,harness,mutator,solver}/*.[ch])

if [ -f "$out/.fuzzer" ]; then
  fuzzer=$(cat "$out/.fuzzer")
  fresh=1
  [ -x "$fuzzer" ] || fresh=0
  for f in "${deps[@]}"; do
    if [ "$fresh" = 1 ] && [ -e "$f" ] && [ "$f" -nt "$fuzzer" ]; then fresh=0; fi
  done
  if [ "$fresh" = 1 ]; then
    echo "build-target-dir.sh: $fuzzer is up to date" >&2
    echo "$fuzzer"
    exit 0
  fi
fi

if [ ! -f "$target/build.sh" ]; then
  if [ ${#libs[@]} -eq 0 ]; then
    echo "build-target-dir.sh: $target has no build.sh and $api no \`library\` line: nothing to link" >&2
    exit 2
  fi
  if [ "$mode" != libfuzzer ]; then
    echo "build-target-dir.sh: $target: the $mode build needs a build.sh (the \`library\` lines name" \
      "libraries built for libFuzzer, which $mode cannot use)" >&2
    exit 2
  fi
  for f in "${libs[@]}"; do
    [ -f "$f" ] || { echo "build-target-dir.sh: $api: library $f not found" >&2; exit 2; }
  done
fi

# The engine's compiler and flags, as scripts/build-target.sh sets them.
source "$root/scripts/engine-env.sh"
engine_env "$mode" || { echo "build-target-dir.sh: unknown mode $mode" >&2; exit 2; }
export SEQFUZZ_ROOT="$root" OUT="$out" WORK="$out/work"
mkdir -p "$WORK"
rm -f "$out/.fuzzer" # a failed build leaves nothing that looks up to date

if [ -f "$target/build.sh" ]; then
  (cd "$target" && bash ./build.sh) >&2
  # build.sh names its fuzzer after its TARGET: NAME_seqfuzz, else the one
  # *_seqfuzz executable it wrote.
  fuzzer="$out/${name}_seqfuzz"
  if [ ! -x "$fuzzer" ]; then
    cands=()
    for f in "$out"/*_seqfuzz; do [ -f "$f" ] && [ -x "$f" ] && cands+=("$f"); done
    if [ ${#cands[@]} -ne 1 ]; then
      echo "build-target-dir.sh: $target/build.sh wrote ${#cands[@]} fuzzers \$OUT/*_seqfuzz (wanted one)" >&2
      exit 1
    fi
    fuzzer=${cands[0]}
  fi
else
  # seqfuzz_fuzzer and seqfuzz_seeds of seeds/common.sh, as a build.sh would
  # call them (common.sh wants TARGET).
  fuzzer="$out/${name}_seqfuzz"
  (
    # shellcheck disable=SC2034 # common.sh reads it
    TARGET=$name
    # shellcheck source=../seeds/common.sh
    source "$root/seeds/common.sh"
    link=()
    for f in "${libs[@]}"; do
      link+=("$f")
      # A shared library is found at run time where it is now.
      case "$f" in *.so | *.so.*) link+=("-Wl,-rpath,$(dirname "$f")") ;; esac
    done
    seqfuzz_fuzzer "${name}_seqfuzz" "$api" "${incs[*]}" "${link[@]}"
    seeds=("$target"/seeds/*.seq)
    [ ${#seeds[@]} -eq 0 ] || seqfuzz_seeds "${name}_seqfuzz" "$api" "$target/seeds"
    [ ! -f "$target/$name.dict" ] || cp "$target/$name.dict" "$out/${name}_seqfuzz.dict"
  ) >&2
fi
# afl-fuzz loads the custom mutator of the same seqfuzz tree (built by
# common.sh's seqfuzz_runtime).
if [ "$mode" = afl ] && [ -f "$root/build/targets/tools/libseqfuzz-afl.so" ]; then
  cp "$root/build/targets/tools/libseqfuzz-afl.so" "$out/libseqfuzz-afl.so"
fi
echo "$fuzzer" >"$out/.fuzzer"
echo "$fuzzer"
