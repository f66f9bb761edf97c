#include "cmp_trace.h"

#include "base/sf_hash.h"

#include <stdbool.h>
#include <string.h>

#define NO_COV __attribute__((no_sanitize("coverage")))

/* ---- constants mode ---- */
#define MAX_NOTED 64
static uint64_t noted[MAX_NOTED];
static uint32_t nnoted;
static bool noting;
/* Neither noting nor recording, every comparison forwarded: most runs. The
 * wrappers test this one flag and jump to the engine's callback, so a plain
 * run pays one load per comparison (update_quiet after each mode change). */
static bool quiet = true;
static void update_quiet(void);

/* Constants worth a mutator's time: not the small numbers it tries anyway.
 * Callers check `noting` first: most runs note nothing, and the check is
 * cheaper than the call (every comparison of the target comes here). */
/* A comparison in a loop notes the same constant again and again: a
 * direct-mapped filter of the last constant per slot answers most repeats
 * without the scan of noted[] (cleared per run). */
static uint64_t recent[256];
static uint64_t separators[4];
/* Switches whose cases this run noted already (direct-mapped by site): a
 * parser's big switch runs once per byte, its cases are the same each time. */
static uint64_t switch_noted[256];

/* Space and punctuation: the bytes that split a list or a record. */
NO_COV static bool is_separator(uint8_t c) {
  return c == '\t' || c == '\n' || (c >= ' ' && c <= '/') || (c >= ':' && c <= '@') ||
         (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

NO_COV static void note(uint64_t c) {
  /* Full: nothing more can be noted (a parser compares with more constants
   * than that, and the scan below would run on every comparison). */
  if (nnoted == MAX_NOTED || c < 256 || c == UINT64_MAX || c == UINT32_MAX) return;
  uint64_t *slot = &recent[(c * 0x9E3779B97F4A7C15ull) >> 56];
  if (*slot == c) return;
  *slot = c;
  for (uint32_t i = 0; i < nnoted; i++)
    if (noted[i] == c) return;
  if (nnoted < MAX_NOTED) noted[nnoted++] = c;
}

/* The last answer a mock gave, watched for the next WATCH_WINDOW
 * comparisons only: the code that checks an answer runs right after the
 * callback returns, and a value compared much later is more likely a loop
 * counter that happens to be equal. What it was compared with: answer_cmps. */
#define WATCH_WINDOW 16
static uint64_t watched, answer_cmps[MAX_NOTED][2];
static uint32_t watch_left, nanswer_cmps;

/* The integer arguments of the calls made so far in the run (while
 * noting), and the pairs {argument, value to try in its place} their
 * comparisons gave (cmp_trace.h: sf_cmp_trace_watch_arg). A comparison
 * site in a loop notes its first unequal comparison only (a counter
 * walking up to an argument would fill the pairs with each step) for each
 * argument, but every equal one: the boundary an inequality turns on. */
#define MAX_WATCHED_ARGS 16
static uint64_t watched_args[MAX_WATCHED_ARGS], arg_cmps[MAX_NOTED][2];
static bool arg_cmp_const[MAX_NOTED]; /* the pair came from a comparison with a constant */
static uint32_t nwatched_args, narg_cmps;
/* (site, argument) that noted an unequal pair this run, direct-mapped. */
static uint64_t arg_sites[256];

/* Byte comparisons that came out unequal while noting (cmp_trace.h). */
#define MAX_BYTES_CMPS 16
static sf_bytes_cmp bytes_cmps[MAX_BYTES_CMPS];
static uint32_t nbytes_cmps;

void sf_cmp_trace_begin(void) {
  memset(recent, 0, sizeof recent);
  memset(switch_noted, 0, sizeof switch_noted);
  memset(separators, 0, sizeof separators);
  memset(arg_sites, 0, sizeof arg_sites);
  nnoted = watch_left = nanswer_cmps = nbytes_cmps = nwatched_args = narg_cmps = 0;
  noting = true;
  update_quiet();
}

void sf_cmp_trace_watch_answer(uint64_t answer) {
  if (!noting || answer == 0) return;
  watched = answer;
  watch_left = WATCH_WINDOW;
}

NO_COV static void note_answer_pair(uint64_t c) {
  for (uint32_t k = 0; k < nanswer_cmps; k++)
    if (answer_cmps[k][0] == watched && answer_cmps[k][1] == c) return;
  if (nanswer_cmps == MAX_NOTED) return;
  answer_cmps[nanswer_cmps][0] = watched;
  answer_cmps[nanswer_cmps++][1] = c;
}

/* v (width bytes) was compared with c: is v the watched answer? Then note c.
 * An answer equal to what it was compared with (`r > 100` or `r == 100`
 * with r = 100) notes its neighbours instead, as Redqueen does: the other
 * side of that branch is one away. */
NO_COV static void note_answer_cmp(uint64_t c, uint64_t v, unsigned width) {
  uint64_t mask = width == 8 ? UINT64_MAX : (1ull << (8 * width)) - 1;
  if (((watched ^ v) & mask) != 0) return;
  if (((c ^ v) & mask) == 0) {
    note_answer_pair((c + 1) & mask);
    note_answer_pair((c - 1) & mask);
    return;
  }
  note_answer_pair(c & mask);
}

void sf_cmp_trace_watch_arg(uint64_t value) {
  if (!noting || value == 0 || nwatched_args == MAX_WATCHED_ARGS) return;
  for (uint32_t k = 0; k < nwatched_args; k++)
    if (watched_args[k] == value) return;
  watched_args[nwatched_args++] = value;
}

NO_COV static void note_arg_pair(uint64_t arg, uint64_t value, bool constant) {
  for (uint32_t k = 0; k < narg_cmps; k++)
    if (arg_cmps[k][0] == arg && arg_cmps[k][1] == value) {
      arg_cmp_const[k] &= constant;
      return;
    }
  if (narg_cmps == MAX_NOTED) return;
  arg_cmp_const[narg_cmps] = constant;
  arg_cmps[narg_cmps][0] = arg;
  arg_cmps[narg_cmps++][1] = value;
}

/* v (width bytes) was compared with c at site: if v is a watched argument,
 * note c and its neighbours (the predicate is unknown: `v < c` turns at c,
 * `v <= c` at c + 1), or only the neighbours when v equals c. A value goes
 * into the argument's representation: sign-extended from the comparison's
 * width when the argument is negative there. */
NO_COV static void note_arg_cmp(uint64_t site, uint64_t c, uint64_t v, unsigned width,
                                bool constant) {
  uint64_t mask = width == 8 ? UINT64_MAX : (1ull << (8 * width)) - 1;
  bool equal = ((c ^ v) & mask) == 0;
  for (uint32_t k = 0; k < nwatched_args; k++) {
    uint64_t arg = watched_args[k];
    if (((arg ^ v) & mask) != 0) continue;
    if (!equal) {
      uint64_t key = site ^ arg * 0x9E3779B97F4A7C15ull,
               *slot = &arg_sites[(key * 0xff51afd7ed558ccdull) >> 56];
      if (*slot == key) continue;
      *slot = key;
    }
    bool negative = width < 8 && (arg & ~mask) == ~mask;
    for (int d = equal ? 1 : 0; d <= 2; d++) {
      uint64_t t = (c + (d == 1 ? 1 : d == 2 ? UINT64_MAX : 0)) & mask;
      if (negative && (t >> (8 * width - 1) & 1)) t |= ~mask;
      if (t != arg) note_arg_pair(arg, t, constant);
    }
  }
}

/* Pairs handed out before, by their hash (direct-mapped): the next runs hand
 * out new pairs first. Every entry that calls the same mock notes the same
 * pairs first (a reader's answer compared with 0), which would fill the
 * record before the pairs of a mock called later in the run; the same
 * comparison of bytes comes back in most entries (a parser's keyword
 * check). One table per kind of pair. */
#define HANDED_OUT 1024
static uint64_t answers_handed_out[HANDED_OUT], bytes_handed_out[HANDED_OUT],
    args_handed_out[HANDED_OUT];

/* The order in which to hand out n pairs of these hashes (not 0), at most
 * cap: those not handed out before first; order[] receives their indices. */
NO_COV static uint32_t new_first(const uint64_t *hash, uint32_t n, uint64_t *handed, uint32_t cap,
                                 uint32_t *order) {
  uint32_t k = 0;
  bool taken[MAX_NOTED] = {false};
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < n && k < cap; i++) {
      uint64_t *slot = &handed[hash[i] % HANDED_OUT];
      if (taken[i] || (pass == 0 && *slot == hash[i])) continue;
      *slot = hash[i];
      taken[i] = true;
      order[k++] = i;
    }
  return k;
}

/* Up to cap of the n pairs, new ones first, into out. */
NO_COV static uint32_t hand_out_pairs(const uint64_t (*pairs)[2], uint32_t n, uint64_t *handed,
                                      uint64_t (*out)[2], uint32_t cap) {
  uint64_t hash[MAX_NOTED];
  uint32_t order[MAX_NOTED];
  for (uint32_t i = 0; i < n; i++)
    hash[i] = sf_hash_mix(pairs[i][0], pairs[i][1]) | 1; /* 0: empty */
  uint32_t k = new_first(hash, n, handed, cap, order);
  for (uint32_t i = 0; i < k; i++)
    memcpy(out[i], pairs[order[i]], sizeof *out);
  return k;
}

uint32_t sf_cmp_trace_answer_cmps(uint64_t (*out)[2], uint32_t cap) {
  return hand_out_pairs(answer_cmps, nanswer_cmps, answers_handed_out, out, cap);
}

uint32_t sf_cmp_trace_arg_cmps(uint64_t (*out)[2], uint32_t cap) {
  uint64_t var[MAX_NOTED][2], con[MAX_NOTED][2];
  uint32_t nvar = 0, ncon = 0;
  for (uint32_t i = 0; i < narg_cmps; i++)
    memcpy(arg_cmp_const[i] ? con[ncon++] : var[nvar++], arg_cmps[i], sizeof *arg_cmps);
  uint32_t n = hand_out_pairs(var, nvar, args_handed_out, out, cap);
  return n + hand_out_pairs(con, ncon, args_handed_out, out + n, cap - n);
}

uint32_t sf_cmp_trace_bytes_cmps(sf_bytes_cmp *out, uint32_t cap) {
  uint64_t hash[MAX_BYTES_CMPS];
  uint32_t order[MAX_BYTES_CMPS];
  for (uint32_t i = 0; i < nbytes_cmps; i++) /* the unused bytes are zero */
    hash[i] = sf_hash_bytes(&bytes_cmps[i], sizeof *bytes_cmps, 0) | 1;
  uint32_t n = new_first(hash, nbytes_cmps, bytes_handed_out, cap, order);
  for (uint32_t k = 0; k < n; k++)
    out[k] = bytes_cmps[order[k]];
  return n;
}

uint32_t sf_cmp_trace_end(uint64_t *out, uint32_t cap) {
  noting = false;
  update_quiet();
  uint32_t n = nnoted < cap ? nnoted : cap;
  for (uint32_t i = 0; i < n; i++)
    out[i] = noted[i];
  return n;
}

void sf_cmp_trace_separators(uint64_t set[4]) {
  memcpy(set, separators, sizeof separators);
}

/* ---- records mode ---- */
static sf_cmp_record records[SF_CMP_MAX_RECORDS];
static uint32_t nrecords;
static uint32_t current_call;
static bool recording;

/* Occurrences per (site, call) in this run: open addressing, cleared per run
 * through the list of used slots. */
#define SLOTS 8192
static struct {
  uint64_t site; /* 0: free */
  uint32_t call, count;
} slots[SLOTS];
static uint32_t used[SLOTS], nused;

NO_COV static uint32_t *occurrences(uint64_t site) {
  uint32_t h = (uint32_t)(((site ^ ((uint64_t)current_call << 40)) * 0x9E3779B97F4A7C15ull) >> 51);
  for (uint32_t i = 0; i < SLOTS; i++, h = (h + 1) & (SLOTS - 1)) {
    if (slots[h].site == site && slots[h].call == current_call) return &slots[h].count;
    if (!slots[h].site) {
      if (nused >= SLOTS / 2) return NULL; /* full enough: stop recording new sites */
      slots[h].site = site;
      slots[h].call = current_call;
      slots[h].count = 0;
      used[nused++] = h;
      return &slots[h].count;
    }
  }
  return NULL;
}

NO_COV static void record(uint64_t site, uint64_t a, uint64_t b, uint8_t width, uint8_t kind) {
  if (!recording || nrecords >= SF_CMP_MAX_RECORDS) return;
  uint32_t *n = occurrences(site);
  if (!n || *n >= SF_CMP_MAX_OCCURRENCES) return;
  sf_cmp_record *r = &records[nrecords++];
  r->site = site;
  r->a = a;
  r->b = b;
  r->call = current_call;
  r->occurrence = (uint16_t)(*n)++;
  r->width = width;
  r->kind = kind;
}

void sf_cmp_trace_begin_records(void) {
  for (uint32_t i = 0; i < nused; i++)
    slots[used[i]].site = 0;
  nused = 0;
  nrecords = 0;
  current_call = 0;
  recording = true;
  update_quiet();
}

void sf_cmp_trace_set_call(uint32_t call) {
  current_call = call;
}

uint32_t sf_cmp_trace_end_records(const sf_cmp_record **out) {
  recording = false;
  update_quiet();
  *out = records;
  return nrecords;
}

/* ---- the wrappers ---- */
/* The engines' own callbacks, reached through --wrap. */
void __real___sanitizer_cov_trace_cmp1(uint8_t a, uint8_t b);
void __real___sanitizer_cov_trace_cmp2(uint16_t a, uint16_t b);
void __real___sanitizer_cov_trace_cmp4(uint32_t a, uint32_t b);
void __real___sanitizer_cov_trace_cmp8(uint64_t a, uint64_t b);
void __real___sanitizer_cov_trace_const_cmp1(uint8_t a, uint8_t b);
void __real___sanitizer_cov_trace_const_cmp2(uint16_t a, uint16_t b);
void __real___sanitizer_cov_trace_const_cmp4(uint32_t a, uint32_t b);
void __real___sanitizer_cov_trace_const_cmp8(uint64_t a, uint64_t b);
void __real___sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases);

