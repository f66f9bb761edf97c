# scripts/engine-env.sh: sourced by the build scripts. engine_env MODE
# exports the compiler and flags a target is built with, the way OSS-Fuzz
# would set them (CC, CXX, CFLAGS, CXXFLAGS, LIB_FUZZING_ENGINE):
#   libfuzzer  clang, ASan+UBSan (UBSan not recovering), -fsanitize=fuzzer
#   afl        afl-clang-fast (installed if missing), ASan+UBSan, libAFLDriver.a
#   coverage   clang source-based coverage (llvm-cov), no sanitizers
# Returns 2 for another mode.
engine_env() {
  local san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
  case "$1" in
  libfuzzer)
    export CC=clang-14 CXX=clang++-14
    export CFLAGS="-O1 -g -fno-omit-frame-pointer $san -fsanitize=fuzzer-no-link"
    export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
    ;;
  afl)
    if ! command -v afl-clang-fast >/dev/null; then
      local sudo=""
      [ "$(id -u)" -eq 0 ] || sudo=sudo
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq afl++ >/dev/null
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
  *) return 2 ;;
  esac
  export CXXFLAGS="$CFLAGS"
}
