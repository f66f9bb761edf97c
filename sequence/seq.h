/* seq.h: operation sequences, their lifetime rules, and their two encodings.
 *
 * An sf_seq is a list of calls of an API's functions. Each call has one sf_arg
 * per parameter of its function (out and length parameters have empty args:
 * they are produced or derived at execution). Every handle a call produces (a
 * handle result, an `out T **` parameter) gets the next value id; a handle
 * argument refers to a value id of an earlier call, or is SF_NULL_REF.
 *
 * A sequence is *valid* when every argument satisfies its parameter's type and
 * precondition, every handle argument names a value that is alive at that
 * point (see sf_life), no call breaks the consume rule (see
 * sf_call_consume_conflict), and none breaks a `requires` its arguments
 * alone decide (see sf_call_requires_failing). Every function that produces a sequence from
 * outside (decode, text parse, repair) produces a valid one;
 * sf_seq_validate() checks.
 *
 * Two encodings:
 *  - binary (what the fuzzing engines store): total and canonical; any byte
 *    string decodes to a valid sequence or is rejected for a wrong header;
 *  - text (what people read and write seeds in): `h1 = kv_open(16);`.
 * Both round-trip exactly. */
#ifndef SF_SEQ_H
#define SF_SEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../base/sf_buf.h"
#include "../grammar/api.h"

#define SF_NULL_REF        UINT64_MAX
#define SF_SEQ_MAX_CALLS   1024  /* decoding ignores calls past this many */
#define SF_MAX_STRING      4096  /* longest string argument, in bytes */
#define SF_MAX_FILE        65536 /* largest memfile or memfd, in bytes */
#define SF_FORMAT_VERSION  1
#define SF_HEADER_OBSERVED 0x80 /* in the version byte: sf_seq.observed */

typedef struct sf_arg {
  /* Integers sign-extended to 64 bits; bool 0/1; floats as their bit pattern
   * (f32 in the low 32 bits); enum: index of the constant; flags: bit mask of
   * constant indexes; handle: value id or SF_NULL_REF. */
  uint64_t bits;
  /* Strings, buffers, arrays: bytes in seq->blob (strings without the NUL);
   * for a nullable string, bits == 1 means NULL. */
  uint32_t off, len;
} sf_arg;

typedef struct sf_call {
  uint32_t func;
  uint32_t arg0; /* index of the first of this call's args */
  uint32_t val0; /* first value id this call produces */
} sf_call;

typedef struct sf_value {
  uint32_t call;
  int32_t param; /* -1: the result; else the out parameter's index */
  uint32_t htype;
} sf_value;

typedef struct sf_seq {
  const sf_api *api;
  sf_call *calls;
  uint32_t ncalls, callcap;
  sf_arg *args;
  uint32_t nargs, argcap;
  sf_value *vals;
  uint32_t nvals, valcap;
  sf_buf blob;
  /* Run it as the runs that observe do: every live value's state observers
   * are called at its end, before the cleanup (harness/feedback.h). Set on
   * inputs found by such runs (AFL++'s, the mutator's probes), so that a
   * crash inside an observer replays from the input alone; plain libFuzzer
   * runs leave it clear, so replays of their crashes stay plain too. */
  bool observed;
  /* Private scratch of the codec and repair, kept to avoid allocating on
   * every call (so a sequence is not safe to use from two threads at once). */
  struct sf_seq_work *work;
} sf_seq;

void sf_seq_init(sf_seq *s, const sf_api *api);
void sf_seq_free(sf_seq *s);
void sf_seq_clear(sf_seq *s);                    /* keep the storage */
int sf_seq_copy(sf_seq *dst, const sf_seq *src); /* dst initialized; -1 on OOM */

/* Append a call of function `func`; returns its args (all zero; handle args
 * SF_NULL_REF) to fill in, valid until the next append. NULL on OOM. The caller
 * is responsible for validity (or calls sf_seq_repair afterwards). */
