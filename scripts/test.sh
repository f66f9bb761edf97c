#!/usr/bin/env bash
# Build seqfuzz with ASan+UBSan (LeakSanitizer included) and run every test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build-test" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=Debug -DSEQFUZZ_SANITIZE=ON >/dev/null
cmake --build "$root/build-test" -j"$(nproc)"
cd "$root/build-test"
ctest --output-on-failure -j"$(nproc)"
