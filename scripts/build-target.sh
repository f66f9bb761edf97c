#!/usr/bin/env bash
# Build a real-library target (seeds/LIB/build.sh) in one of three modes, the
# way OSS-Fuzz would: CC, CFLAGS, LIB_FUZZING_ENGINE, OUT and WORK are set
# here, then the target's build.sh does the rest.
#
#   scripts/build-target.sh LIB [libfuzzer|afl|coverage]
#
#   LIB        a name under seeds/, or a target directory (docs/workflow.md)
#
#   libfuzzer  clang, ASan+UBSan, -fsanitize=fuzzer (default)
#   afl        afl-clang-fast, ASan+UBSan, libAFLDriver.a (use with
#              build/targets/tools/libseqfuzz-afl.so as AFL_CUSTOM_MUTATOR_LIBRARY)
#   coverage   clang source-based coverage (llvm-cov), no sanitizers
#
# Outputs go to build/targets/LIB/MODE/: LIB_seqfuzz (the seqfuzz fuzzer),
# LIB_own (the library's own or OSS-Fuzz's harness), seed corpora, .dict,
# .options.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:?usage: build-target.sh LIB [libfuzzer|afl|coverage]}
mode=${2:-libfuzzer}
# A target directory anywhere (a path with a /, or not a name under seeds/;
# docs/workflow.md): scripts/build-target-dir.sh, outputs in DIR/.seqfuzz/MODE.
if [[ "$lib" == */* || ! -x "$root/seeds/$lib/build.sh" ]] && [ -d "$lib" ]; then
  exec "$root/scripts/build-target-dir.sh" "$lib" "$lib/.seqfuzz/$mode" "$mode" >/dev/null
fi
[ -x "$root/seeds/$lib/build.sh" ] || { echo "no target seeds/$lib/build.sh" >&2; exit 2; }
"$root/scripts/install-deps.sh"
export OUT="$root/build/targets/$lib/$mode" WORK="$root/build/targets/work/$lib-$mode"
source "$root/scripts/engine-env.sh"
engine_env "$mode" || { echo "unknown mode $mode" >&2; exit 2; }
rm -rf "$OUT"
mkdir -p "$OUT" "$WORK"
"$root/seeds/$lib/build.sh"
