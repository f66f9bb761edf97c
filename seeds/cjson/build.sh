#!/usr/bin/env bash
# cJSON (Debian bookworm source package cjson), OSS-Fuzz style: see
# seeds/common.sh for the conventions and scripts/build-target.sh for modes.
TARGET=cjson
source "$(dirname "$0")/../common.sh"
here=$SEQFUZZ_ROOT/seeds/cjson
src=$(debian_source cjson)

# The library, as its own CMake build compiles it (cJSON.c for libcjson,
# cJSON_Utils.c for libcjson_utils with ENABLE_CJSON_UTILS, as Debian builds
# it): one static archive that both fuzzers link.
for f in cJSON cJSON_Utils; do
  $CC $CFLAGS -I "$src" -c "$src/$f.c" -o "$WORK/$f.o"
done
rm -f "$WORK/libcjson.a"
ar rcs "$WORK/libcjson.a" "$WORK/cJSON.o" "$WORK/cJSON_Utils.o"

# seqfuzz: the grammar covers cJSON.h and cJSON_Utils.h; cjson_glue.h (in
# $here) wraps the calls the grammar cannot express.
seqfuzz_fuzzer cjson_seqfuzz "$here/cjson.api" "$src $here" "$WORK/libcjson.a"
seqfuzz_seeds cjson_seqfuzz "$here/cjson.api" "$here/seeds"
cp "$here/cjson.dict" "$OUT/cjson_seqfuzz.dict"
cat >"$OUT/cjson_seqfuzz.options" <<'OPT'
[libfuzzer]
dict = cjson_seqfuzz.dict
OPT

# The library's own harness, built as its fuzzing/ossfuzz.sh does.
own_fuzzer cjson_own "$src/fuzzing/cjson_read_fuzzer.c" "$src" "$WORK/libcjson.a"
rm -f "$OUT/cjson_own_seed_corpus.zip"
(cd "$src/fuzzing/inputs" && zip -q -r "$OUT/cjson_own_seed_corpus.zip" .)
cp "$src/fuzzing/json.dict" "$OUT/cjson_own.dict"
cat >"$OUT/cjson_own.options" <<'OPT'
[libfuzzer]
dict = cjson_own.dict
OPT
