#!/usr/bin/env bash
# zlib (Debian bookworm source package zlib, 1.2.13), OSS-Fuzz style: see
# seeds/common.sh for the conventions and scripts/build-target.sh for modes.
TARGET=zlib
source "$(dirname "$0")/../common.sh"
here=$SEQFUZZ_ROOT/seeds/zlib
src=$(debian_source zlib)

# The library as its own build makes libz.a: zlib's configure (out of tree,
# --static, with $CC and $CFLAGS) and `make libz.a` (adler32 crc32 deflate
# infback inffast inflate inftrees trees zutil compress uncompr gzclose gzlib
# gzread gzwrite). debian/rules adds -D_REENTRANT (no effect on zlib's code)
# and, on amd64, -DUNALIGNED_OK, which is left out: it makes longest_match()
# do misaligned 16-bit loads that UBSan's alignment check reports on every
# run (OSS-Fuzz builds zlib without it too).
build=$WORK/build
rm -rf "$build"
mkdir -p "$build"
(cd "$build" && CC="$CC" CFLAGS="$CFLAGS -D_REENTRANT" "$src/configure" --static >&2)
make -C "$build" -j2 libz.a >&2
# The headers as an application sees them (configured zconf.h, no install).
mkdir -p "$WORK/include"
cp "$src/zlib.h" "$build/zconf.h" "$WORK/include/"
lib=$build/libz.a

seqfuzz_fuzzer zlib_seqfuzz "$here/zlib.api" "$WORK/include $here" "$lib"
seqfuzz_seeds zlib_seqfuzz "$here/zlib.api" "$here/seeds"
cp "$here/zlib.dict" "$OUT/zlib_seqfuzz.dict"
printf '[libfuzzer]\ndict = zlib_seqfuzz.dict\n' >"$OUT/zlib_seqfuzz.options"

# Baseline: the deflate/inflate round-trip harness in the style of OSS-Fuzz's
# zlib fuzzers (the Debian source ships none), same libz.a. It needs no
# corpus (OSS-Fuzz ships none for it); the dictionary is shared.
own_fuzzer zlib_own "$here/zlib_own_fuzzer.c" "$WORK/include" "$lib"
cp "$here/zlib.dict" "$OUT/zlib_own.dict"
printf '[libfuzzer]\ndict = zlib_own.dict\n' >"$OUT/zlib_own.options"