#define SITE() ((uint64_t)(uintptr_t)__builtin_return_address(0))

static bool to_engine = true;

void sf_cmp_trace_forward(bool on) {
  to_engine = on;
  update_quiet();
}

static void update_quiet(void) {
  quiet = !noting && !recording && to_engine;
}

/* Each wrapper: the quiet case jumps straight to the engine, a tail call
 * the compiler must make (at -O1, as OSS-Fuzz builds, it made a call: a
 * frame more per comparison, and the engine saw the wrapper as every
 * comparison's caller); the rest jumps to its out-of-line part, whose
 * return address is then the comparison's own (its site). With nothing
 * but tail calls, a wrapper needs no frame (built -fomit-frame-pointer): a
 * test and a jump. */
#if defined(__clang__) && __clang_major__ >= 13
#define TAIL_CALL(call)                                                                            \
  _Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Wpedantic\"")              \
      __attribute__((musttail)) return call;                                                       \
  _Pragma("clang diagnostic pop")
/* The out-of-line part must not be inlined: its return address is the site. */
#define TRACED_PART NO_COV __attribute__((noinline)) static
#else
/* No tail calls: the part is inlined, where __builtin_return_address(0)
 * is the wrapper's, the site all the same. */
#define TAIL_CALL(call)                                                                            \
  do {                                                                                             \
    call;                                                                                          \
    return;                                                                                        \
  } while (0)
