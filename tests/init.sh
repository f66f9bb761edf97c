#!/usr/bin/env bash
# seqfuzz init: a draft grammar from a small header passes `seqfuzz check`
# and has the expected lines; help, errors; --probe flags the function that
# dereferences its pointer argument.
set -uo pipefail
build=$1 src=$2 sanitized=${3:-1}
sf=$build/seqfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/checks.sh"
has_line() { # has_line NAME FILE LINE: FILE has exactly this line
  if grep -qxF -- "$3" "$2"; then pass "$1"; else fail "$1: no line '$3' in $2:"; cat "$2"; fi
}

mkdir -p "$work/src"
cat >"$work/src/tl.h" <<'EOF'
#ifndef TL_H
#define TL_H
#include <stddef.h>

#define TL_VERSION "1.2"
#define TL_OK 0
#define TL_ERR_NOMEM (-1)
#define TL_ERR_ARG (-2)

#define TL_OPT_A 0x1
#define TL_OPT_B (TL_OPT_A << 1)
#define TL_OPT_C 0x4

typedef struct tl tl_t; /* opaque */
typedef enum tl_mode { TL_READ, TL_WRITE = 4 } tl_mode;

tl_t *tl_new(int cap);
void tl_free(tl_t *t);
int tl_write(tl_t *t, const void *buf, size_t len);
int tl_read(tl_t *t, void *buf, size_t cap, size_t *outlen);
int tl_child(tl_t *t, tl_t **out);
int tl_set_mode(tl_t *t, tl_mode mode, unsigned flags);
int tl_each(tl_t *t, int (*cb)(void *ctx, int v), void *ctx);
size_t tl_len(const char *s);
int tl_cap(tl_t *t);
#endif
EOF
cat >"$work/src/tl.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
#include "tl.h"
struct tl { int cap; char buf[64]; size_t len; };
tl_t *tl_new(int cap) { tl_t *t = calloc(1, sizeof *t); if (t) t->cap = cap; return t; }
void tl_free(tl_t *t) { free(t); }
int tl_write(tl_t *t, const void *buf, size_t len) {
  if (!t || len > sizeof t->buf) return TL_ERR_ARG;
  memcpy(t->buf, buf, len), t->len = len;
  return 0;
}
int tl_read(tl_t *t, void *buf, size_t cap, size_t *outlen) {
  if (!t) return TL_ERR_ARG;
  *outlen = t->len < cap ? t->len : cap;
  memcpy(buf, t->buf, *outlen);
  return 0;
}
int tl_child(tl_t *t, tl_t **out) { return (*out = tl_new(t ? t->cap : 0)) ? TL_OK : TL_ERR_NOMEM; }
int tl_set_mode(tl_t *t, tl_mode mode, unsigned flags) { (void)t, (void)mode, (void)flags; return 0; }
int tl_each(tl_t *t, int (*cb)(void *ctx, int v), void *ctx) { return cb(ctx, t->cap); }
size_t tl_len(const char *s) { return strlen(s); } /* dereferences s: NULL crashes */
int tl_cap(tl_t *t) { return t ? t->cap : -1; }
EOF

# The draft: it passes check, and the guesses are the expected lines.
expect init 0 "tl.api: 8 functions \(7 with guesses to confirm, 1 not expressible" -- "$sf" init "$work/src/tl.h" -o "$work/tl.api"
expect init-check 0 "API 'tl' ok: 8 functions \(0 observers, 1 destructors\), 1 handle types" -- \
  "$sf" check "$work/tl.api"
d=$work/tl.api
has_line api "$d" 'api tl;'
has_line header-relative "$d" 'header "src/tl.h";'
has_line handle "$d" 'handle tl_t;'
has_line handle-why "$d" '# guess: opaque handle (struct tl is never defined; used by 8 functions)'
has_line constructor "$d" 'func tl_t *tl_new(int cap) error null;'
has_line constructor-why "$d" '# guess: constructor (returns tl_t *, name ends in _new); NULL on error'
has_line destructor "$d" 'func void tl_free(tl_t *t) destructor;'
has_line buffer "$d" 'func int tl_write(tl_t *t, bytes buf[len], size_t len) error < 0;'
has_line out-buffer "$d" \
  'func int tl_read(tl_t *t, out bytes buf[cap], size_t cap, out size_t *outlen) error < 0;'
has_line out-handle "$d" 'func int tl_child(tl_t *t, out tl_t **out) error != 0;'
has_line enum "$d" 'enum tl_mode { TL_READ = 0, TL_WRITE = 4 }'
has_line enum-param "$d" 'func int tl_set_mode(tl_t *t, tl_mode mode, unsigned flags) error < 0;'
has_line defines "$d" 'enum consts_tl_ok { TL_OK = 0, TL_ERR_NOMEM = -1, TL_ERR_ARG = -2 }'
has_line define-flags "$d" 'flags consts_tl_opt_a { TL_OPT_A = 1, TL_OPT_B = 2, TL_OPT_C = 4 }'
has_line dict "$d" 'dict "1.2";'
has_line string "$d" 'func size_t tl_len(string s);'
has_line fnptr "$d" \
  "# not expressible: tl_each: parameter 'cb' is a function pointer (a \`callback\`, docs/grammar.md 3.7)"
has_line fnptr-proto "$d" '#   int tl_each(tl_t *t, int (*)(void *, int) cb, void *ctx);'
# To standard output without -o, the same draft.
"$sf" init "$work/src/tl.h" >"$work/stdout.api" 2>/dev/null
grep -qxF 'handle tl_t;' "$work/stdout.api" && pass stdout || fail stdout

# Help, usage, errors.
expect help 0 "^usage: seqfuzz init HEADER\.\.\." -- "$sf" init --help
expect help-probe 0 "--probe +call each function" -- "$sf" help init
expect no-header 2 "no header given" -- "$sf" init -o "$work/x.api"
expect missing 1 "^seqfuzz: $work/none\.h: cannot open file$" -- "$sf" init "$work/none.h"
[ ! -e "$work/x.api" ] && pass missing-no-output || fail missing-no-output
printf 'int broken(;\n' >"$work/bad.h"
expect unparsable 1 "the headers do not parse \(2 errors\): give include directories" -- \
  "$sf" init "$work/bad.h"
grep -q "^seqfuzz: $work/bad.h:1:12: error: " "$work/out" && pass unparsable-where || fail unparsable-where
expect probe-no-lib 2 "--probe needs --lib" -- "$sf" init "$work/src/tl.h" --probe

# --probe: a child per call; tl_len(NULL) crashes, the others do not.
clang-14 -shared -fPIC -o "$work/libtl.so" "$work/src/tl.c" || fail "build libtl.so"
expect probe 0 "probed 8 functions in .*: 0 crashed on trivial arguments, 1 with a NULL argument" -- \
  "$sf" init "$work/src/tl.h" --lib "$work/libtl.so" --probe -o "$work/tlp.api"
if grep -B1 -xF 'func size_t tl_len(string s);' "$work/tlp.api" |
  grep -qxE '# probe: crashed \((SEGV|SIGSEGV)\) with NULL s; nonnull\? or a precondition'; then
  pass probe-flags-deref
else fail probe-flags-deref; cat "$work/tlp.api"; fi
n=$(grep -c '^# probe:' "$work/tlp.api")
[ "$n" = 1 ] && pass probe-only-that || { fail "probe-only-that: $n probe comments"; grep '^# probe' "$work/tlp.api"; }
has_line probe-library "$work/tlp.api" 'library "libtl.so";'
expect probe-check 0 "API 'tl' ok" -- "$sf" check "$work/tlp.api"

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
