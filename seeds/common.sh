# seeds/common.sh: what every seeds/<lib>/build.sh sources.
#
# OSS-Fuzz conventions: the library and the harnesses are compiled with
# $CC $CFLAGS, fuzzers are linked with $LIB_FUZZING_ENGINE, and everything a
# fuzzer needs (binary, NAME_seed_corpus.zip, NAME.dict, NAME.options) goes to
# $OUT. $WORK is scratch space. Run standalone, a build.sh makes a libFuzzer
# build with ASan+UBSan under build/targets/ (UBSan not recovering, so that
# a finding is a crash, as scripts/build-target.sh has it);
# scripts/build-target.sh sets up the other modes (afl, coverage).
#
# seqfuzz's own runtime is compiled without coverage instrumentation, so the
# engine's feedback is the library's coverage only. Its harness entry points
# (fuzz_target.c, cmp_trace.c, edges.c, state_features.c) keep the sanitizers of $CFLAGS; its
# libraries (executor, mutator, solver client) are built like the engine,
# without them, as cmake/SeqFuzz.cmake builds them: a sanitizer checks the
# library's accesses wherever the memory came from (malloc is intercepted
# for every caller), and instrumented, seqfuzz's own work per execution
# cost 1.7 times as much on cJSON (bench/README.md). seqfuzz's tests run
# under the sanitizers instead.
#
# Functions:
#   debian_source PKG          fetch and unpack the Debian bookworm source of
#                              PKG (cached); prints the source directory
#   seqfuzz_fuzzer NAME API INCDIRS LIBS...
#                              embed API and link $OUT/NAME against LIBS
#                              (and $SEQFUZZ_LDFLAGS: `seqfuzz oss-fuzz` sets an
#                              rpath to the libraries it bundles in $OUT/lib)
#   seqfuzz_seeds NAME API DIR [FILE...]
#                              encode DIR/*.seq (and DIR/*.seq.in once per FILE)
#                              into $OUT/NAME_seed_corpus.zip
#   own_fuzzer NAME SRC INCDIRS LIBS...
#                              build a plain (hand-written) harness $OUT/NAME
#                              (SRC is listed in $OUT/harness-sources.txt, which
#                              coverage reports leave out)

set -euo pipefail
# The physical path (-P): the CMake caches below record it, and a path
# through a symlink ($SRC/seqfuzz in an emulated OSS-Fuzz build) may vanish.
SEQFUZZ_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
: "${TARGET:?build.sh must set TARGET before sourcing common.sh}"
: "${CC:=clang-14}" "${CXX:=clang++-14}"
: "${CFLAGS:=-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link}"
: "${CXXFLAGS:=$CFLAGS}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${OUT:=$SEQFUZZ_ROOT/build/targets/$TARGET/libfuzzer}"
: "${WORK:=$SEQFUZZ_ROOT/build/targets/work/$TARGET-libfuzzer}"
: "${SEQFUZZ_CACHE:=$SEQFUZZ_ROOT/build/targets/cache}"
export CC CXX CFLAGS CXXFLAGS LIB_FUZZING_ENGINE OUT WORK
mkdir -p "$OUT" "$WORK" "$SEQFUZZ_CACHE"
NPROC=${SEQFUZZ_JOBS:-$(nproc)} # parallel jobs of the seqfuzz builds (tests set 1)

log() { echo "[$TARGET] $*" >&2; }

# The sanitizer and debug flags of $CFLAGS, without coverage instrumentation.
runtime_cflags() {
  local f out=()
  for f in $CFLAGS; do
    case "$f" in
    -fsanitize=fuzzer-no-link | -fsanitize-coverage=* | -fprofile-instr-generate | \
      -fcoverage-mapping) ;;
    -fsanitize=*) out+=("$(echo "$f" | sed -e 's/fuzzer-no-link,\?//; s/,fuzzer-no-link//')") ;;
    *) out+=("$f") ;;
    esac
  done
  echo "${out[@]}"
}

