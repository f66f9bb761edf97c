#!/usr/bin/env bash
# seqfuzz oss-fuzz: the generated OSS-Fuzz / ClusterFuzzLite files, and the
# generated build.sh run in an emulated OSS-Fuzz build environment (no docker:
# $SRC, $OUT, $WORK are temporary directories, seqfuzz's tree is $SRC/seqfuzz)
# for a target built from the grammar's library lines and for one with its
# own build.sh; then the fuzzers it put in $OUT run. With afl-clang-fast
# installed, also the AFL++ build and its custom mutator under afl-fuzz.
#   tests/ossfuzz.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1 src=$2
sf=$build/seqfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/checks.sh"
# The flags a target library is built with (docs/workflow.md), ASan only as
# in the emulated build; the planted bug fixed, so that -runs=200 cannot crash.
libflags=(-O1 -g -fno-omit-frame-pointer -fsanitize=address -fsanitize=fuzzer-no-link -DKVSTORE_FIXED=1)

# ---- the command line ---------------------------------------------------------
expect help 0 "usage: seqfuzz oss-fuzz TARGET -o DIR" -- "$sf" oss-fuzz --help
mkdir -p "$work/empty"
expect no-api 1 "empty: no \\.api file" -- "$sf" oss-fuzz "$work/empty" -o "$work/x"
expect no-target 1 "not a directory" -- "$sf" oss-fuzz "$work/none" -o "$work/x"
expect no-output 2 "-o DIR is required" -- "$sf" oss-fuzz "$work/empty"
expect bad-language 2 "--language is c or c\\+\\+" -- "$sf" oss-fuzz "$work/empty" -o "$work/x" \
  --language rust
expect bad-name 2 "OSS-Fuzz project name" -- "$sf" oss-fuzz "$work/empty" -o "$work/x" --name Bad/Name
mkdir -p "$work/two"
cp "$src/seeds/demo/kvstore.api" "$work/two/a.api"
cp "$src/seeds/demo/kvstore.api" "$work/two/b.api"
expect two-apis 1 "2 \\.api files" -- "$sf" oss-fuzz "$work/two" -o "$work/x"

# The demo target as a target directory: grammar, header, seeds, and the
# library as a static archive its library line names.
t1=$work/demo
mkdir -p "$t1"
cp "$src/seeds/demo/kvstore.h" "$src/seeds/demo/kvstore.c" "$t1/"
cp -r "$src/seeds/demo/seeds" "$t1/"
sed 's/library "libkvstore.so"/library "libkvstore.a"/' "$src/seeds/demo/kvstore.api" >"$t1/kvstore.api"
expect missing-library 1 "no library libkvstore.a \\(named by kvstore.api\\) and no build.sh" -- \
  "$sf" oss-fuzz "$t1" -o "$work/x"
clang-14 "${libflags[@]}" -c "$t1/kvstore.c" -o "$work/kvstore.o" &&
  ar rcs "$t1/libkvstore.a" "$work/kvstore.o" || fail "demo library build"
expect dir-is-target 1 "must not be the target directory" -- "$sf" oss-fuzz "$t1" -o "$t1"

