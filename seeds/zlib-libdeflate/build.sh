#!/usr/bin/env bash
# zlib 1.2.13 against libdeflate 1.14 (Debian bookworm source packages zlib
# and libdeflate), a differential target: see zlib_libdeflate.api and
# zd_glue.h, and seeds/common.sh / scripts/build-target.sh for the
# conventions and modes.
TARGET=zlib-libdeflate
source "$(dirname "$0")/../common.sh"
here=$SEQFUZZ_ROOT/seeds/zlib-libdeflate

# zlib exactly as seeds/zlib/build.sh builds it (configure --static, `make
# libz.a`, no -DUNALIGNED_OK: see there).
zsrc=$(debian_source zlib)
zbuild=$WORK/zlib
rm -rf "$zbuild"
mkdir -p "$zbuild" "$WORK/include"
(cd "$zbuild" && CC="$CC" CFLAGS="$CFLAGS -D_REENTRANT" "$zsrc/configure" --static >&2)
make -C "$zbuild" -j2 libz.a >&2
cp "$zsrc/zlib.h" "$zbuild/zconf.h" "$WORK/include/"

# libdeflate 1.14 builds with its own Makefile (CMake came with 1.15): the
# static library only (`make libdeflate.a`, DISABLE_SHARED), with $CC and
# $CFLAGS appended to the Makefile's own flags, as debian/rules passes
# dpkg-buildflags (Debian's profile-guided -fprofile-use pass is left out).
# The Makefile's -O2 -fomit-frame-pointer come first, so $CFLAGS' -O1
# -fno-omit-frame-pointer win. Built in a private copy: make writes into the
# source tree.
lsrc=$(debian_source libdeflate)
rm -rf "$WORK/libdeflate"
cp -a "$lsrc" "$WORK/libdeflate"
make -C "$WORK/libdeflate" -j2 libdeflate.a DISABLE_SHARED=1 CC="$CC" CFLAGS="$CFLAGS" \
  >"$WORK/libdeflate.log" 2>&1 || { tail -30 "$WORK/libdeflate.log" >&2; exit 1; }
cp "$WORK/libdeflate/libdeflate.h" "$WORK/include/"

seqfuzz_fuzzer zlib-libdeflate_seqfuzz "$here/zlib_libdeflate.api" "$WORK/include $here" \
  "$WORK/libdeflate/libdeflate.a" "$zbuild/libz.a"
seqfuzz_seeds zlib-libdeflate_seqfuzz "$here/zlib_libdeflate.api" "$here/seeds"
cp "$here/zlib_libdeflate.dict" "$OUT/zlib-libdeflate_seqfuzz.dict"
printf '[libfuzzer]\ndict = zlib-libdeflate_seqfuzz.dict\n' >"$OUT/zlib-libdeflate_seqfuzz.options"