#define TRACED_PART NO_COV __attribute__((always_inline)) static inline
#endif
#define WRAP(n, T)                                                                                 \
  TRACED_PART void traced_cmp##n(T a, T b) {                                                       \
    if (noting && watch_left) {                                                                    \
      watch_left--;                                                                                \
      note_answer_cmp(a, b, n);                                                                    \
      note_answer_cmp(b, a, n);                                                                    \
    }                                                                                              \
    if (noting && nwatched_args) {                                                                 \
      note_arg_cmp(SITE(), a, b, n, false);                                                        \
      note_arg_cmp(SITE(), b, a, n, false);                                                        \
    }                                                                                              \
    if (recording) record(SITE(), a, b, n, SF_TRACE_VAR);                                          \
    if (to_engine) __real___sanitizer_cov_trace_cmp##n(a, b);                                      \
  }                                                                                                \
  NO_COV void __wrap___sanitizer_cov_trace_cmp##n(T a, T b) {                                      \
    if (__builtin_expect(!quiet, 0)) {                                                             \
      TAIL_CALL(traced_cmp##n(a, b));                                                              \
    }                                                                                              \
    TAIL_CALL(__real___sanitizer_cov_trace_cmp##n(a, b));                                          \
  }                                                                                                \
  TRACED_PART void traced_const_cmp##n(T a, T b) {                                                 \
    if (noting) { /* the first argument is the compile-time constant */                            \
      if (n > 1)                                                                                   \
        note(a);                                                                                   \
      else if (is_separator((uint8_t)a))                                                           \
        separators[(uint8_t)a / 64] |= 1ull << ((uint8_t)a % 64);                                  \
      if (watch_left) {                                                                            \
        watch_left--;                                                                              \
        note_answer_cmp(a, b, n);                                                                  \
      }                                                                                            \
      if (nwatched_args) note_arg_cmp(SITE(), a, b, n, true);                                      \
    }                                                                                              \
    if (recording) record(SITE(), a, b, n, SF_TRACE_CONST);                                        \
    if (to_engine) __real___sanitizer_cov_trace_const_cmp##n(a, b);                                \
  }                                                                                                \
  NO_COV void __wrap___sanitizer_cov_trace_const_cmp##n(T a, T b) {                                \
    if (__builtin_expect(!quiet, 0)) {                                                             \
      TAIL_CALL(traced_const_cmp##n(a, b));                                                        \
    }                                                                                              \
    TAIL_CALL(__real___sanitizer_cov_trace_const_cmp##n(a, b));                                    \
  }
WRAP(1, uint8_t)
WRAP(2, uint16_t)
WRAP(4, uint32_t)
WRAP(8, uint64_t)
#undef WRAP

TRACED_PART void traced_switch(uint64_t val, uint64_t *cases) {
  uint64_t site = SITE();
  /* cases[0]: number of cases, cases[1]: bit width, then the case values. */
  uint8_t width = (uint8_t)(cases[1] / 8);
  uint64_t n = cases[0] < 64 ? cases[0] : 64;
  if (noting) {
    uint64_t *seen = &switch_noted[(site * 0x9E3779B97F4A7C15ull) >> 56];
    bool new_site = *seen != site;
    *seen = site;
    for (uint64_t i = 0; i < n && (new_site || watch_left); i++) {
      if (new_site) note(cases[2 + i]);
      if (watch_left) note_answer_cmp(cases[2 + i], val, width);
    }
  }
  /* Every case is recorded as often as the switch runs: the switch's own
   * count (its site) stops them all at once. */
  uint32_t *runs = recording ? occurrences(site) : NULL;
  if (runs && *runs < SF_CMP_MAX_OCCURRENCES) {
    ++*runs;
    for (uint64_t i = 0; i < n; i++)
      record(site ^ ((i + 1) << 56), cases[2 + i], val, width, SF_TRACE_SWITCH);
  }
  if (to_engine) __real___sanitizer_cov_trace_switch(val, cases);
}

NO_COV void __wrap___sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases) {
  if (__builtin_expect(!quiet, 0)) {
    TAIL_CALL(traced_switch(val, cases));
  }
  TAIL_CALL(__real___sanitizer_cov_trace_switch(val, cases));
}

