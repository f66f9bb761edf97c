#include "known.h"

#include <dirent.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/sf_buf.h"

/* What an argument of a pattern must be in a run. */
enum {
  RULE_EQUAL = 0,
  RULE_ANY = 1,
  RULE_MIN_LEN = 2, /* bytes of any content, at least care[] long */
  RULE_LEN = 3,     /* bytes of any content, care[] long */
  RULE_MATCH = 4,   /* bytes that the expression re[care[]] matches whole (or does not) */
  RULE_HAS = 5,     /* an array holding each of the pattern's elements, among any others */
  RULE_GROUP = 6    /* + the group's canonical arg index */
};

/* A `# match:` or `# nomatch:` line's expression. */
typedef struct matcher {
  regex_t re;     /* POSIX extended, compiled anchored */
  uint32_t from;  /* the call's parameter that says where the bytes start; UINT32_MAX: at 0 */
  bool must_miss; /* `# nomatch:`: the bytes must not match */
} matcher;

typedef struct alternative {
  uint32_t call, func;
} alternative;

typedef struct pattern {
  sf_seq seq;
  uint32_t *rule; /* per argument of seq (index into seq.args) */
  uint64_t *care; /* per argument: the bits that must be equal (flags: `~MASK` frees some) */
  uint32_t *root; /* per value: the value it derives from (roots, below) */
  /* `# order:` lines: other orders of the calls before the last one (each
   * ncalls - 1 call indexes) that crash the same way. */
  uint32_t *orders, norders;
  /* `# instead:` lines (and `# last:`, for the last call): functions that
   * may stand in for a call, on the same handles, any other arguments. */
  alternative *alt; /* by call (sf_known_add_text sorts them) */
  uint32_t nalt;
  uint32_t *alt_from; /* per call, and one past: its first entry in alt */
  /* Per call, a bit per function of the API: may a run's call of it match
   * (the call's own function, its alternatives)? words: per call. */
  uint64_t *may;
  uint32_t words;
  /* `# given:` calls (per call): they only make handles the bug needs, and
   * a run need not make them. nkept: the calls that are not given. */
  bool *given;
  uint32_t nkept;
  /* `# match:` and `# nomatch:` lines' expressions. */
  matcher *re;
  uint32_t nre;
} pattern;

struct sf_known {
  const sf_api *api;
  pattern *p;
  uint32_t n;
  char **signatures; /* `# signature:` files: a finding of seqfuzz's own oracles */
  uint32_t nsignatures;
  bool *ends; /* per function: some pattern ends with a call of it */
  /* The functions the run called up to `rooted`, a bit each: a pattern
   * none of whose functions for some call is among them cannot match, and
   * is passed over without backtracking (most checks of most patterns). */
  uint64_t *called;
  /* Matching scratch, sized for the largest pattern. */
  uint32_t *vmap;  /* pattern root value -> run root value, UINT32_MAX: unset */
  uint32_t *rroot; /* the run's roots */
  uint32_t nrroot;
  const sf_arg **group;  /* canonical arg index -> the run argument its group took */
  uint32_t *trail;       /* vmap (< nvals) and group (>= nvals) entries set, for undo */
  uint32_t nvals, nargs; /* scratch sizes */
  const sf_seq *run;
  uint32_t rooted; /* the run's calls whose values rroot holds (sf_known_begin_run) */
  uint32_t steps;
  const uint32_t *order; /* the order being matched (NULL: the pattern's own) */
  sf_buf subject;        /* `# match:`'s bytes, NUL-terminated */
};

#define MAX_STEPS 100000 /* a bound on backtracking per check */

sf_known *sf_known_new(const sf_api *api) {
  sf_known *k = calloc(1, sizeof *k);
  if (!k) return NULL;
  k->api = api;
  k->ends = calloc(api->nfuncs ? api->nfuncs : 1, sizeof *k->ends);
  k->called = calloc(api->nfuncs / 64 + 1, sizeof *k->called);
  if (!k->ends || !k->called) {
    free(k->ends);
    free(k->called);
    free(k);
    return NULL;
  }
  return k;
}

static void free_regexes(pattern *p) {
  for (uint32_t i = 0; i < p->nre; i++)
    regfree(&p->re[i].re);
  free(p->re);
  p->re = NULL;
  p->nre = 0;
}

void sf_known_free(sf_known *k) {
  if (!k) return;
  for (uint32_t i = 0; i < k->n; i++) {
    sf_seq_free(&k->p[i].seq);
    free(k->p[i].rule);
    free(k->p[i].care);
    free(k->p[i].orders);
    free(k->p[i].alt);
    free(k->p[i].alt_from);
    free(k->p[i].may);
    free(k->p[i].given);
    free(k->p[i].root);
    free_regexes(&k->p[i]);
  }
  free(k->p);
  for (uint32_t i = 0; i < k->nsignatures; i++)
    free(k->signatures[i]);
  free(k->signatures);
  free(k->ends);
  free(k->called);
  free(k->vmap);
  free(k->rroot);
  free(k->group);
  free(k->trail);
  sf_buf_free(&k->subject);
  free(k);
}

uint32_t sf_known_count(const sf_known *k) {
  return k ? k->n + k->nsignatures : 0;
}