sf_arg *sf_seq_add_call(sf_seq *s, uint32_t func);
/* Store bytes for a string/buffer/array argument. -1 on OOM. */
int sf_seq_set_bytes(sf_seq *s, sf_arg *a, const void *data, size_t len);
/* Copy call `ci` of `src` (same API) to the end of dst, mapping handle args
 * through map[src value id] (SF_NULL_REF entries stay null). NULL on OOM. */
sf_arg *sf_seq_append_from(sf_seq *dst, const sf_seq *src, uint32_t ci, const uint64_t *map);

static inline sf_arg *sf_seq_args(const sf_seq *s, uint32_t ci) {
  return &s->args[s->calls[ci].arg0];
}
static inline const uint8_t *sf_seq_bytes(const sf_seq *s, const sf_arg *a) {
  return s->blob.data ? s->blob.data + a->off : (const uint8_t *)"";
}
static inline const sf_func *sf_seq_func(const sf_seq *s, uint32_t ci) {
  return &s->api->funcs[s->calls[ci].func];
}

/* dst = src without call `skip` and without the calls that depended on what
 * it produced (dst is repaired, so valid). -1 on OOM. */
int sf_seq_without_call(const sf_seq *src, uint32_t skip, sf_seq *dst);

/* Keep only the first n calls (a prefix of a valid sequence is valid). */
void sf_seq_truncate(sf_seq *s, uint32_t n);

/* Legal length, in elements, of buffer parameter p of f (from the range of
 * its length parameter, at most 1 MiB). */
void sf_seq_buffer_bounds(const sf_func *f, const sf_param *p, uint64_t *lo, uint64_t *hi);