# Debian bookworm sources through a private apt configuration: nothing on the
# machine changes (no deb-src line is added to /etc/apt).
debian_source() {
  local pkg=$1 apt="$SEQFUZZ_CACHE/apt" dir
  if [ -e "$SEQFUZZ_CACHE/src/.$pkg.done" ]; then
    cat "$SEQFUZZ_CACHE/src/.$pkg.done"
    return
  fi
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$SEQFUZZ_CACHE/src"
  echo "deb-src http://deb.debian.org/debian bookworm main" >"$apt/sources.list"
  local opts=(-q -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "APT::Sandbox::User=root")
  if [ ! -e "$apt/lists/.updated" ]; then
    apt-get "${opts[@]}" update >&2
    touch "$apt/lists/.updated"
  fi
  (cd "$SEQFUZZ_CACHE/src" && apt-get "${opts[@]}" source --download-only "$pkg" >&2)
  local dsc
  dsc=$(ls -t "$SEQFUZZ_CACHE/src/${pkg}_"*.dsc | head -1)
  (cd "$SEQFUZZ_CACHE/src" && dpkg-source --no-check -x "$(basename "$dsc")" >&2)
  dir=$(cd "$SEQFUZZ_CACHE/src" && ls -d "$pkg"-*/ | head -1)
  echo "$SEQFUZZ_CACHE/src/${dir%/}" | tee "$SEQFUZZ_CACHE/src/.$pkg.done"
}

# runtime_cflags without the sanitizers: the runtime libraries' (above).
runtime_lib_cflags() {
  local f out=()
  for f in $(runtime_cflags); do
    case "$f" in -fsanitize* | -fno-sanitize*) ;; *) out+=("$f") ;; esac
  done
  echo "${out[@]}"
}

# seqfuzz's CLI (plain build, shared by all targets) and runtime libraries
# (built once per set of runtime flags).
seqfuzz_runtime() {
  local rtflags key
  # Several targets may build at once: one runtime build at a time.
  exec 9>"$SEQFUZZ_ROOT/build/targets/.runtime.lock"
  flock 9
  rtflags=$(runtime_lib_cflags)
  key=$(echo "$rtflags" | md5sum | cut -c1-8)
  SEQFUZZ_RT="$SEQFUZZ_ROOT/build/targets/runtime-$key"
  SEQFUZZ="$SEQFUZZ_ROOT/build/targets/tools/seqfuzz"
  if [ ! -x "$SEQFUZZ" ] || [ -n "$(find "$SEQFUZZ_ROOT"/{base,grammar,sequence,harness,mutator,solver,simplifier,cli} -newer "$SEQFUZZ" -name '*.[ch]' | head -1)" ]; then
    env -u CFLAGS -u CXXFLAGS -u LDFLAGS cmake -S "$SEQFUZZ_ROOT" -B "$SEQFUZZ_ROOT/build/targets/tools" \
      -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DSEQFUZZ_FUZZERS=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS= -DCMAKE_CXX_FLAGS= >/dev/null
    cmake --build "$SEQFUZZ_ROOT/build/targets/tools" -j"$NPROC" --target seqfuzz seqfuzz-afl >/dev/null
  fi
  # The runtime is always compiled with clang (also for afl-clang-fast
  # builds: afl-fuzz should see the library's coverage, not seqfuzz's).
  env -u CFLAGS -u CXXFLAGS -u LDFLAGS cmake -S "$SEQFUZZ_ROOT" -B "$SEQFUZZ_RT" -DCMAKE_C_COMPILER=clang-14 \
    -DCMAKE_CXX_COMPILER=clang++-14 -DSEQFUZZ_FUZZERS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_C_FLAGS=$rtflags" >/dev/null
  cmake --build "$SEQFUZZ_RT" -j"$NPROC" --target seqfuzz_solver seqfuzz_mutator seqfuzz_core >/dev/null
  flock -u 9
}

