#!/usr/bin/env bash
# Build the AFL++ variants: the demo fuzz targets linked with libAFLDriver.a
# (build-afl/), and the seqfuzz custom mutator library for afl-fuzz with the
# seqfuzz tool (build/, plain clang: the mutator runs inside afl-fuzz).
# Only the target library and hand-written harnesses are AFL-instrumented
# (AFL_LLVM_ALLOWLIST), as the libFuzzer build instruments only them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
if ! command -v afl-clang-fast >/dev/null; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq afl++ >/dev/null
fi
# Every library any AFL++ build here fuzzes, the benchmarks' too. The list
# is no input CMake knows of: when it changes, the build starts clean, or
# objects compiled under the old list would keep its instrumentation.
allow="$root/build-afl/allowlist.txt"
mkdir -p "$root/build-afl"
list=$(printf '%s\n' 'src: *kvstore.c' 'src: *kvstore_handwritten.c' 'src: *magiclib.c' \
  'src: *ownlib.c' 'src: *solverlib.c' 'src: *oraclelib.c' 'src: *difflib_a.c' 'src: *difflib_b.c' \
  'src: *bench/search/*')
if [ "$(cat "$allow" 2>/dev/null)" != "$list" ]; then
  echo "$list" >"$allow"
  [ ! -f "$root/build-afl/Makefile" ] || cmake --build "$root/build-afl" --target clean >/dev/null
fi
cmake -S "$root" -B "$root/build-afl" -DCMAKE_C_COMPILER=afl-clang-fast \
  -DCMAKE_CXX_COMPILER=afl-clang-fast++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSEQFUZZ_ENGINE=afl \
  "-DCMAKE_C_COMPILER_LAUNCHER=env;AFL_LLVM_ALLOWLIST=$allow;AFL_QUIET=1" >/dev/null
cmake --build "$root/build-afl" -j"$(nproc)" --target kvstore_fuzzer kvstore_fixed_fuzzer \
  handwritten_fuzzer handwritten_fixed_fuzzer solverlib_fuzzer >/dev/null
# The compilers through the environment: CMake reads it on a first configure
# only, where -DCMAKE_C_COMPILER spelled unlike the cache's full path would
# make CMake delete an existing build/'s cache.
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target seqfuzz seqfuzz-afl >/dev/null
echo "AFL++ targets in $root/build-afl, mutator $root/build/libseqfuzz-afl.so"