/* The value of a float argument's bits (f32 in the low 32 bits) as a double. */
static inline double sf_float_value(sf_kind k, uint64_t bits) {
  if (k == SF_F32) {
    float f;
    uint32_t b = (uint32_t)bits;
    memcpy(&f, &b, 4);
    return f;
  }
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

bool sf_seq_equal(const sf_seq *a, const sf_seq *b);
/* Hash of the sequence's meaning (equal sequences hash equally). */
uint64_t sf_seq_hash(const sf_seq *s);

/* ---- lifetimes ----------------------------------------------------------
 * The static lifetime rules, applied call by call: a value dies when it is
 * consumed (a `consume` parameter, a destructor), when its owner dies, or
 * when a function in its producer's invalidated_by list is called with its
 * owner as an argument. */
typedef struct sf_life {
  const sf_api *api;
  uint8_t *alive;
  uint32_t *owner; /* value id of the owner, or UINT32_MAX */
  uint32_t *htype;
  uint32_t *producer; /* function index */
  uint32_t *dependee; /* `depends_on`: value id it must not outlive, or UINT32_MAX */
  uint32_t *locker;   /* `locks`: the value that has it to itself, or UINT32_MAX */
  uint32_t n, cap;
  uint32_t nowned;     /* values with an owner ever pushed (0: skip ownership work) */
  uint32_t ndependent; /* values with a dependee ever pushed */
} sf_life;

void sf_life_init(sf_life *l, const sf_api *api);
void sf_life_free(sf_life *l);
void sf_life_clear(sf_life *l);
/* Alive, of type htype, and not locked by a live value (`locks`). */
bool sf_life_usable(const sf_life *l, uint64_t vid, uint32_t htype);
/* Alive values of handle type htype, most recent first. Returns the count
 * (may exceed cap; only cap are written). */
uint32_t sf_life_candidates(const sf_life *l, uint32_t htype, uint32_t *out, uint32_t cap);
/* The index of vid among those candidates (the encoding's handle choice;
 * SF_NULL_REF: their count, NULL being the last option), or UINT32_MAX
 * when vid is not one of them. */
uint32_t sf_life_choice(const sf_life *l, uint64_t vid, uint32_t htype);
/* Apply the effects of a call of `func` with `args` (already checked usable):
 * kill consumed and invalidated values, then add the produced values. -1 on OOM. */
int sf_life_apply(sf_life *l, uint32_t func, const sf_arg *args);
/* The same for a call that failed by a `recoverable` error convention: what
 * it would have made exists (the executor holds NULL for it); nothing was
 * consumed, invalidated, locked or rebound. */
int sf_life_apply_failed(sf_life *l, uint32_t func, const sf_arg *args);

/* ---- validity ----------------------------------------------------------- */

/* The consume rule: what a call consumes (a `consume` parameter, a
 * destructor's handle) must be the caller's to give, and nothing else the
 * call is handed may go with it. Broken when a consumed handle
 *  - is also passed as another argument (kv_merge(h1, h1)): the callee
 *    would use what it was given to free;
 *  - is owned by another value (owned_by, transitively): its owner frees it
 *    again (a double free of the grammar's making);
 *  - owns, directly or through owned values, another argument: freeing the
 *    owner frees that argument while the callee is handed it;
 *  - has a live dependent (`depends_on`), itself or through a value it owns:
 *    the dependent must be destroyed first. */
typedef enum sf_consume_conflict {
  SF_CONSUME_OK = 0,
  SF_CONSUME_TWICE,      /* a consumed handle is also another argument */
  SF_CONSUME_OWNED,      /* a consumed handle is owned by another value */
  SF_CONSUME_OWNS_OTHER, /* another argument is owned by a consumed handle */
  SF_CONSUME_DEPENDED,   /* a live value depends on the consumed handle */
} sf_consume_conflict;

/* Check a call of f with args (handle args usable) against the consume rule,
 * ownership taken from l, the lifetimes just before the call. On a conflict,
 * *consumed (if not NULL) is the index of the consumed parameter and *other
 * (if not NULL) that of the other argument (TWICE, OWNS_OTHER) or the
 * consumed one again (OWNED, DEPENDED). */
sf_consume_conflict sf_call_consume_conflict(const sf_life *l, const sf_func *f, const sf_arg *args,
                                             uint32_t *consumed, uint32_t *other);

/* Does `bits` satisfy the precondition and canonical form of parameter p
 * (a primitive: int, bool, float, enum, flags)? */
bool sf_arg_prim_ok(const sf_api *api, const sf_param *p, uint64_t bits);
/* Map any bits to a legal canonical value of primitive parameter p; legal
 * canonical values map to themselves. */
uint64_t sf_arg_prim_repair(const sf_api *api, const sf_param *p, uint64_t bits);

/* ---- printf formats (seq_printf.c) --------------------------------------
 * A `printf` parameter's value is a format whose conversions carry their
 * arguments in braces: "%d{42} of %.3s{abc}" means printf("%d of %.3s", 42,
 * "abc"). sf_printf_parse turns any bytes into a format and arguments that
 * match (legal by construction): conversions it cannot pass (%n, %p, '*'
 * widths, long double) become literal "%%"; a missing argument is 0 or "".
 * Arguments: 'i' int, 'u' unsigned, 'l' long, 'L' unsigned long, 'd'
 * double, 's' a string (str/len point into the parsed bytes, no NUL).
 * Dialect `sqlite` (sqlite3_mprintf and friends): also %q %Q %w (strings)
 * and the flags '!' and ','; length modifiers only l and ll; no %F %a %A
 * (and never %z, %p, %n, which read what seqfuzz cannot pass). */
#define SF_PRINTF_MAX_ARGS 16
typedef struct sf_printf_arg {
  char kind;
  char mod[3]; /* its length modifier ("", "l", "ll", "z", ...) */
  uint64_t bits;
  double d;
  const char *str;
  size_t len;
} sf_printf_arg;

typedef struct sf_printf {
  char format[2 * SF_MAX_STRING + 1]; /* NUL-terminated; '%' doubles at most */
  size_t flen;
  sf_printf_arg args[SF_PRINTF_MAX_ARGS];
  uint32_t nargs;
} sf_printf;

void sf_printf_parse(const uint8_t *s, size_t n, bool sqlite, sf_printf *out);

/* The preconditions (`requires`) of a call of function fi with args, as far
 * as the arguments alone decide them (seq_requires.c): the index of the
 * first one known to be false (lo > hi, the same handle for a != b), or -1.
 * Parts that read observers are unknown here and checked at run time. */
int32_t sf_call_requires_failing(const sf_seq *s, uint32_t fi, const sf_arg *args);
static inline bool sf_call_requires_possible(const sf_seq *s, uint32_t fi, const sf_arg *args) {
  return sf_call_requires_failing(s, fi, args) < 0;
}

/* Check every invariant. 0 if valid; else -1 with a message naming the call. */
int sf_seq_validate(const sf_seq *s, char *err, size_t errlen);

/* Make s valid in place: primitives repaired, buffers resized to fit their
 * length constraints, calls whose handle args are not usable or break the
 * consume rule or a `requires` the arguments decide dropped (with the calls that depended on what
 * they produced). Returns the number of calls dropped, or -1 on OOM. */
int sf_seq_repair(sf_seq *s);

/* ---- binary encoding ----------------------------------------------------
 * Header: 'S', SF_FORMAT_VERSION (| SF_HEADER_OBSERVED), API fingerprint
 * (u32 LE); then calls:
 * function index (varint, taken modulo the number of functions), then each
 * input parameter: integers/floats as little-endian bytes of their width,
 * bool 1 byte, enum index / flags mask / handle choice as varints, strings and
 * buffers as a varint length then bytes, arrays as their fixed bytes. A
 * handle choice is an index into the alive values of the right type, most
 * recent first (plus NULL last when nullable), taken modulo their number. */
typedef enum sf_decode_status {
  SF_DECODE_OK = 0,
  SF_DECODE_REJECT = 1, /* too short, wrong magic, version or fingerprint */
  SF_DECODE_OOM = 2,
} sf_decode_status;

#define SF_HEADER_SIZE 6

/* Decode into s (initialized, cleared first). Trailing bytes that do not form
 * a whole call are ignored; a call whose handle argument has no candidate, or
 * whose handle choices break the consume rule, is dropped. Never reads past
 * size; never fails on content. */
sf_decode_status sf_seq_decode(sf_seq *s, const sf_api *api, const uint8_t *data, size_t size);
/* Encode a valid sequence canonically (appends to out). -1 on OOM. */
int sf_seq_encode(const sf_seq *s, sf_buf *out);
/* sf_seq_validate and sf_seq_encode in one pass, for a sequence that may not
 * be valid: 0 when it is and its encoding was appended; 1 when it is not
 * (out then ends with part of an encoding, for the caller to cut); -1 on
 * OOM. */
int sf_seq_encode_checked(const sf_seq *s, sf_buf *out);
/* Write just the header for api (of a sequence that is not `observed`). */
int sf_seq_encode_header(const sf_api *api, sf_buf *out);

/* ---- text form ----------------------------------------------------------
 *   h1 = kv_open(16, KV_SYNC|KV_CHECK);
 *   kv_put(h1, "key", x"00ff");        # length parameters are left out
 *   kv_iter_open(h1, &h2);             # out handles bind a name; &_ for numbers
 *   kv_close(h1);
 * A line `observe_at_end;` marks an `observed` sequence.
 * Names are any identifiers; sf_seq_print names handle value id i `h<i+1>`. */
int sf_seq_print(const sf_seq *s, sf_buf *out);
/* Print one call (no newline). */
int sf_seq_print_call(const sf_seq *s, uint32_t ci, sf_buf *out);
/* Print bytes as a string literal of the text form ("a\"b\x01"). */
int sf_seq_print_string(sf_buf *out, const uint8_t *d, size_t n);
/* The inverse: the bytes of one string or x"hex" literal that is all of
 * text (surrounding blanks allowed), appended to out. -1 if text is
 * anything else or on OOM. */
int sf_seq_parse_string(const char *text, size_t len, sf_buf *out);
/* Parse text into s (initialized, cleared first). On error returns -1 with
 * `path:line:col: message` in err; the sequence is then unspecified. */
int sf_seq_parse_text(sf_seq *s, const sf_api *api, const char *text, size_t len, const char *path,
                      char *err, size_t errlen);

#endif
