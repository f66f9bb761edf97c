#!/usr/bin/env bash
# PCRE2 10.42 (Debian bookworm source package pcre2), OSS-Fuzz style: see
# seeds/common.sh for the conventions and scripts/build-target.sh for modes.
#
# One library build serves both fuzzers: the 8-bit library, static, WITHOUT
# JIT, configured exactly as OSS-Fuzz's projects/pcre2/build.sh does
# (--enable-fuzz-support --enable-never-backslash-C --with-match-limit=1000
# --with-match-limit-depth=1000). The JIT functions are still in the grammar;
# in this build they return their documented "JIT not supported" results.
TARGET=pcre2
source "$(dirname "$0")/../common.sh"
here=$SEQFUZZ_ROOT/seeds/pcre2
src=$(debian_source pcre2)

# Build in a private copy (the cached source is shared by all modes).
rm -rf "$WORK/pcre2"
cp -a "$src" "$WORK/pcre2"
(
  cd "$WORK/pcre2"
  CC="$CC" CFLAGS="$CFLAGS" ./configure --disable-shared --enable-static \
    --enable-fuzz-support --enable-never-backslash-C \
    --with-match-limit=1000 --with-match-limit-depth=1000 >"$WORK/configure.log" 2>&1 ||
    { tail -30 "$WORK/configure.log" >&2; exit 1; }
  make -j2 libpcre2-8.la >"$WORK/make.log" 2>&1 || { tail -30 "$WORK/make.log" >&2; exit 1; }
)
lib=$WORK/pcre2/.libs/libpcre2-8.a
inc=$WORK/pcre2/src

# pcre2.h needs PCRE2_CODE_UNIT_WIDTH before it is included (pcre2api: "define
# it ... or on the compiler command line"); the embedded grammar file is the
# only file that needs it from outside.
CFLAGS="$CFLAGS -DPCRE2_CODE_UNIT_WIDTH=8" \
  seqfuzz_fuzzer pcre2_seqfuzz "$here/pcre2.api" "$inc $here" "$lib"
seqfuzz_seeds pcre2_seqfuzz "$here/pcre2.api" "$here/seeds"
cp "$here/pcre2.dict" "$OUT/pcre2_seqfuzz.dict"
printf '[libfuzzer]\ndict = pcre2_seqfuzz.dict\n' >"$OUT/pcre2_seqfuzz.options"

# The harness OSS-Fuzz uses (src/pcre2_fuzzsupport.c; it defines the code unit
# width itself and, not including config.h, never JIT-compiles), same library.
# The Debian source ships no seed corpus or dictionary for it; OSS-Fuzz gives
# it a dictionary of pattern syntax, so it gets the same one as seqfuzz.
own_fuzzer pcre2_own "$inc/pcre2_fuzzsupport.c" "$inc" "$lib"
cp "$here/pcre2.dict" "$OUT/pcre2_own.dict"
printf '[libfuzzer]\ndict = pcre2_own.dict\n' >"$OUT/pcre2_own.options"