# ---- the generated files ----------------------------------------------------
p1=$work/project-demo
expect generate 0 "OSS-Fuzz project kvstore \\(fuzzer kvstore_seqfuzz" -- "$sf" oss-fuzz "$t1" -o "$p1"
missing=""
for f in project.yaml Dockerfile build.sh README.md .clusterfuzzlite/project.yaml \
  .clusterfuzzlite/Dockerfile .clusterfuzzlite/build.sh .github/workflows/cflite_batch.yml \
  seqfuzz-target/kvstore.api seqfuzz-target/libkvstore.a seqfuzz-target/seeds/basic.seq \
  seqfuzz-target/kvstore.dict .clusterfuzzlite/seqfuzz-target/kvstore.api; do
  [ -s "$p1/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then pass files; else fail "files: missing$missing"; fi
check build.sh-executable test -x "$p1/build.sh" -a -x "$p1/.clusterfuzzlite/build.sh"
check build.sh-syntax bash -n "$p1/build.sh"
check cflite-build.sh-same cmp "$p1/build.sh" "$p1/.clusterfuzzlite/build.sh"
check grammar-dict grep -qx '"user:1"' "$p1/seqfuzz-target/kvstore.dict"
check placeholders-marked grep -q "EDIT-ME" "$p1/project.yaml" "$p1/Dockerfile" \
  "$p1/.github/workflows/cflite_batch.yml"

dockerfile_ok() { # the builder image, seqfuzz's dependencies, seqfuzz and the target in $SRC
  local d=$1 ctx=$2 p
  grep -q '^FROM gcr.io/oss-fuzz-base/base-builder' "$d" || { echo "no FROM base-builder"; return 1; }
  local apt # the install command, its continuation lines joined
  apt=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$d" | grep 'apt-get install')
  for p in libffi-dev libz3-dev libxxhash-dev cmake pkg-config zip; do
    grep -qw -- "$p" <<<"$apt" || { echo "apt-get install lacks $p"; return 1; }
  done
  grep -q 'git clone .*\$SRC/seqfuzz$' "$d" || { echo "seqfuzz not in \$SRC"; return 1; }
  grep -q "^COPY ${ctx}seqfuzz-target \\\$SRC/seqfuzz-target$" "$d" || { echo "no target COPY"; return 1; }
  grep -q "^COPY ${ctx}build.sh \\\$SRC/$" "$d" || { echo "no build.sh COPY"; return 1; }
  grep -q '^WORKDIR \$SRC/kvstore$' "$d" || { echo "no WORKDIR"; return 1; }
}
check dockerfile dockerfile_ok "$p1/Dockerfile" ""
check cflite-dockerfile dockerfile_ok "$p1/.clusterfuzzlite/Dockerfile" ".clusterfuzzlite/"
check cflite-copies-repo grep -q '^COPY \. \$SRC/kvstore$' "$p1/.clusterfuzzlite/Dockerfile"

# project.yaml and the workflow: well-formed YAML with the expected content.
yaml_ok() {
  if python3 -c 'import yaml' 2>/dev/null; then
    python3 - "$@" <<'PY'
import sys, yaml
p, c, w = (yaml.safe_load(open(f)) for f in sys.argv[1:4])
assert p["language"] == "c", p
assert p["fuzzing_engines"] == ["libfuzzer", "afl"], p
assert set(p["sanitizers"]) == {"address", "undefined"}, p
assert "EDIT-ME" in p["main_repo"], p
assert c["language"] == "c", c
on = w.get("on", w.get(True))  # YAML 1.1 reads the key `on` as true
assert "schedule" in on and "push" in on, on
runs = [s for j in w["jobs"].values() for s in j["steps"]
        if s["uses"].startswith("google/clusterfuzzlite/actions/run_fuzzers@")]
assert {s["with"]["mode"] for s in runs} == {"batch", "prune"}, runs
assert all("storage-repo" in s["with"] for s in runs), runs
assert all(s["uses"].startswith("google/clusterfuzzlite/actions/")
           for j in w["jobs"].values() for s in j["steps"])
print("yaml ok")
PY
  else # no PyYAML: indentation in steps of 2, keys and list items only, no tabs
    local f
    for f in "$@"; do
      awk '/^[[:space:]]*(#|$)/ {next}
           /\t/ {print FILENAME ":" NR ": tab"; bad=1}
           { match($0, /^ */); if (RLENGTH % 2) {print FILENAME ":" NR ": odd indent"; bad=1} }
           !/^ *(- )?[A-Za-z_][A-Za-z0-9_-]*:( |$)/ && !/^ *- [^ ]/ {print FILENAME ":" NR ": not yaml"; bad=1}
           END {exit bad}' "$f" || return 1
    done
    grep -q '^language: c$' "$1" && grep -q '^  - afl$' "$1" && grep -q '^  - undefined$' "$1" &&
      grep -q "mode: 'batch'" "$3" && grep -q "mode: 'prune'" "$3"
  fi
}
check yaml yaml_ok "$p1/project.yaml" "$p1/.clusterfuzzlite/project.yaml" \
  "$p1/.github/workflows/cflite_batch.yml"
check readme-afl grep -q "AFL_CUSTOM_MUTATOR_LIBRARY=/out/libseqfuzz-afl.so" "$p1/README.md"

# ---- the generated build.sh in an emulated OSS-Fuzz environment ---------------
# oss_build NAME PROJECT_DIR ENGINE: $work/NAME/{src,out,work}, as the
# Dockerfile lays $SRC out; runs PROJECT_DIR/build.sh; its log in NAME.log.
oss_build() {
  local name=$1 proj=$2 engine=$3 root=$work/$1
  mkdir -p "$root/src" "$root/out" "$root/work"
  ln -s "$src" "$root/src/seqfuzz"
  cp -r "$proj/seqfuzz-target" "$root/src/"
  cp "$proj/build.sh" "$root/src/"
  local env=(SRC="$root/src" OUT="$root/out" WORK="$root/work" SANITIZER=address
    FUZZING_ENGINE="$engine" SEQFUZZ_JOBS=1)
  local cflags="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope"
  if [ "$engine" = afl ]; then # OSS-Fuzz's compile_afl
    env+=(CC=afl-clang-fast CXX=afl-clang-fast++ AFL_QUIET=1 CFLAGS="$cflags" CXXFLAGS="$cflags"
      LIB_FUZZING_ENGINE=/usr/lib/afl/libAFLDriver.a)
  else
    env+=(CC=clang-14 CXX=clang++-14 CFLAGS="$cflags -fsanitize=fuzzer-no-link"
      CXXFLAGS="$cflags -fsanitize=fuzzer-no-link" LIB_FUZZING_ENGINE=-fsanitize=fuzzer)
  fi
  (cd "$root/src" && env "${env[@]}" bash "$root/src/build.sh") >"$work/$name.log" 2>&1
}
# fuzzer_ok NAME: the fuzzer in $work/NAME/out, its seed corpus, dictionary,
# options and bundled libz3; it runs 200 inputs from its seeds and exits 0.
fuzzer_ok() {
  local out=$work/$1/out f=kvstore_seqfuzz
  [ -x "$out/$f" ] || { echo "no $out/$f"; return 1; }
  local n
  n=$(unzip -Z1 "$out/${f}_seed_corpus.zip" 2>/dev/null | grep -c .)
  [ "${n:-0}" = 3 ] || { echo "seed corpus holds ${n:-no} inputs, not 3"; return 1; }
  grep -q '^"' "$out/$f.dict" || { echo "no dictionary"; return 1; }
  grep -qx "dict = $f.dict" "$out/$f.options" || { echo "no options"; return 1; }
  # libz3 bundled, and the fuzzer's RUNPATH finds it there (the runner
  # images have none).
  ls "$out"/lib/libz3.so* >/dev/null 2>&1 || { echo "no libz3 in \$OUT/lib"; ls -la "$out/lib"; return 1; }
  # (Read whole first: with pipefail, grep -q leaving early fails the pipe.)
  local dyn libs
  dyn=$(readelf -d "$out/$f") libs=$(ldd "$out/$f")
  grep -q 'R.*PATH.*\$ORIGIN/lib' <<<"$dyn" || { echo "no \$ORIGIN/lib RUNPATH"; return 1; }
  grep -q "libz3.* => $out/lib/libz3" <<<"$libs" || { echo "libz3 not from \$OUT/lib:$libs"; return 1; }
  mkdir -p "$work/$1/corpus"
  unzip -q -o "$out/${f}_seed_corpus.zip" -d "$work/$1/corpus" || return 1
  (cd "$out" && "./$f" -runs=200 -dict="$f.dict" "$work/$1/corpus") >"$work/$1.run" 2>&1 ||
    { echo "-runs=200 failed:"; tail -20 "$work/$1.run"; return 1; }
  grep -q "Done 200 runs" "$work/$1.run" || { tail "$work/$1.run"; return 1; }
}
if oss_build demo "$p1" libfuzzer; then pass build-demo; else
  fail build-demo
  tail -30 "$work/demo.log"
fi
check fuzzer-demo fuzzer_ok demo

# A target directory with its own build.sh (seeds/common.sh conventions): it
# builds the library from source and writes the fuzzer and a dictionary; the
# generated build.sh adds the seed corpus and the options.
t2=$work/own
mkdir -p "$t2/src"
cp "$src/seeds/demo/kvstore.api" "$src/seeds/demo/kvstore.h" "$t2/"
cp "$src/seeds/demo/kvstore.c" "$t2/src/"
cp -r "$src/seeds/demo/seeds" "$t2/"
cat >"$t2/build.sh" <<'EOF'
#!/usr/bin/env bash
TARGET=kvstore
source "$SEQFUZZ_ROOT/seeds/common.sh"
here=$(cd "$(dirname "$0")" && pwd)
$CC $CFLAGS -DKVSTORE_FIXED=1 -I "$here" -c "$here/src/kvstore.c" -o "$WORK/kvstore.o"
rm -f "$WORK/libkvstore.a"
ar rcs "$WORK/libkvstore.a" "$WORK/kvstore.o"
seqfuzz_fuzzer kvstore_seqfuzz "$here/kvstore.api" "$here" "$WORK/libkvstore.a"
printf '# written by the target build.sh\n"user:1"\n' >"$OUT/kvstore_seqfuzz.dict"
EOF
p2=$work/project-own
expect generate-own 0 "OSS-Fuzz project kv-own .*built by the target's build.sh" -- \
  "$sf" oss-fuzz "$t2" -o "$p2" --name kv-own
check own-project-name grep -q 'EDIT-ME/kv-own.git' "$p2/project.yaml"
if oss_build own "$p2" libfuzzer; then pass build-own; else
  fail build-own
  tail -30 "$work/own.log"
fi
check fuzzer-own fuzzer_ok own
check own-dict-kept grep -q "written by the target build.sh" "$work/own/out/kvstore_seqfuzz.dict"

# ---- AFL++ (OSS-Fuzz's FUZZING_ENGINE=afl) -----------------------------------
if command -v afl-clang-fast >/dev/null && command -v afl-fuzz >/dev/null &&
  [ -f /usr/lib/afl/libAFLDriver.a ]; then
  if oss_build afl "$p1" afl; then pass build-afl; else
    fail build-afl
    tail -30 "$work/afl.log"
  fi
  out=$work/afl/out
  check afl-mutator-in-out test -f "$out/libseqfuzz-afl.so" -a ! -x "$out/libseqfuzz-afl.so"
  # afl-fuzz with the mutator, as the README says to pass it, for 5 s.
  mkdir -p "$work/afl/in"
  unzip -q -o "$out/kvstore_seqfuzz_seed_corpus.zip" -d "$work/afl/in"
  env AFL_CUSTOM_MUTATOR_LIBRARY="$out/libseqfuzz-afl.so" AFL_CUSTOM_MUTATOR_ONLY=1 \
    SEQFUZZ_API="$out/kvstore_seqfuzz.api" AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 \
    AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 timeout 120 afl-fuzz -V 5 -m none \
    -i "$work/afl/in" -o "$work/afl/sync" -- "$out/kvstore_seqfuzz" >"$work/afl-fuzz.log" 2>&1
  execs=$(awk -F' *: ' '$1 == "execs_done" {print $2}' "$work/afl/sync/default/fuzzer_stats" 2>/dev/null)
  if grep -q "Custom mutator .*installed successfully" "$work/afl-fuzz.log" && [ "${execs:-0}" -gt 0 ]
  then pass "afl-fuzz-mutator ($execs execs)"; else
    fail "afl-fuzz-mutator (execs ${execs:-none})"
    tail -20 "$work/afl-fuzz.log"
  fi
else
  echo "skip afl: no afl-clang-fast, afl-fuzz or /usr/lib/afl/libAFLDriver.a"
fi

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
