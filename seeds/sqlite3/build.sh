#!/usr/bin/env bash
# SQLite 3.40.1 (Debian bookworm source package sqlite3), OSS-Fuzz style: see
# seeds/common.sh for the conventions and scripts/build-target.sh for modes.
#
# The Debian source is the full tree; like OSS-Fuzz's projects/sqlite3/build.sh
# we run its configure (with $CC/$CFLAGS) in $WORK, generate the amalgamation
# with `make sqlite3.c` (needs tclsh: Debian package tcl) and compile that one
# file into sqlite3.o, which BOTH fuzzers link.
TARGET=sqlite3
source "$(dirname "$0")/../common.sh"
here=$SEQFUZZ_ROOT/seeds/sqlite3
src=$(debian_source sqlite3)

# Compile-time options: Debian's (debian/rules CFLAGS, plus what its configure
# adds: --enable-fts4/--enable-fts5, math functions by default) and OSS-Fuzz's
# resource bounds (the options its sqlite3 build passes for test/ossfuzz.c).
debian_opts="-fno-strict-aliasing -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA
  -DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1
  -DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_OMIT_LOOKASIDE=1 -DSQLITE_ENABLE_DBSTAT_VTAB
  -DSQLITE_ALLOW_ROWID_IN_VIEW -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1 -DSQLITE_ENABLE_LOAD_EXTENSION
  -DSQLITE_ENABLE_JSON1 -DSQLITE_LIKE_DOESNT_MATCH_BLOBS -DSQLITE_THREADSAFE=1
  -DSQLITE_ENABLE_FTS3_TOKENIZER=1 -DSQLITE_USE_URI=1 -DSQLITE_MAX_SCHEMA_RETRY=25
  -DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_STMTVTAB
  -DSQLITE_MAX_VARIABLE_NUMBER=250000 -DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_FTS5
  -DSQLITE_ENABLE_MATH_FUNCTIONS"
ossfuzz_opts="-DSQLITE_MAX_LENGTH=128000000 -DSQLITE_MAX_SQL_LENGTH=128000000
  -DSQLITE_MAX_MEMORY=25000000 -DSQLITE_PRINTF_PRECISION_LIMIT=1048576 -DSQLITE_DEBUG=1
  -DSQLITE_MAX_PAGE_COUNT=16384"
opts=$(echo $debian_opts $ossfuzz_opts)

# The amalgamation (generated once per $WORK). Its build tools (lemon,
# mkkeywordhash) are compiled with $CC $CFLAGS too and leak by design: like
# OSS-Fuzz, run them without leak detection.
bld=$WORK/bld
if [ ! -s "$bld/sqlite3.c" ]; then
  rm -rf "$bld"
  mkdir -p "$bld"
  (cd "$bld" && CC="$CC" CFLAGS="$CFLAGS $opts" "$src/configure" --disable-shared \
    --disable-tcl --disable-readline --disable-amalgamation --enable-fts4 --enable-fts5 \
    --enable-load-extension >&2 &&
    ASAN_OPTIONS=detect_leaks=0 make OPTS="$opts" sqlite3.c >&2)
fi

# The library: sqlite3.o, compiled like the amalgamation build compiles it
# (recompiled only when the flags change: ASan builds of it take minutes).
stamp=$(echo "$CC $CFLAGS $opts" | md5sum | cut -c1-12)
if [ ! -s "$WORK/libsqlite3.a" ] || [ "$(cat "$WORK/sqlite3.flags" 2>/dev/null)" != "$stamp" ]; then
  $CC $CFLAGS $opts -I "$bld" -c "$bld/sqlite3.c" -o "$WORK/sqlite3.o"
  rm -f "$WORK/libsqlite3.a"
  ar rcs "$WORK/libsqlite3.a" "$WORK/sqlite3.o"
  echo "$stamp" >"$WORK/sqlite3.flags"
fi

seqfuzz_fuzzer sqlite3_seqfuzz "$here/sqlite3.api" "$bld $here" "$WORK/libsqlite3.a" -lpthread
seqfuzz_seeds sqlite3_seqfuzz "$here/sqlite3.api" "$here/seeds"
cp "$here/sqlite3.dict" "$OUT/sqlite3_seqfuzz.dict"
printf '[libfuzzer]\ndict = sqlite3_seqfuzz.dict\n' >"$OUT/sqlite3_seqfuzz.options"

# OSS-Fuzz's harness (test/ossfuzz.c), linked against the same sqlite3.o.
# The Debian tree ships no seed corpus or dictionary for it (OSS-Fuzz keeps
# its sql.dict in its own repository): it gets our SQL dictionary.
own_fuzzer sqlite3_own "$src/test/ossfuzz.c" "$bld" "$WORK/libsqlite3.a" -lpthread -ldl -lm
cp "$here/sqlite3.dict" "$OUT/sqlite3_own.dict"
printf '[libfuzzer]\ndict = sqlite3_own.dict\n' >"$OUT/sqlite3_own.options"