bool sf_known_signature(const sf_known *k, const char *signature) {
  for (uint32_t i = 0; k && i < k->nsignatures; i++)
    if (strcmp(k->signatures[i], signature) == 0) return true;
  return false;
}

/* The `# signature:` lines of text into k->signatures; their number, or -1
 * on OOM. */
static int add_signatures(sf_known *k, const char *text, size_t len) {
  int found = 0;
  for (const char *l = text, *end = text + len; l < end;) {
    const char *nl = memchr(l, '\n', (size_t)(end - l)), *le = nl ? nl : end;
    if (le - l > 12 && strncmp(l, "# signature:", 12) == 0) {
      const char *b = l + 12, *e = le;
      while (b < e && (*b == ' ' || *b == '\t'))
        b++;
      while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
      char **v = realloc(k->signatures, (k->nsignatures + 1) * sizeof *v);
      if (!v) return -1;
      k->signatures = v;
      char *sig = malloc((size_t)(e - b) + 1);
      if (!sig) return -1;
      memcpy(sig, b, (size_t)(e - b));
      sig[e - b] = 0;
      v[k->nsignatures] = sig;
      k->nsignatures++;
      found++;
    }
    l = le + 1;
  }
  return found;
}

/* Index into s->args of argument `arg` (from 1) of call `call` (from 1),
 * or UINT32_MAX. */
static uint32_t arg_index(const sf_seq *s, unsigned call, unsigned arg) {
  if (call < 1 || call > s->ncalls || arg < 1 || arg > sf_seq_func(s, call - 1)->nparams)
    return UINT32_MAX;
  return s->calls[call - 1].arg0 + arg - 1;
}

/* An `# order:` line (from s to e): a permutation of the calls before the
 * last, from 1. */
static int parse_order(pattern *p, const char *s, const char *e, const char *path, unsigned line,
                       char *err, size_t errlen) {
  uint32_t n = p->seq.ncalls - 1, got = 0, seen = 0;
  uint32_t *o = realloc(p->orders, (p->norders + 1) * (n ? n : 1) * sizeof *o);
  if (!o) return snprintf(err, errlen, "out of memory"), -1;
  p->orders = o;
  o += p->norders * n;
  while (s < e) {
    char *end;
    unsigned long c = strtoul(s, &end, 10);
    if (end == s) break;
    if (c < 1 || c > n || got == n || (seen & (1u << (c - 1)))) goto bad;
    seen |= 1u << (c - 1);
    o[got++] = (uint32_t)c - 1;
    s = end;
  }
  while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
    s++;
  if (got != n || s != e || n > 31) goto bad;
  p->norders++;
  return 0;
bad:
  snprintf(err, errlen, "%s:%u: `# order:` takes each of the calls 1..%u once", path, line, n);
  return -1;
}

/* A rule line's text after its keyword (s to e) into buf, NUL-terminated
 * (cut at size - 1 bytes), for sscanf and strtok_r. */
static char *line_copy(char *buf, size_t size, const char *s, const char *e) {
  size_t n = (size_t)(e - s) < size - 1 ? (size_t)(e - s) : size - 1;
  memcpy(buf, s, n);
  buf[n] = 0;
  return buf;
}

/* The function named by tok (a NUL-terminated word), or UINT32_MAX. */
static uint32_t func_named(const sf_api *api, const char *tok) {
  for (uint32_t fi = 0; fi < api->nfuncs; fi++)
    if (strcmp(api->funcs[fi].name, tok) == 0) return fi;
  return UINT32_MAX;
}

/* Functions (the words of buf) that may stand in for call `call` (from 0):
 * a `# last:` line, or an `# instead:` line after its call number. */
static int add_alternatives(pattern *p, uint32_t call, char *buf, const char *rule,
                            const char *path, unsigned line, char *err, size_t errlen) {
  for (char *save, *tok = strtok_r(buf, " \t\r", &save); tok;
       tok = strtok_r(NULL, " \t\r", &save)) {
    uint32_t fi = func_named(p->seq.api, tok);
    if (fi == UINT32_MAX) {
      snprintf(err, errlen, "%s:%u: `# %s:` names no function '%s' of the API", path, line, rule,
               tok);
      return -1;
    }
    alternative *a = realloc(p->alt, (p->nalt + 1) * sizeof *a);
    if (!a) return snprintf(err, errlen, "out of memory"), -1;
    p->alt = a;
    p->alt[p->nalt++] = (alternative){call, fi};
  }
  return 0;
}

/* An `# instead: CALL f g` line (s to e): f and g may stand in for CALL. */
static int parse_instead(pattern *p, const char *s, const char *e, const char *path, unsigned line,
                         char *err, size_t errlen) {
  char buf[4096];
  line_copy(buf, sizeof buf, s, e);
  unsigned c;
  int used = 0;
  if (sscanf(buf, " %u%n", &c, &used) != 1 || c < 1 || c > p->seq.ncalls) {
    snprintf(err, errlen, "%s:%u: `# instead:` takes a call (1..%u) and functions", path, line,
             p->seq.ncalls);
    return -1;
  }
  return add_alternatives(p, c - 1, buf + used, "instead", path, line, err, errlen);
}

/* A `# given:` line (s to e): calls, before the last, that a run need not
 * make (they make the handles the other calls take, which any handles may
 * stand for). */
