#!/usr/bin/env bash
# Build a real-library target (seeds/LIB/build.sh) in one of three modes, the
# way OSS-Fuzz would: CC, CFLAGS, LIB_FUZZING_ENGINE, OUT and WORK are set
# here, then the target's build.sh does the rest.
#
#   scripts/build-target.sh LIB [libfuzzer|afl|coverage]
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
[ -x "$root/seeds/$lib/build.sh" ] || { echo "no target seeds/$lib/build.sh" >&2; exit 2; }
"$root/scripts/install-deps.sh"
export OUT="$root/build/targets/$lib/$mode" WORK="$root/build/targets/work/$lib-$mode"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
case "$mode" in
libfuzzer)
  export CC=clang-14 CXX=clang++-14
  export CFLAGS="-O1 -g -fno-omit-frame-pointer $san -fsanitize=fuzzer-no-link"
  export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
  ;;
afl)
  if ! command -v afl-clang-fast >/dev/null; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq afl++ >/dev/null
  fi
  export CC=afl-clang-fast CXX=afl-clang-fast++ AFL_QUIET=1
  export CFLAGS="-O1 -g -fno-omit-frame-pointer $san"
  export LIB_FUZZING_ENGINE="/usr/lib/afl/libAFLDriver.a"
  ;;
coverage)
  export CC=clang-14 CXX=clang++-14
  export CFLAGS="-O0 -g -fprofile-instr-generate -fcoverage-mapping"
  export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
  ;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
export CXXFLAGS="$CFLAGS"
rm -rf "$OUT"
mkdir -p "$OUT" "$WORK"
"$root/seeds/$lib/build.sh"
