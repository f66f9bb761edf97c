#!/usr/bin/env bash
# libyaml (Debian bookworm source package libyaml 0.2.5), OSS-Fuzz style: see
# seeds/common.sh for the conventions and scripts/build-target.sh for modes.
TARGET=libyaml
source "$(dirname "$0")/../common.sh"
here=$SEQFUZZ_ROOT/seeds/libyaml
src=$(debian_source libyaml)

# The library: the 8 sources of src/Makefile.am (= CMakeLists.txt's SRCS),
# with the version macros its build system puts in config.h passed directly.
defs=(-DYAML_VERSION_MAJOR=0 -DYAML_VERSION_MINOR=2 -DYAML_VERSION_PATCH=5
  '-DYAML_VERSION_STRING="0.2.5"' -DYAML_DECLARE_STATIC)
objs=()
for f in api reader scanner parser loader writer emitter dumper; do
  $CC $CFLAGS "${defs[@]}" -I "$src/include" -c "$src/src/$f.c" -o "$WORK/$f.o"
  objs+=("$WORK/$f.o")
done
rm -f "$WORK/libyaml.a"
ar rcs "$WORK/libyaml.a" "${objs[@]}"

seqfuzz_fuzzer libyaml_seqfuzz "$here/libyaml.api" "$src/include $here" "$WORK/libyaml.a"
# Hand-written seeds, and seeds made from the documents the own harness
# starts from (its seed corpus below), so that both start from the same inputs.
seqfuzz_seeds libyaml_seqfuzz "$here/libyaml.api" "$here/seeds" "$src"/examples/* "$src"/regression-inputs/*
cp "$here/libyaml.dict" "$OUT/libyaml_seqfuzz.dict"
printf '[libfuzzer]\ndict = libyaml_seqfuzz.dict\n' >"$OUT/libyaml_seqfuzz.options"

# Baseline: OSS-Fuzz's libyaml_parser_fuzzer, rewritten in
# libyaml_own_fuzzer.c (the Debian source ships no harness), on the same
# library build, with the same dictionary and the library's own test inputs.
own_fuzzer libyaml_own "$here/libyaml_own_fuzzer.c" "$src/include" "$WORK/libyaml.a"
(cd "$src" && zip -q -j -r "$OUT/libyaml_own_seed_corpus.zip" examples regression-inputs)
cp "$here/libyaml.dict" "$OUT/libyaml_own.dict"
printf '[libfuzzer]\ndict = libyaml_own.dict\n' >"$OUT/libyaml_own.options"