static int parse_given(pattern *p, const char *s, const char *e, const char *path, unsigned line,
                       char *err, size_t errlen) {
  char buf[1024];
  line_copy(buf, sizeof buf, s, e);
  for (char *save, *tok = strtok_r(buf, " \t\r", &save); tok;
       tok = strtok_r(NULL, " \t\r", &save)) {
    char *end;
    unsigned long c = strtoul(tok, &end, 10);
    if (*end || c < 1 || c >= p->seq.ncalls) {
      snprintf(err, errlen, "%s:%u: `# given:` takes calls before the last (1..%u), not '%s'", path,
               line, p->seq.ncalls - 1, tok);
      return -1;
    }
    p->given[c - 1] = true;
  }
  return 0;
}

/* An expression's text with each `\xHH` replaced by that byte (as if typed:
 * `\x2e` is a dot), into out (size at least strlen(in) + 1): bytes the
 * line cannot hold, such as a range of UTF-8 continuation bytes
 * `[\x80-\xbf]`. Other escapes stay as they are. -1 for `\x00`, which a C
 * string cannot hold (`[^...]` matches a NUL). */
static int unescape_bytes(const char *in, char *out) {
  static const char hex[] = "0123456789abcdef";
  for (; *in; in++) {
    const char *h1, *h2;
    if (in[0] == '\\' && in[1] == 'x' && in[2] && in[3] &&
        (h1 = strchr(hex, in[2] | 0x20)) != NULL && (h2 = strchr(hex, in[3] | 0x20)) != NULL) {
      char b = (char)((h1 - hex) << 4 | (h2 - hex));
      if (!b) return -1;
      *out++ = b;
      in += 3;
    } else if (in[0] == '\\' && in[1]) { /* `\\x41` stays a backslash and x41 */
      *out++ = *in++;
      *out++ = *in;
    } else {
      *out++ = *in;
    }
  }
  *out = 0;
  return 0;
}

/* A `# match: CALL.ARG REGEX` line (from s to e): the argument's bytes,
 * whole, must match the extended regular expression (the rest of the line,
 * trimmed): the variants of a bug that ends inside one construct, such as
 * pcre2's `(*LIMIT_MATCH=` followed by any digits and nothing else, which
 * exact bytes or a length cannot state. `CALL.ARG@CALL.ARG2` takes the bytes
 * from the offset the call's integer argument ARG2 gives (none past the
 * end): what a matcher sees first from its start offset. `# nomatch:`
 * (must_miss) asks for bytes the expression does not match: a subject
 * that is not valid UTF-8. */
static int parse_match(pattern *p, const char *s, const char *e, bool must_miss, const char *path,
                       unsigned line, char *err, size_t errlen) {
  const char *kw = must_miss ? "nomatch" : "match";
  char buf[4096];
  line_copy(buf, sizeof buf - 8, s, e);
  unsigned c, a, c2, a2;
  int used = 0, used2 = 0;
  uint32_t x = UINT32_MAX, from = UINT32_MAX;
  if (sscanf(buf, " %u.%u%n", &c, &a, &used) == 2) x = arg_index(&p->seq, c, a);
  if (x != UINT32_MAX && buf[used] == '@') {
    if (sscanf(buf + used, "@%u.%u%n", &c2, &a2, &used2) != 2 || c2 != c ||
        arg_index(&p->seq, c2, a2) == UINT32_MAX ||
        !sf_kind_is_int(sf_seq_func(&p->seq, c - 1)->params[a2 - 1].kind)) {
      snprintf(err, errlen, "%s:%u: `# %s:` %u.%u@ takes an integer argument of call %u", path,
               line, kw, c, a, c);
      return -1;
    }
    from = a2 - 1;
    used += used2;
    /* The offset varies with the bytes it points into: any value. */
    uint32_t y = arg_index(&p->seq, c2, a2);
    if (p->rule[y] == RULE_EQUAL) p->rule[y] = RULE_ANY;
  }
  if (x != UINT32_MAX && buf[used] != ' ' && buf[used] != '\t') x = UINT32_MAX;
  char *re = buf + used;
  re += strspn(re, " \t");
  size_t rl = strlen(re);
  while (rl && (re[rl - 1] == ' ' || re[rl - 1] == '\t' || re[rl - 1] == '\r'))
    re[--rl] = 0;
  if (x == UINT32_MAX || !rl) {
    snprintf(err, errlen, "%s:%u: `# %s:` takes CALL.ARG and a regular expression", path, line, kw);
    return -1;
  }
  const sf_param *prm = &sf_seq_func(&p->seq, c - 1)->params[a - 1];
  if (prm->kind != SF_STRING && prm->kind != SF_BUFFER) {
    snprintf(err, errlen, "%s:%u: `# %s:` argument %u.%u is not a string or buffer", path, line, kw,
             c, a);
    return -1;
  }
  char bytes[sizeof buf], whole[sizeof buf + 8];
  if (unescape_bytes(re, bytes)) {
    snprintf(err, errlen, "%s:%u: `# %s:` cannot hold \\x00 (write [^...] for any byte)", path,
             line, kw);
    return -1;
  }
  snprintf(whole, sizeof whole, "^(%s)$", bytes);
  matcher *nr = realloc(p->re, (p->nre + 1) * sizeof *nr);
  if (!nr) return snprintf(err, errlen, "out of memory"), -1;
  p->re = nr;
  int rc = regcomp(&p->re[p->nre].re, whole, REG_EXTENDED | REG_NOSUB);
  if (rc) {
    char why[256];
    regerror(rc, &p->re[p->nre].re, why, sizeof why);
    snprintf(err, errlen, "%s:%u: `# %s:` %s: %s", path, line, kw, re, why);
    return -1;
  }
  p->re[p->nre].from = from;
  p->re[p->nre].must_miss = must_miss;
  p->rule[x] = RULE_MATCH;
  p->care[x] = p->nre++;
  return 0;
}

