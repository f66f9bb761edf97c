#!/usr/bin/env bash
# PCRE2 10.42 (Debian bookworm source package pcre2) WITH the JIT compiler, as
# a differential target: the interpreter (pcre2_match on a pattern that was
# never JIT-compiled) against the JIT (the same pattern after
# pcre2_jit_compile). See pcre2_jit.api for what is compared and why, and
# seeds/common.sh / scripts/build-target.sh for the conventions and modes.
#
# The library is configured as seeds/pcre2/build.sh (and OSS-Fuzz) configure
# it, plus --enable-jit: 8-bit, static, --enable-never-backslash-C,
# --with-match-limit=1000 --with-match-limit-depth=1000. JIT code runs under
# ASan (it is machine code in mmap'd pages, not instrumented; the JIT
# compiler itself is).
TARGET=pcre2-jit
source "$(dirname "$0")/../common.sh"
here=$SEQFUZZ_ROOT/seeds/pcre2-jit
src=$(debian_source pcre2)

# Build in a private copy (the cached source is shared by all modes and by
# the non-JIT target).
rm -rf "$WORK/pcre2"
cp -a "$src" "$WORK/pcre2"
(
  cd "$WORK/pcre2"
  CC="$CC" CFLAGS="$CFLAGS" ./configure --disable-shared --enable-static --enable-jit \
    --enable-fuzz-support --enable-never-backslash-C \
    --with-match-limit=1000 --with-match-limit-depth=1000 >"$WORK/configure.log" 2>&1 ||
    { tail -30 "$WORK/configure.log" >&2; exit 1; }
  # configure's summary says whether JIT is really in (it is on x86-64).
  grep -q 'Enable JIT compiling support \.* : yes' "$WORK/configure.log" ||
    { echo "pcre2 configured without JIT" >&2; exit 1; }
  make -j2 libpcre2-8.la >"$WORK/make.log" 2>&1 || { tail -30 "$WORK/make.log" >&2; exit 1; }
)
lib=$WORK/pcre2/.libs/libpcre2-8.a
inc=$WORK/pcre2/src

# pcre2.h needs PCRE2_CODE_UNIT_WIDTH before it is included (see
# seeds/pcre2/build.sh).
CFLAGS="$CFLAGS -DPCRE2_CODE_UNIT_WIDTH=8" \
  seqfuzz_fuzzer pcre2-jit_seqfuzz "$here/pcre2_jit.api" "$inc $here" "$lib"
seqfuzz_seeds pcre2-jit_seqfuzz "$here/pcre2_jit.api" "$here/seeds"
cp "$here/pcre2_jit.dict" "$OUT/pcre2-jit_seqfuzz.dict"
printf '[libfuzzer]\ndict = pcre2-jit_seqfuzz.dict\n' >"$OUT/pcre2-jit_seqfuzz.options"