/* ---- byte comparisons ---- */
/* libc's compare functions, reached through --wrap: every call of the
 * program's own code (the library's, and seqfuzz's and the engine's, which
 * are not noted: they compare nothing while a probe runs). The sanitizers'
 * interceptors behind them check the ranges and tell the engine. */
int __real_memcmp(const void *a, const void *b, size_t n);
int __real_strcmp(const char *a, const char *b);
int __real_strncmp(const char *a, const char *b, size_t n);
int __real_strcasecmp(const char *a, const char *b);
int __real_strncasecmp(const char *a, const char *b, size_t n);

/* Note the pair (a[0..na), b[0..nb)), each cut to SF_CMP_BYTES. The
 * interceptor has checked both ranges (a string's up to its NUL, memcmp's
 * n bytes under ASan's strict_memcmp, its default). */
NO_COV __attribute__((no_sanitize("address", "undefined"))) static void
note_bytes(const void *a, size_t na, const void *b, size_t nb) {
  static bool inside; /* the compares below are not the target's */
  if (inside || nbytes_cmps == MAX_BYTES_CMPS || (na == 0 && nb == 0)) return;
  inside = true;
  sf_bytes_cmp c;
  memset(&c, 0, sizeof c);
  c.len[0] = (uint8_t)(na < SF_CMP_BYTES ? na : SF_CMP_BYTES);
  c.len[1] = (uint8_t)(nb < SF_CMP_BYTES ? nb : SF_CMP_BYTES);
  memcpy(c.side[0], a, c.len[0]);
  memcpy(c.side[1], b, c.len[1]);
  uint32_t k = 0;
  while (k < nbytes_cmps && memcmp(&bytes_cmps[k], &c, sizeof c) != 0)
    k++;
  if (k == nbytes_cmps) bytes_cmps[nbytes_cmps++] = c;
  inside = false;
}