/* A `# has:` line's CALL.ARG list (s to e): arrays whose elements need
 * only include the pattern's (one NaN among any numbers: the bug is the
 * element, not the array). */
static int parse_has(pattern *p, const char *s, const char *e, const char *path, unsigned line,
                     char *err, size_t errlen) {
  char buf[1024];
  line_copy(buf, sizeof buf, s, e);
  for (char *save, *tok = strtok_r(buf, " \t\r", &save); tok;
       tok = strtok_r(NULL, " \t\r", &save)) {
    unsigned c, a;
    int used = 0;
    uint32_t x = UINT32_MAX;
    if (sscanf(tok, "%u.%u%n", &c, &a, &used) == 2 && !tok[used]) x = arg_index(&p->seq, c, a);
    sf_kind kind = x == UINT32_MAX ? SF_VOID : sf_seq_func(&p->seq, c - 1)->params[a - 1].kind;
    if (kind != SF_ARRAY && kind != SF_BUFFER) {
      snprintf(err, errlen, "%s:%u: `# has:` takes CALL.ARG of arrays or buffers, not '%s'", path,
               line, tok);
      return -1;
    }
    p->rule[x] = RULE_HAS;
  }
  return 0;
}

/* The `# any:` lines of text into rule[]. -1 with err set on a bad token. */
static int parse_rules(pattern *p, const char *text, size_t len, const char *path, char *err,
                       size_t errlen) {
  unsigned line = 1;
  for (const char *l = text, *end = text + len; l < end; line++) {
    const char *nl = memchr(l, '\n', (size_t)(end - l));
    const char *le = nl ? nl : end;
    if (le - l > 8 && strncmp(l, "# order:", 8) == 0 &&
        parse_order(p, l + 8, le, path, line, err, errlen))
      return -1;
    char buf[4096];
    if (le - l > 7 && strncmp(l, "# last:", 7) == 0 &&
        add_alternatives(p, p->seq.ncalls - 1, line_copy(buf, sizeof buf, l + 7, le), "last", path,
                         line, err, errlen))
      return -1;
    if (le - l > 10 && strncmp(l, "# instead:", 10) == 0 &&
        parse_instead(p, l + 10, le, path, line, err, errlen))
      return -1;
    if (le - l > 8 && strncmp(l, "# given:", 8) == 0 &&
        parse_given(p, l + 8, le, path, line, err, errlen))
      return -1;
    if (le - l > 8 && strncmp(l, "# match:", 8) == 0 &&
        parse_match(p, l + 8, le, false, path, line, err, errlen))
      return -1;
    if (le - l > 10 && strncmp(l, "# nomatch:", 10) == 0 &&
        parse_match(p, l + 10, le, true, path, line, err, errlen))
      return -1;
    if (le - l > 6 && strncmp(l, "# has:", 6) == 0 &&
        parse_has(p, l + 6, le, path, line, err, errlen))
      return -1;
    if (le - l > 6 && strncmp(l, "# any:", 6) == 0) {
      line_copy(buf, sizeof buf, l + 6, le);
      for (char *save, *tok = strtok_r(buf, " \t\r", &save); tok;
           tok = strtok_r(NULL, " \t\r", &save)) {
        unsigned c1, a1, c2, a2;
        unsigned long long mask;
        int used = 0;
        if ((sscanf(tok, "%u.%u>=%llu%n", &c1, &a1, &mask, &used) == 3 ||
             sscanf(tok, "%u.%u#%llu%n", &c1, &a1, &mask, &used) == 3) &&
            !tok[used]) {
          uint32_t x = arg_index(&p->seq, c1, a1);
          if (x == UINT32_MAX) goto bad;
          p->rule[x] = strchr(tok, '#') ? RULE_LEN : RULE_MIN_LEN;
          p->care[x] = mask;
        } else if (sscanf(tok, "%u.%u~%llx%n", &c1, &a1, &mask, &used) == 3 && !tok[used]) {
          uint32_t x = arg_index(&p->seq, c1, a1);
          if (x == UINT32_MAX) goto bad;
          p->care[x] &= ~(uint64_t)mask;
        } else if (sscanf(tok, "%u.%u=%u.%u%n", &c1, &a1, &c2, &a2, &used) == 4 && !tok[used]) {
          uint32_t x = arg_index(&p->seq, c1, a1), y = arg_index(&p->seq, c2, a2);
          if (x == UINT32_MAX || y == UINT32_MAX) goto bad;
          p->rule[x] = p->rule[y] = RULE_GROUP + y;
        } else if (sscanf(tok, "%u.%u%n", &c1, &a1, &used) == 2 && !tok[used]) {
          uint32_t x = arg_index(&p->seq, c1, a1);
          if (x == UINT32_MAX) goto bad;
          if (p->rule[x] == RULE_EQUAL) p->rule[x] = RULE_ANY;
        } else {
        bad:
          snprintf(err, errlen,
                   "%s:%u: `# any:` takes CALL.ARG, CALL.ARG=CALL.ARG, CALL.ARG~HEXMASK, "
                   "CALL.ARG>=LEN or CALL.ARG#LEN, not '%s'",
                   path, line, tok);
          return -1;
        }
      }
    }
    l = le + 1;
  }
  return 0;
}