# seqfuzz_fuzzer NAME API "INCDIR..." LIB...: $OUT/NAME, a seqfuzz fuzzer for
# API, linked with the library archives or flags LIB...
seqfuzz_fuzzer() {
  local name=$1 api=$2 incs=$3
  shift 3
  [ -n "${SEQFUZZ_RT:-}" ] || seqfuzz_runtime
  local obj="$WORK/$name" rtflags inc=()
  rtflags=$(runtime_cflags)
  for d in $incs; do inc+=(-I "$d"); done
  mkdir -p "$obj"
  "$SEQFUZZ" embed "$api" -o "$obj/embedded.c"
  # The embedded file takes the addresses of the API's functions, possibly
  # static inline ones from the target's headers: compile it like the library.
  $CC $CFLAGS "${inc[@]}" -I "$SEQFUZZ_ROOT" -c "$obj/embedded.c" -o "$obj/embedded.o"
  local f wraps=() harness=()
  for f in fuzz_target cmp_trace edges state_features; do
    # cmp_trace.c's wrappers see every comparison of the library: without
    # a frame, the common case is a test and a jump to the engine's callback
    # (cmake/SeqFuzz.cmake says the same).
    local own=()
    [ "$f" = cmp_trace ] && own=(-fomit-frame-pointer)
    clang-14 $rtflags "${own[@]}" ${SEQFUZZ_OSSFUZZ:+-DSEQFUZZ_OSSFUZZ=1} -I "$SEQFUZZ_ROOT" \
      -c "$SEQFUZZ_ROOT/harness/$f.c" -o "$obj/$f.o"
    harness+=("$obj/$f.o")
  done
  # The sanitizer-coverage callbacks the harness looks at before the engine.
  while read -r f; do wraps+=("-Wl,--wrap=$f"); done <"$SEQFUZZ_ROOT/harness/wrapped.txt"
  $CXX $CXXFLAGS "$obj/embedded.o" "${harness[@]}" "$@" \
    "$SEQFUZZ_RT/libseqfuzz_solver.a" "$SEQFUZZ_RT/libseqfuzz_mutator.a" \
    "$SEQFUZZ_RT/libseqfuzz_core.a" -Wl,-Bstatic -lffi -lxxhash -Wl,-Bdynamic -lz3 -ldl -lrt -lm \
    "${wraps[@]}" $LIB_FUZZING_ENGINE ${SEQFUZZ_LDFLAGS:-} -o "$OUT/$name"
  cp "$api" "$OUT/$name.api"
  log "built $OUT/$name"
}

# seqfuzz_seeds NAME API DIR [FILE...]: the text seeds DIR/*.seq, encoded,
# and the templates DIR/*.seq.in instantiated with each FILE, as
# $OUT/NAME_seed_corpus.zip (a seed that does not parse fails the build).
seqfuzz_seeds() {
  local name=$1 api=$2 dir=$3 tmp t
  shift 3
  tmp=$(mktemp -d)
  for s in "$dir"/*.seq; do
    "$SEQFUZZ" encode "$api" "$s" -o "$tmp/$(basename "$s" .seq)"
  done
  # Templates DIR/*.seq.in, once per example FILE (seqfuzz seed): the same
  # documents the library's own harness starts from.
  for t in "$dir"/*.seq.in; do
    [ -e "$t" ] && [ $# -gt 0 ] || continue
    "$SEQFUZZ" seed "$api" "$t" "$@" -o "$tmp/$(basename "$t" .seq.in)"
  done
  rm -f "$OUT/${name}_seed_corpus.zip"
  (cd "$tmp" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  rm -rf "$tmp"
}

# own_fuzzer NAME SRC "INCDIR..." LIB...: a plain libFuzzer-style harness.
own_fuzzer() {
  local name=$1 src=$2 incs=$3 inc=()
  shift 3
  for d in $incs; do inc+=(-I "$d"); done
  case "$src" in
  *.cc | *.cpp) $CXX $CXXFLAGS "${inc[@]}" -c "$src" -o "$WORK/$name.o" ;;
  *) $CC $CFLAGS "${inc[@]}" -c "$src" -o "$WORK/$name.o" ;;
  esac
  $CXX $CXXFLAGS "$WORK/$name.o" "$@" $LIB_FUZZING_ENGINE -o "$OUT/$name"
  # Coverage reports count the library's code, not the harness's.
  echo "$src" >>"$OUT/harness-sources.txt"
  log "built $OUT/$name"
}