/* A string's length, at most max and SF_CMP_BYTES (the interceptor
 * checked it up to its NUL or max). */
NO_COV __attribute__((no_sanitize("address"))) static size_t str_len(const char *s, size_t max) {
  size_t n = 0;
  if (max > SF_CMP_BYTES) max = SF_CMP_BYTES;
  while (n < max && s[n])
    n++;
  return n;
}

NO_COV int __wrap_memcmp(const void *a, const void *b, size_t n) {
  int r = __real_memcmp(a, b, n);
  if (__builtin_expect(noting, 0) && r) note_bytes(a, n, b, n);
  return r;
}

/* A string compare: the sides up to their NULs (and n). */
#define WRAP_STRCMP(name)                                                                          \
  NO_COV int __wrap_##name(const char *a, const char *b) {                                         \
    int r = __real_##name(a, b);                                                                   \
    if (__builtin_expect(noting, 0) && r)                                                          \
      note_bytes(a, str_len(a, SF_CMP_BYTES), b, str_len(b, SF_CMP_BYTES));                        \
    return r;                                                                                      \
  }
#define WRAP_STRNCMP(name)                                                                         \
  NO_COV int __wrap_##name(const char *a, const char *b, size_t n) {                               \
    int r = __real_##name(a, b, n);                                                                \
    if (__builtin_expect(noting, 0) && r) note_bytes(a, str_len(a, n), b, str_len(b, n));          \
    return r;                                                                                      \
  }
WRAP_STRCMP(strcmp)
WRAP_STRCMP(strcasecmp)
WRAP_STRNCMP(strncmp)
WRAP_STRNCMP(strncasecmp)
#undef WRAP_STRCMP
#undef WRAP_STRNCMP