/* Sort p->alt by call (stable: the order of the lines), index it, and
 * note which functions may match each call (p->may). */
static int index_alternatives(pattern *p) {
  p->alt_from = calloc(p->seq.ncalls + 1, sizeof *p->alt_from);
  if (!p->alt_from) return -1;
  for (uint32_t i = 0; i < p->nalt; i++)
    p->alt_from[p->alt[i].call + 1]++;
  for (uint32_t c = 0; c < p->seq.ncalls; c++)
    p->alt_from[c + 1] += p->alt_from[c];
  alternative *sorted = malloc((p->nalt ? p->nalt : 1) * sizeof *sorted);
  if (!sorted) return -1;
  for (uint32_t c = 0, n = 0; c < p->seq.ncalls; c++)
    for (uint32_t i = 0; i < p->nalt; i++)
      if (p->alt[i].call == c) sorted[n++] = p->alt[i];
  free(p->alt);
  p->alt = sorted;
  p->words = (p->seq.api->nfuncs + 63) / 64;
  p->may = calloc((size_t)p->seq.ncalls * p->words + 1, sizeof *p->may);
  if (!p->may) return -1;
  for (uint32_t c = 0; c < p->seq.ncalls; c++) {
    uint64_t *m = p->may + (size_t)c * p->words;
    m[p->seq.calls[c].func / 64] |= 1ULL << (p->seq.calls[c].func % 64);
    for (uint32_t i = p->alt_from[c]; i < p->alt_from[c + 1]; i++)
      m[p->alt[i].func / 64] |= 1ULL << (p->alt[i].func % 64);
  }
  return 0;
}

static int grow_scratch(sf_known *k, uint32_t nvals, uint32_t nargs) {
  if (nvals > k->nvals) {
    uint32_t *v = realloc(k->vmap, nvals * sizeof *v);
    if (!v) return -1;
    k->vmap = v;
    k->nvals = nvals;
  }
  if (nargs > k->nargs) {
    const sf_arg **g = realloc(k->group, nargs * sizeof *g);
    if (!g) return -1;
    k->group = g;
    k->nargs = nargs;
  }
  uint32_t *t = realloc(k->trail, (k->nvals + k->nargs + 1) * sizeof *t);
  if (!t) return -1;
  k->trail = t;
  return 0;
}

/* Each value's root: a handle made from another (a snapshot, an iterator
 * of a store: the call's first handle argument) has that one's root; a
 * handle made from none is its own. Patterns match handles by root, so
 * that a bug reached through a snapshot of the store is the bug the
 * minimized pattern reaches through the store itself. */
static void roots(const sf_seq *s, uint32_t *root, uint32_t first, uint32_t end) {
  for (uint32_t ci = first; ci < end; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    const sf_arg *a = sf_seq_args(s, ci);
    uint32_t from = UINT32_MAX;
    for (uint32_t i = 0; i < f->nparams && from == UINT32_MAX; i++)
      if (f->params[i].kind == SF_HANDLE && !(f->params[i].flags & SF_P_OUT) &&
          a[i].bits != SF_NULL_REF && a[i].bits < s->nvals)
        from = root[a[i].bits];
    uint32_t v1 = ci + 1 < s->ncalls ? s->calls[ci + 1].val0 : s->nvals;
    for (uint32_t v = s->calls[ci].val0; v < v1; v++)
      root[v] = from == UINT32_MAX ? v : from;
  }
}

int sf_known_add_text(sf_known *k, const char *text, size_t len, const char *path, char *err,
                      size_t errlen) {
  pattern p = {0};
  sf_seq_init(&p.seq, k->api);
  if (sf_seq_parse_text(&p.seq, k->api, text, len, path, err, errlen)) goto fail;
  if (p.seq.ncalls == 0) {
    /* A finding of seqfuzz's own checks, by its signature alone. */
    int nsig = add_signatures(k, text, len);
    sf_seq_free(&p.seq);
    if (nsig > 0) return 0;
    snprintf(err, errlen, nsig < 0 ? "out of memory" : "%s: no calls: not a known bug's sequence",
             path);
    return -1;
  }
  p.root = malloc((p.seq.nvals ? p.seq.nvals : 1) * sizeof *p.root);
  if (p.root) roots(&p.seq, p.root, 0, p.seq.ncalls);
  p.rule = calloc(p.seq.nargs ? p.seq.nargs : 1, sizeof *p.rule);
  p.care = malloc((p.seq.nargs ? p.seq.nargs : 1) * sizeof *p.care);
  for (uint32_t a = 0; p.care && a < p.seq.nargs; a++)
    p.care[a] = UINT64_MAX;
  p.given = calloc(p.seq.ncalls, sizeof *p.given);
  if (!p.rule || !p.care || !p.root || !p.given) {
    snprintf(err, errlen, "out of memory");
    goto fail;
  }
  if (parse_rules(&p, text, len, path, err, errlen)) goto fail;
  for (uint32_t c = 0; c < p.seq.ncalls; c++)
    p.nkept += !p.given[c];
  if (index_alternatives(&p)) {
    snprintf(err, errlen, "out of memory");
    goto fail;
  }
  pattern *np = realloc(k->p, (k->n + 1) * sizeof *np);
  if (!np || grow_scratch(k, p.seq.nvals + 1, p.seq.nargs + 1)) {
    if (np) k->p = np;
    snprintf(err, errlen, "out of memory");
    goto fail;
  }
  k->p = np;
  k->ends[p.seq.calls[p.seq.ncalls - 1].func] = true;
  for (uint32_t i = 0; i < p.nalt; i++)
    if (p.alt[i].call == p.seq.ncalls - 1) k->ends[p.alt[i].func] = true;
  k->p[k->n++] = p;
  return 0;
fail:
  sf_seq_free(&p.seq);
  free(p.rule);
  free(p.care);
  free(p.orders);
  free(p.alt);
  free(p.alt_from);
  free(p.may);
  free(p.given);
  free(p.root);
  free_regexes(&p);
  return -1;
}

sf_known *sf_known_load(const sf_api *api, const char *dir, char *err, size_t errlen) {
  if (errlen) err[0] = 0;
  DIR *d = opendir(dir);
  if (!d) {
    snprintf(err, errlen, "%s: cannot open the directory of known bugs", dir);
    return NULL;
  }
  sf_known *k = sf_known_new(api);
  struct dirent *e;
  while (k && (e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (e->d_name[0] == '.' || n < 5 || strcmp(e->d_name + n - 4, ".seq")) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "rb");
    sf_buf text = {0};
    char chunk[4096];
    size_t got;
    while (f && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
      if (sf_buf_append(&text, chunk, got)) break;
    if (f) fclose(f);
    /* A file that cannot be read or parsed is skipped (the first one is
     * told): one bad pattern must not stop a campaign. */
    char msg[1024] = "";
    if (!f) snprintf(msg, sizeof msg, "%s: cannot read", path);
    if (f && sf_known_add_text(k, (const char *)text.data, text.len, path, msg, sizeof msg) &&
        !msg[0])
      snprintf(msg, sizeof msg, "%s: out of memory", path);
    if (msg[0] && !err[0]) snprintf(err, errlen, "%s", msg);
    sf_buf_free(&text);
  }
  closedir(d);
  if (!k) snprintf(err, errlen, "out of memory");
  return k;
}

/* ---- matching ---- */

static bool has_bytes(const sf_param *p) {
  return p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY ||
         (p->flags & (SF_P_CALLBACK | SF_P_VTABLE));
}

/* Argument a of sequence s and b of t, of parameter p: the same value (in
 * the bits of care)? */
static bool same_value(const sf_param *p, const sf_seq *s, const sf_arg *a, const sf_seq *t,
                       const sf_arg *b, uint64_t care) {
  if (has_bytes(p))
    return a->bits == b->bits && a->len == b->len &&
           (!a->len || memcmp(sf_seq_bytes(s, a), sf_seq_bytes(t, b), a->len) == 0);
  if (p->kind == SF_F32 || p->kind == SF_F64) {
    double x = sf_float_value(p->kind, a->bits), y = sf_float_value(p->kind, b->bits);
    if (isnan(x) && isnan(y)) return true; /* one bug, whatever the payload */
  }
  return ((a->bits ^ b->bits) & care) == 0;
}

/* Element i (es bytes, little endian) of array argument a of s. */
static uint64_t element(const sf_seq *s, const sf_arg *a, unsigned es, uint32_t i) {
  const uint8_t *b = sf_seq_bytes(s, a) + (size_t)i * es;
  uint64_t v = 0;
  for (unsigned k = 0; k < es; k++)
    v |= (uint64_t)b[k] << (8 * k);
  return v;
}

/* Does run array b hold each element of pattern array a (RULE_HAS)? */
static bool holds_elements(const sf_param *p, const sf_seq *s, const sf_arg *a, const sf_seq *t,
                           const sf_arg *b) {
  unsigned es = sf_kind_size(p->elem);
  if (!es) return false;
  bool real = p->elem == SF_F32 || p->elem == SF_F64;
  for (uint32_t i = 0; i < a->len / es; i++) {
    uint64_t want = element(s, a, es, i);
    bool nan = real && isnan(sf_float_value(p->elem, want)), found = false;
    for (uint32_t j = 0; j < b->len / es && !found; j++) {
      uint64_t v = element(t, b, es, j);
      found = v == want || (nan && isnan(sf_float_value(p->elem, v)));
    }
    if (!found) return false;
  }
  return true;
}

/* Map pattern value pv to run value rv (one to one), noting it on the
 * trail; false if that contradicts the mapping so far. */
static bool map_value(sf_known *k, const pattern *p, uint32_t *ntrail, uint32_t pv, uint32_t rv) {
  if (k->vmap[pv] != UINT32_MAX) return k->vmap[pv] == rv;
  for (uint32_t v = 0; v < p->seq.nvals; v++)
    if (k->vmap[v] == rv) return false;
  k->vmap[pv] = rv;
  k->trail[(*ntrail)++] = pv;
  return true;
}

/* Pattern call j against run call i: same function, arguments as the rules
 * say, handles and results mapped. */
static bool match_call(sf_known *k, const pattern *p, uint32_t j, uint32_t i, uint32_t *ntrail) {
  const sf_seq *ps = &p->seq, *rs = k->run;
  if (ps->calls[j].func != rs->calls[i].func) return false;
  const sf_func *f = sf_seq_func(ps, j);
  const sf_arg *pa = sf_seq_args(ps, j), *ra = sf_seq_args(rs, i);
  for (uint32_t a = 0; a < f->nparams; a++) {
    const sf_param *prm = &f->params[a];
    if (prm->flags & (SF_P_OUT | SF_P_LENGTH | SF_P_CONST | SF_P_GIVEN)) continue;
    if (prm->kind == SF_HANDLE) {
      /* `# any:` on a handle: any handle or none (a context the bug does
       * not depend on), matched with nothing of the pattern. */
      if (p->rule[ps->calls[j].arg0 + a] == RULE_ANY) continue;
      if (pa[a].bits == SF_NULL_REF || ra[a].bits == SF_NULL_REF) {
        if (pa[a].bits != ra[a].bits) return false;
      } else if (!map_value(k, p, ntrail, p->root[pa[a].bits], k->rroot[ra[a].bits])) {
        return false;
      }
      continue;
    }
    uint32_t rule = p->rule[ps->calls[j].arg0 + a];
    if (rule == RULE_ANY) continue;
    if (rule == RULE_MIN_LEN || rule == RULE_LEN) {
      uint64_t n = p->care[ps->calls[j].arg0 + a];
      if (ra[a].bits == 1 || ra[a].len < n || (rule == RULE_LEN && ra[a].len != n)) return false;
      continue;
    }
    if (rule == RULE_MATCH) {
      /* A copy with a NUL after it: REG_STARTEND takes the bytes as they
       * are, NULs included, but the sanitizers' regexec reads up to a NUL. */
      const matcher *mt = &p->re[p->care[ps->calls[j].arg0 + a]];
      uint64_t from = mt->from == UINT32_MAX ? 0 : ra[mt->from].bits;
      if (ra[a].bits == 1 || from > ra[a].len) return false;
      sf_buf_reset(&k->subject);
      if (sf_buf_append(&k->subject, sf_seq_bytes(rs, &ra[a]) + from, ra[a].len - from) ||
          !sf_buf_cstr(&k->subject))
        return false;
      regmatch_t range = {.rm_so = 0, .rm_eo = (regoff_t)(ra[a].len - from)};
      bool matched = regexec(&mt->re, (const char *)k->subject.data, 1, &range, REG_STARTEND) == 0;
      if (matched == mt->must_miss) return false;
      continue;
    }
    if (rule == RULE_HAS) {
      if (!holds_elements(prm, ps, &pa[a], rs, &ra[a])) return false;
      continue;
    }
    if (rule == RULE_EQUAL) {
      if (!same_value(prm, ps, &pa[a], rs, &ra[a], p->care[ps->calls[j].arg0 + a])) return false;
      continue;
    }
    uint32_t g = rule - RULE_GROUP;
    if (!k->group[g]) {
      k->group[g] = &ra[a];
      k->trail[(*ntrail)++] = k->nvals + g;
    } else if (!same_value(prm, rs, k->group[g], rs, &ra[a], UINT64_MAX)) {
      return false;
    }
  }
  return true;
}

static void undo(sf_known *k, uint32_t *ntrail, uint32_t to) {
  while (*ntrail > to) {
    uint32_t e = k->trail[--*ntrail];
    if (e < k->nvals)
      k->vmap[e] = UINT32_MAX;
    else
      k->group[e - k->nvals] = NULL;
  }
}

static bool is_in_handle(const sf_param *p) {
  return p->kind == SF_HANDLE && !(p->flags & SF_P_OUT);
}

/* Run call i (of fi) standing in for pattern call j (`# instead:`, `# last:`;
 * its other arguments are any): its handles, in order, map (by root) onto
 * the pattern call's that matter. A handle of the pattern that does
 * not matter (`# any:`, NULL) takes the run's next one only when that has
 * its type (the run's function takes it too); one that matters takes the
 * run's next handle of its type, else (types apart) the next one. */
static bool match_alternative(sf_known *k, const pattern *p, uint32_t j, uint32_t fi, uint32_t i,
                              uint32_t *ntrail) {
  const sf_seq *ps = &p->seq, *rs = k->run;
  if (rs->calls[i].func != fi) return false;
  const sf_func *pf = sf_seq_func(ps, j), *rf = sf_seq_func(rs, i);
  const sf_arg *pa = sf_seq_args(ps, j), *ra = sf_seq_args(rs, i);
  uint32_t b = 0;
  for (uint32_t a = 0; a < pf->nparams; a++) {
    if (!is_in_handle(&pf->params[a])) continue;
    while (b < rf->nparams && !is_in_handle(&rf->params[b]))
      b++;
    uint32_t type = pf->params[a].type_index;
    bool matters = pa[a].bits != SF_NULL_REF && p->rule[ps->calls[j].arg0 + a] != RULE_ANY;
    if (!matters) {
      if (b < rf->nparams && rf->params[b].type_index == type) b++;
      continue;
    }
    for (uint32_t t = b; t < rf->nparams; t++)
      if (is_in_handle(&rf->params[t]) && rf->params[t].type_index == type) {
        b = t;
        break;
      }
    if (b >= rf->nparams || ra[b].bits == SF_NULL_REF ||
        !map_value(k, p, ntrail, p->root[pa[a].bits], k->rroot[ra[b].bits]))
      return false;
    b++;
  }
  return true;
}

/* The v-th way pattern call j may match run call i: 0 itself, then its
 * alternatives. 1 matched, 0 not, -1 no v-th way. */
static int match_way(sf_known *k, const pattern *p, uint32_t j, uint32_t i, uint32_t v,
                     uint32_t *ntrail) {
  if (v == 0) return match_call(k, p, j, i, ntrail);
  uint32_t x = p->alt_from[j] + v - 1;
  return x < p->alt_from[j + 1] ? match_alternative(k, p, j, p->alt[x].func, i, ntrail) : -1;
}

/* Pattern calls [j, m) (in k->order) onto run calls [from, ci], the last
 * one onto ci; given calls match nothing. */
static bool match_from(sf_known *k, const pattern *p, uint32_t j, uint32_t from, uint32_t ci,
                       uint32_t *ntrail) {
  uint32_t m = p->seq.ncalls;
  bool last = j + 1 == m;
  uint32_t pj = last || !k->order ? j : k->order[j];
  if (p->given[pj]) return match_from(k, p, j + 1, from, ci, ntrail);
  uint32_t later = 0; /* calls still to match after this one, the last one aside */
  for (uint32_t x = j + 1; x + 1 < m; x++)
    later += !p->given[k->order ? k->order[x] : x];
  if (!last && ci < later + 1) return false;
  uint32_t lo = last ? ci : from, hi = last ? ci : ci - 1 - later;
  const uint64_t *may = p->may + (size_t)pj * p->words;
  for (uint32_t i = lo; i <= hi; i++) {
    uint32_t f = k->run->calls[i].func;
    if (!(may[f / 64] >> (f % 64) & 1)) continue;
    if (++k->steps > MAX_STEPS) return false;
    for (uint32_t v = 0;; v++) {
      uint32_t mark = *ntrail;
      int here = match_way(k, p, pj, i, v, ntrail);
      if (here < 0) break;
      if (here && (last || match_from(k, p, j + 1, i + 1, ci, ntrail))) return true;
      undo(k, ntrail, mark);
    }
  }
  return false;
}

/* Whether each call of p that a run must make (not given) has a function
 * the run called: needed for a match, whatever the order. */
static bool calls_present(const sf_known *k, const pattern *p) {
  for (uint32_t c = 0; c + 1 < p->seq.ncalls; c++) {
    if (p->given[c]) continue;
    const uint64_t *may = p->may + (size_t)c * p->words;
    uint64_t any = 0;
    for (uint32_t w = 0; w < p->words; w++)
      any |= may[w] & k->called[w];
    if (!any) return false;
  }
  return true;
}

void sf_known_begin_run(const sf_known *kc) {
  if (kc) ((sf_known *)kc)->rooted = 0; /* the scratch only */
}

bool sf_known_stops(const sf_known *kc, const sf_seq *s, uint32_t ci) {
  if (!kc || !kc->n || !kc->ends[s->calls[ci].func]) return false;
  sf_known *k = (sf_known *)kc; /* the scratch only: the patterns stay as they are */
  if (k->run != s) k->rooted = 0;
  k->run = s;
  k->steps = 0;
  if (s->nvals > k->nrroot) {
    uint32_t *r = realloc(k->rroot, s->nvals * sizeof *r);
    if (!r) return false;
    k->rroot = r;
    k->nrroot = s->nvals;
  }
  /* The calls up to ci, those not rooted at an earlier check of this run. */
  if (k->rooted <= ci) {
    if (k->rooted == 0) memset(k->called, 0, (k->api->nfuncs / 64 + 1) * sizeof *k->called);
    for (uint32_t c = k->rooted; c <= ci; c++)
      k->called[s->calls[c].func / 64] |= 1ULL << (s->calls[c].func % 64);
    roots(s, k->rroot, k->rooted, ci + 1);
    k->rooted = ci + 1;
  }
  for (uint32_t pi = 0; pi < k->n; pi++) {
    const pattern *p = &k->p[pi];
    uint32_t f = s->calls[ci].func;
    const uint64_t *may = p->may + (size_t)(p->seq.ncalls - 1) * p->words;
    if (!(may[f / 64] >> (f % 64) & 1) || p->nkept > ci + 1 || !calls_present(k, p)) continue;
    for (uint32_t o = 0; o <= p->norders; o++) {
      k->order = o ? p->orders + (o - 1) * (p->seq.ncalls - 1) : NULL;
      for (uint32_t v = 0; v < p->seq.nvals; v++)
        k->vmap[v] = UINT32_MAX;
      memset(k->group, 0, p->seq.nargs * sizeof *k->group);
      uint32_t ntrail = 0;
      if (match_from(k, p, 0, 0, ci, &ntrail)) return true;
    }
  }
  return false;
}

bool sf_known_completes(const sf_known *k, const sf_seq *s) {
  sf_known_begin_run(k);
  for (uint32_t ci = 0; ci < s->ncalls; ci++)
    if (sf_known_stops(k, s, ci)) return true;
  return false;
}
