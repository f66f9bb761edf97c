/* Parser of the API description language (docs/grammar.md).
 *
 * Recursive descent over the tokens of api_lex.c. Every error is recorded as
 * `path:line:col: message`; the parser then skips to the end of the statement
 * and goes on, so one run reports all independent errors. Names that may be
 * used before they are declared (functions in invalidated_by) are resolved in
 * a second pass. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/sf_buf.h"
#include "../base/sf_hash.h"
#include "api.h"
#include "api_lex.h"

#define MAX_ERRORS 20

typedef struct pending_ref {
  uint32_t func, slot; /* slot UINT32_MAX: the inverse_of printer, else invalidated_by[slot] */
  char *name;
  uint32_t line, col;
} pending_ref;

typedef struct parser {
  sf_lexer lx;
  sf_tok tok;
  const char *path;
  char *err;
  size_t errlen, errused;
  int nerrors;
  sf_api *api;
  pending_ref *pending;
  uint32_t npending;
  const char *prev_end; /* end of the last token consumed */
} parser;

/* ---- small helpers ------------------------------------------------------ */

static void *push(void *arrp, uint32_t *n, size_t size) {
  void **arr = arrp;
  void *p = realloc(*arr, (*n + 1) * size);
  if (!p) return NULL;
  *arr = p;
  void *elem = (char *)p + *n * size;
  memset(elem, 0, size);
  (*n)++;
  return elem;
}

static char *dupn(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) {
    if (n) memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

static bool fail(parser *ps, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool fail(parser *ps, uint32_t line, uint32_t col, const char *fmt, ...) {
  ps->nerrors++;
  if (ps->nerrors > MAX_ERRORS || !ps->err || ps->errlen == 0) return false;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  int n = snprintf(ps->err + ps->errused, ps->errlen - ps->errused, "%s%s:%u:%u: %s",
                   ps->errused ? "\n" : "", ps->path, line, col, msg);
  if (n > 0) {
    ps->errused += (size_t)n;
    if (ps->errused >= ps->errlen) ps->errused = ps->errlen - 1;
  }
  return false;
}

static bool fail_at(parser *ps, const sf_tok *t, const char *msg) {
  if (t->kind == SF_TOK_ERROR) return fail(ps, t->line, t->col, "%s", t->err);
  return fail(ps, t->line, t->col, "%s", msg);
}

static bool oom(parser *ps) {
  return fail(ps, ps->tok.line, ps->tok.col, "out of memory");
}

static void next(parser *ps) {
  ps->prev_end = ps->lx.p; /* the end of the token consumed (strings have no len) */
  ps->tok = sf_lex_next(&ps->lx);
}

static bool accept(parser *ps, const char *s) {
  if (!sf_tok_is(&ps->tok, s)) return false;
  next(ps);
  return true;
}

static bool expect(parser *ps, const char *s) {
  if (accept(ps, s)) return true;
  char msg[64];
  snprintf(msg, sizeof msg, "expected '%s'", s);
  return fail_at(ps, &ps->tok, msg);
}

static bool expect_ident(parser *ps, const char *what, char **out) {
  if (ps->tok.kind != SF_TOK_IDENT) {
    char msg[64];
    snprintf(msg, sizeof msg, "expected %s", what);
    return fail_at(ps, &ps->tok, msg);
  }
  *out = dupn(ps->tok.start, ps->tok.len);
  if (!*out) return oom(ps);
  next(ps);
  return true;
}

static bool expect_string(parser *ps, char **out) {
  if (ps->tok.kind != SF_TOK_STRING) return fail_at(ps, &ps->tok, "expected a string literal");
  *out = dupn((const char *)ps->lx.text.data, ps->lx.text.len);
  if (!*out) return oom(ps);
  if (strlen(*out) != ps->lx.text.len) {
    free(*out);
    *out = NULL;
    return fail_at(ps, &ps->tok, "string literal must not contain NUL");
  }
  next(ps);
  return true;
}

/* Skip to the end of the current statement after an error. */
static void sync(parser *ps) {
  int depth = 0;
  for (;;) {
    if (ps->tok.kind == SF_TOK_EOF) return;
    if (sf_tok_is(&ps->tok, "{")) depth++;
    if (sf_tok_is(&ps->tok, "}")) {
      if (--depth <= 0) {
        next(ps);
        accept(ps, ";");
        return;
      }
    }
    if (depth <= 0 && sf_tok_is(&ps->tok, ";")) {
      next(ps);
      return;
    }
    next(ps);
  }
}

/* ---- kinds -------------------------------------------------------------- */

static const struct {
  const char *name;
  sf_kind kind;
  const char *ctype;
} prim_names[] = {
    {"bool", SF_BOOL, "bool"},
    {"i8", SF_I8, "int8_t"},
    {"i16", SF_I16, "int16_t"},
    {"i32", SF_I32, "int32_t"},
    {"i64", SF_I64, "int64_t"},
    {"u8", SF_U8, "uint8_t"},
    {"u16", SF_U16, "uint16_t"},
    {"u32", SF_U32, "uint32_t"},
    {"u64", SF_U64, "uint64_t"},
    {"f32", SF_F32, "float"},
    {"f64", SF_F64, "double"},
    {"int8_t", SF_I8, "int8_t"},
    {"int16_t", SF_I16, "int16_t"},
    {"int32_t", SF_I32, "int32_t"},
    {"int64_t", SF_I64, "int64_t"},
    {"uint8_t", SF_U8, "uint8_t"},
    {"uint16_t", SF_U16, "uint16_t"},
    {"uint32_t", SF_U32, "uint32_t"},
    {"uint64_t", SF_U64, "uint64_t"},
    {"char", SF_I8, "char"},
    {"short", SF_I16, "short"},
    {"int", SF_I32, "int"},
    {"unsigned", SF_U32, "unsigned"},
    {"long", SF_I64, "long"},
    {"size_t", SF_U64, "size_t"},
    {"float", SF_F32, "float"},
    {"double", SF_F64, "double"},
    {"bytes", SF_U8, "uint8_t"},
    /* C shapes (docs/grammar.md 3.2): a bool passed as an int, and bytes
     * passed as a FILE * or a file descriptor on an in-memory copy. */
    {"bool32", SF_BOOL, "int"},
    {"memfile", SF_U8, "FILE *"},
    {"memfd", SF_U8, "int"},
    /* A pointer the grammar never looks into: a constant parameter's type
     * (`pointer xDel = "SQLITE_TRANSIENT"`, NULL when no value is given), a
     * callback's context argument. */
    {"pointer", SF_U64, "void *"},
};

unsigned sf_kind_size(sf_kind k) {
  switch (k) {
  case SF_BOOL:
  case SF_I8:
  case SF_U8:
    return 1;
  case SF_I16:
  case SF_U16:
    return 2;
  case SF_I32:
  case SF_U32:
  case SF_F32:
    return 4;
  case SF_I64:
  case SF_U64:
  case SF_F64:
    return 8;
  default:
    return 0;
  }
}

bool sf_kind_is_int(sf_kind k) {
  return k >= SF_I8 && k <= SF_U64;
}
bool sf_kind_is_signed(sf_kind k) {
  return k >= SF_I8 && k <= SF_I64;
}

const char *sf_kind_name(sf_kind k) {
  static const char *const names[] = {"void", "bool",  "i8",     "i16",    "i32",   "i64",
                                      "u8",   "u16",   "u32",    "u64",    "f32",   "f64",
                                      "enum", "flags", "string", "buffer", "array", "handle"};
  return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

static void kind_bounds(sf_kind k, uint64_t *lo, uint64_t *hi) {
  unsigned bits = sf_kind_size(k) * 8;
  if (k == SF_BOOL) {
    *lo = 0;
    *hi = 1;
  } else if (sf_kind_is_signed(k)) {
    *lo = ~((1ULL << (bits - 1)) - 1); /* sign-extended minimum */
    *hi = (1ULL << (bits - 1)) - 1;
  } else if (bits) {
    *lo = 0;
    *hi = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
  } else {
    *lo = 0;
    *hi = UINT64_MAX;
  }
}

static bool le(sf_kind k, uint64_t a, uint64_t b) {
  return sf_kind_is_signed(k) ? (int64_t)a <= (int64_t)b : a <= b;
}

bool sf_param_accepts(const sf_param *p, uint64_t v) {
  sf_kind k = p->kind;
  if (sf_kind_is_int(k)) {
    if (!le(k, p->lo, v) || !le(k, v, p->hi)) return false;
  }
  for (uint32_t i = 0; i < p->nexcluded; i++)
    if (p->excluded[i] == v) return false;
  return true;
}

uint32_t sf_script_records(const sf_callback *cb, const uint8_t *s, uint32_t len,
                           sf_script_record *out, uint32_t max) {
  bool chunk = false, numbers = false;
  uint32_t outs_size = 0;
  for (uint32_t j = 0; j < cb->nparams; j++) {
    const sf_param *p = &cb->params[j];
    if (!(p->flags & SF_P_OUT)) continue;
    if (p->kind == SF_BUFFER)
      chunk = true;
    else if (!(p->flags & SF_P_LENGTH))
      numbers = true, outs_size += sf_kind_size(p->kind);
  }
  uint32_t answer = cb->ret.kind != SF_VOID && !cb->ret_is_count ? sf_kind_size(cb->ret.kind) : 0;
  if (cb->alloc_size >= 0) chunk = numbers = false, outs_size = 0, answer = 1;
  if (cb->frees >= 0 || (!chunk && !numbers && !answer)) return 0;
  uint32_t pos = 0, n = 0;
  while (pos < len && n < max) {
    sf_script_record *r = &out[n++];
    r->start = pos;
    r->chunk_off = pos;
    r->chunk_len = 0;
    if (chunk) {
      uint32_t l = s[pos++];
      r->chunk_off = pos;
      r->chunk_len = l < len - pos ? l : len - pos;
      pos += r->chunk_len;
    }
    r->outs_off = pos;
    pos = len - pos < outs_size ? len : pos + outs_size;
    r->answered = answer && len - pos >= answer;
    pos = r->answered ? pos + answer : answer ? len : pos;
    r->end = pos;
  }
  return n;
}

/* ---- lookups ------------------------------------------------------------ */

static bool name_is(const char *name, const sf_tok *t) {
  /* name may be NULL in a declaration left incomplete by an error */
  return name && t->kind == SF_TOK_IDENT && strlen(name) == t->len &&
         memcmp(name, t->start, t->len) == 0;
}

int32_t sf_api_find_func(const sf_api *api, const char *name) {
  for (uint32_t i = 0; i < api->nfuncs; i++)
    if (api->funcs[i].name && strcmp(api->funcs[i].name, name) == 0) return (int32_t)i;
  return -1;
}

int32_t sf_func_state_observer(const sf_func *f) {
  /* One with preconditions may not be called on every value. */
  if (!(f->flags & SF_F_OBSERVER) || f->nrequires) return -1;
  int32_t handle = -1, inputs = 0;
  for (uint32_t j = 0; j < f->nparams; j++) {
    if (!sf_param_is_input(&f->params[j])) continue;
    inputs++;
    if (f->params[j].kind == SF_HANDLE) handle = (int32_t)f->params[j].type_index;
  }
  return inputs == 1 ? handle : -1;
}

uint32_t sf_api_state_observers(const sf_api *api, uint32_t htype, uint32_t *out, uint32_t max) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < api->nfuncs; i++)
    if (sf_func_state_observer(&api->funcs[i]) == (int32_t)htype) {
      if (n < max) out[n] = i;
      n++;
    }
  return n;
}

bool sf_api_coverage_state(const sf_api *api, uint32_t htype) {
  for (uint32_t i = 0; i < api->nstates; i++)
    if (api->states[i].coverage && api->states[i].handle == htype) return true;
  for (uint32_t i = 0; i < api->nfuncs; i++)
    if ((api->funcs[i].flags & SF_F_COVERAGE) &&
        sf_func_state_observer(&api->funcs[i]) == (int32_t)htype)
      return true;
  return false;
}

int32_t sf_api_find_handle(const sf_api *api, const char *name) {
  for (uint32_t i = 0; i < api->nhandles; i++)
    if (strcmp(api->handles[i].name, name) == 0) return (int32_t)i;
  return -1;
}

static int32_t find_enum(const sf_api *api, const sf_tok *t) {
  for (uint32_t i = 0; i < api->nenums; i++)
    if (name_is(api->enums[i].name, t)) return (int32_t)i;
  return -1;
}

static const sf_const *find_const(const sf_api *api, const sf_tok *t) {
  for (uint32_t i = 0; i < api->nenums; i++)
    for (uint32_t j = 0; j < api->enums[i].nconsts; j++)
      if (name_is(api->enums[i].consts[j].name, t)) return &api->enums[i].consts[j];
  return NULL;
}

static bool name_taken(const sf_api *api, const sf_tok *t) {
  for (uint32_t i = 0; i < api->nhandles; i++)
    if (name_is(api->handles[i].name, t)) return true;
  for (uint32_t i = 0; i < api->nfuncs; i++)
    if (api->funcs[i].name && name_is(api->funcs[i].name, t)) return true;
  if (find_enum(api, t) >= 0 || find_const(api, t)) return true;
  for (size_t i = 0; i < sizeof prim_names / sizeof *prim_names; i++)
    if (name_is(prim_names[i].name, t)) return true;
  return false;
}

static bool check_new_name(parser *ps) {
  if (ps->tok.kind == SF_TOK_IDENT && name_taken(ps->api, &ps->tok))
    return fail(ps, ps->tok.line, ps->tok.col, "'%.*s' is already declared", (int)ps->tok.len,
                ps->tok.start);
  return true;
}

/* An integer literal or a named constant. */
static bool parse_int_value(parser *ps, uint64_t *v) {
  if (ps->tok.kind == SF_TOK_INT) {
    *v = ps->tok.u;
    next(ps);
    return true;
  }
  if (ps->tok.kind == SF_TOK_IDENT) {
    const sf_const *c = find_const(ps->api, &ps->tok);
    if (c) {
      *v = (uint64_t)c->value;
      next(ps);
      return true;
    }
    return fail(ps, ps->tok.line, ps->tok.col, "unknown constant '%.*s'", (int)ps->tok.len,
                ps->tok.start);
  }
  return fail_at(ps, &ps->tok, "expected an integer");
}

/* ---- statements --------------------------------------------------------- */

static bool parse_handle(parser *ps) {
  if (!check_new_name(ps)) return false;
  sf_handle_type *h = push(&ps->api->handles, &ps->api->nhandles, sizeof *h);
  if (!h) return oom(ps);
  h->destructor = -1;
  if (!expect_ident(ps, "a handle type name", (char **)&h->name)) return false;
  if (accept(ps, "=")) {
    if (!expect_string(ps, (char **)&h->ctype)) return false;
  } else {
    h->ctype = strdup(h->name);
    if (!h->ctype) return oom(ps);
  }
  for (;;) {
    if (accept(ps, "refcounted"))
      h->refcounted = true;
    else if (accept(ps, "struct"))
      h->is_struct = true;
    else
      break;
  }
  return expect(ps, ";");
}

static bool parse_enum(parser *ps, bool is_flags) {
  if (!check_new_name(ps)) return false;
  sf_enum *e = push(&ps->api->enums, &ps->api->nenums, sizeof *e);
  if (!e) return oom(ps);
  e->is_flags = is_flags;
  e->base = is_flags ? SF_U32 : SF_I32;
  if (!expect_ident(ps, "an enum name", (char **)&e->name)) return false;
  if (accept(ps, "=")) {
    if (!expect_string(ps, (char **)&e->ctype)) return false;
  } else {
    e->ctype = strdup(e->name);
    if (!e->ctype) return oom(ps);
  }
  if (accept(ps, ":")) {
    sf_tok t = ps->tok;
    bool found = false;
    for (size_t i = 0; i < sizeof prim_names / sizeof *prim_names; i++) {
      if (name_is(prim_names[i].name, &t) && sf_kind_is_int(prim_names[i].kind)) {
        e->base = prim_names[i].kind;
        found = true;
      }
    }
    if (!found) return fail_at(ps, &t, "expected an integer type");
    next(ps);
  }
  if (!expect(ps, "{")) return false;
  while (!sf_tok_is(&ps->tok, "}")) {
    if (ps->tok.kind == SF_TOK_IDENT && find_const(ps->api, &ps->tok))
      return fail(ps, ps->tok.line, ps->tok.col, "constant '%.*s' is already declared",
                  (int)ps->tok.len, ps->tok.start);
    if (!check_new_name(ps)) return false;
    char *name;
    if (!expect_ident(ps, "a constant name", &name)) return false;
    sf_const *c = push(&e->consts, &e->nconsts, sizeof *c);
    if (!c) {
      free(name);
      return oom(ps);
    }
    c->name = name;
    if (!expect(ps, "=")) return false;
    sf_tok at = ps->tok;
    uint64_t v;
    if (!parse_int_value(ps, &v)) return false;
    uint64_t lo, hi;
    kind_bounds(e->base, &lo, &hi);
    if (!le(e->base, lo, v) || !le(e->base, v, hi))
      return fail(ps, at.line, at.col, "value out of range for %s", sf_kind_name(e->base));
    c->value = (int64_t)v;
    if (!accept(ps, ",")) break;
  }
  if (!expect(ps, "}")) return false;
  if (e->nconsts == 0) return fail(ps, ps->tok.line, ps->tok.col, "enum has no constants");
  if (is_flags && e->nconsts > 32)
    return fail(ps, ps->tok.line, ps->tok.col, "a flag set has at most 32 constants");
  accept(ps, ";");
  return true;
}

static bool parse_dict(parser *ps) {
  do {
    char *s;
    if (!expect_string(ps, &s)) return false;
    const char **slot = push(&ps->api->dict, &ps->api->ndict, sizeof *slot);
    if (!slot) {
      free(s);
      return oom(ps);
    }
    *slot = s;
  } while (accept(ps, ","));
  return expect(ps, ";");
}

/* Type name -> kind. Returns false if the name is unknown. */
static bool lookup_type(parser *ps, const sf_tok *t, sf_kind *kind, uint32_t *index,
                        const char **ctype, char *shape) {
  for (size_t i = 0; i < sizeof prim_names / sizeof *prim_names; i++) {
    if (name_is(prim_names[i].name, t)) {
      *kind = prim_names[i].kind;
      *ctype = prim_names[i].ctype;
      return true;
    }
  }
  if (sf_tok_is(t, "string") || sf_tok_is(t, "printf")) {
    *kind = SF_STRING;
    *ctype = "const char *";
    return true;
  }
  int32_t e = find_enum(ps->api, t);
  if (e >= 0) {
    *kind = ps->api->enums[e].is_flags ? SF_FLAGS : SF_ENUM;
    *index = (uint32_t)e;
    *ctype = ps->api->enums[e].ctype;
    return true;
  }
  for (uint32_t i = 0; i < ps->api->nhandles; i++) {
    if (name_is(ps->api->handles[i].name, t)) {
      *kind = SF_HANDLE;
      *index = i;
      *ctype = ps->api->handles[i].ctype;
      return true;
    }
  }
  for (uint32_t i = 0; i < ps->api->ncallbacks; i++) {
    if (name_is(ps->api->callbacks[i].name, t)) {
      *kind = SF_BUFFER; /* its script */
      *index = i;
      *ctype = ps->api->callbacks[i].ret.ctype; /* replaced by the pointer type */
      *shape = 'c';
      return true;
    }
  }
  for (uint32_t i = 0; i < ps->api->nvtables; i++) {
    if (name_is(ps->api->vtables[i].name, t)) {
      *kind = SF_BUFFER; /* its members' scripts */
      *index = i;
      *ctype = ps->api->vtables[i].ctype;
      *shape = 'v';
      return true;
    }
  }
  return false;
}

static char *make_ctype(const char *base, int stars, bool is_const) {
  sf_buf b = {0};
  int rc = sf_buf_printf(&b, "%s%s%s%.*s", is_const ? "const " : "", base, stars ? " " : "", stars,
                         "**********");
  char *s = rc ? NULL : sf_buf_cstr(&b);
  if (!s) sf_buf_free(&b);
  return s;
}

/* A parsed type before it is bound to a parameter or result. */
typedef struct type_spec {
  sf_tok at;
  sf_kind kind;
  uint32_t index;
  const char *base_ctype;
  int stars;
  bool is_const;
  bool is_bytes;
  bool is_void;
  /* 'b' bool32, 'f' memfile, 'd' memfd, 'p' printf, 'P' pointer, 'c' a
   * callback, 'v' a vtable, else 0 */
  char shape;
  bool sqlite; /* printf(sqlite) */
} type_spec;

static bool parse_type(parser *ps, type_spec *ts) {
  memset(ts, 0, sizeof *ts);
  if (accept(ps, "const")) ts->is_const = true;
  ts->at = ps->tok;
  if (sf_tok_is(&ps->tok, "void")) {
    ts->is_void = true;
    ts->kind = SF_VOID;
    ts->base_ctype = "void";
  } else if (ps->tok.kind != SF_TOK_IDENT ||
             !lookup_type(ps, &ps->tok, &ts->kind, &ts->index, &ts->base_ctype, &ts->shape)) {
    if (ps->tok.kind == SF_TOK_IDENT)
      return fail(ps, ps->tok.line, ps->tok.col, "unknown type '%.*s'", (int)ps->tok.len,
                  ps->tok.start);
    return fail_at(ps, &ps->tok, "expected a type");
  }
  ts->is_bytes = sf_tok_is(&ps->tok, "bytes");
  ts->shape = sf_tok_is(&ps->tok, "bool32")    ? 'b'
              : sf_tok_is(&ps->tok, "memfile") ? 'f'
              : sf_tok_is(&ps->tok, "memfd")   ? 'd'
              : sf_tok_is(&ps->tok, "printf")  ? 'p'
              : sf_tok_is(&ps->tok, "pointer") ? 'P'
                                               : ts->shape;
  next(ps);
  if (ts->shape == 'p' && accept(ps, "(")) { /* a dialect */
    if (!sf_tok_is(&ps->tok, "sqlite")) return fail_at(ps, &ps->tok, "expected 'sqlite'");
    next(ps);
    ts->sqlite = true;
    if (!expect(ps, ")")) return false;
  }
  while (accept(ps, "*"))
    ts->stars++;
  accept(ps, "const");
  return true;
}

/* Apply one constraint `op v` (or a range) to p. */
static bool constrain(parser *ps, sf_param *p, const sf_tok *at, const char *op, uint64_t v,
                      uint64_t v2) {
  sf_kind k = p->kind;
  uint64_t lo, hi;
  kind_bounds(k, &lo, &hi);
  if (strcmp(op, "in") == 0) {
    if (!le(k, lo, v) || !le(k, v2, hi) || !le(k, v, v2))
      return fail(ps, at->line, at->col, "range [%lld, %lld] is empty or outside %s", (long long)v,
                  (long long)v2, sf_kind_name(k));
    if (le(k, p->lo, v)) p->lo = v;
    if (le(k, v2, p->hi)) p->hi = v2;
    if (!le(k, p->lo, p->hi))
      return fail(ps, at->line, at->col, "constraints leave no legal value");
    return true;
  }
  if (!le(k, lo, v) || !le(k, v, hi))
    return fail(ps, at->line, at->col, "value out of range for %s", sf_kind_name(k));
  if (strcmp(op, "!=") == 0) {
    if (p->nexcluded == SF_MAX_EXCLUDED)
      return fail(ps, at->line, at->col, "at most %d '!=' constraints", SF_MAX_EXCLUDED);
    p->excluded[p->nexcluded++] = v;
  } else if (strcmp(op, "==") == 0) {
    p->lo = p->hi = v;
  } else if (strcmp(op, ">=") == 0) {
    if (le(k, p->lo, v)) p->lo = v;
  } else if (strcmp(op, "<=") == 0) {
    if (le(k, v, p->hi)) p->hi = v;
  } else if (strcmp(op, ">") == 0) {
    if (v == hi) return fail(ps, at->line, at->col, "no value is greater");
    if (le(k, p->lo, v + 1)) p->lo = v + 1;
  } else if (strcmp(op, "<") == 0) {
    if (v == lo) return fail(ps, at->line, at->col, "no value is smaller");
    if (le(k, v - 1, p->hi)) p->hi = v - 1;
  }
  bool only_excluded = p->lo == p->hi;
  for (uint32_t i = 0; i < p->nexcluded && only_excluded; i++)
    only_excluded = p->excluded[i] != p->lo;
  if (!le(k, p->lo, p->hi) || (p->lo == p->hi && !only_excluded))
    return fail(ps, at->line, at->col, "constraints leave no legal value");
  return true;
}

static bool parse_constraints(parser *ps, sf_param *p) {
  for (;;) {
    sf_tok at = ps->tok;
    if (accept(ps, "in")) {
      uint64_t a, b;
      if (!expect(ps, "[") || !parse_int_value(ps, &a) || !expect(ps, ",") ||
          !parse_int_value(ps, &b) || !expect(ps, "]"))
        return false;
      if (!constrain(ps, p, &at, "in", a, b)) return false;
      continue;
    }
    static const char *const ops[] = {"!=", "==", "<=", ">=", "<", ">"};
    const char *op = NULL;
    for (size_t i = 0; i < 6; i++)
      if (sf_tok_is(&ps->tok, ops[i])) op = ops[i];
    if (!op) return true;
    next(ps);
    uint64_t v;
    if (!parse_int_value(ps, &v)) return false;
    if (!constrain(ps, p, &at, op, v, 0)) return false;
  }
}

/* Deferred: constraints on a parameter before we know it is a length. */
typedef struct param_extra {
  sf_tok len_name; /* [ident] of a buffer */
  sf_tok cons_at;  /* first constraint, for errors */
  bool has_cons;
} param_extra;

/* The C type of a pointer to a callback: "int (*)(void *, size_t)". */
static char *callback_ctype(const sf_callback *cb) {
  sf_buf b = {0};
  int rc = sf_buf_printf(&b, "%s (*)(", cb->ret.ctype);
  for (uint32_t i = 0; i < cb->nparams; i++)
    rc |= sf_buf_printf(&b, "%s%s", i ? ", " : "", cb->params[i].ctype);
  rc |= sf_buf_printf(&b, "%s)", cb->nparams ? "" : "void");
  char *s = rc ? NULL : sf_buf_cstr(&b);
  if (!s) sf_buf_free(&b);
  return s;
}

static bool parse_param(parser *ps, sf_func *f, sf_param *p, param_extra *x) {
  uint32_t quals = 0;
  bool nonnull = false;
  for (;;) {
    if (accept(ps, "out"))
      quals |= SF_P_OUT;
    else if (accept(ps, "inout"))
      quals |= SF_P_INOUT;
    else if (accept(ps, "consume"))
      quals |= SF_P_CONSUME;
    else if (accept(ps, "steal"))
      quals |= SF_P_CONSUME | SF_P_STEAL;
    else if (accept(ps, "nonnull"))
      nonnull = true;
    else if (accept(ps, "nullable"))
      quals |= SF_P_NULLABLE;
    else if (accept(ps, "keep"))
      quals |= SF_P_KEEP;
    else
      break;
  }
  type_spec ts;
  if (!parse_type(ps, &ts)) return false;
  if (ts.is_void) return fail_at(ps, &ts.at, "a parameter cannot be void");
  p->flags = quals | (ts.shape == 'b' ? SF_P_INT_BOOL : 0);
  p->len_param = -1;
  p->len_of = -1;
  p->kind = ts.kind;
  p->type_index = ts.index;
  if (!expect_ident(ps, "a parameter name", (char **)&p->name)) return false;
  for (uint32_t i = 0; i + 1 < f->nparams; i++)
    if (f->params[i].name && strcmp(f->params[i].name, p->name) == 0)
      return fail(ps, ps->tok.line, ps->tok.col, "duplicate parameter '%s'", p->name);

  if (ts.shape == 'v') { /* a vtable: its members' scripts are the value */
    if ((quals & ~SF_P_NULLABLE) || ts.stars != 1)
      return fail_at(ps, &ts.at, "a vtable is passed as 'VTABLE *name' (nullable allowed)");
    p->elem = SF_U8;
    p->flags |= SF_P_VTABLE;
    p->ctype = make_ctype(ts.base_ctype, 1, false);
    if (!p->ctype) return oom(ps);
    kind_bounds(SF_U64, &p->lo, &p->hi);
    return true;
  }
  if (ts.shape == 'c') { /* a callback: its mock's script is the value */
    if ((quals & ~SF_P_NULLABLE) || ts.stars)
      return fail_at(ps, &ts.at, "a callback is written 'CALLBACK name' (nullable allowed)");
    p->elem = SF_U8;
    p->flags |= SF_P_CALLBACK;
    p->ctype = callback_ctype(&ps->api->callbacks[ts.index]);
    if (!p->ctype) return oom(ps);
    kind_bounds(SF_U64, &p->lo, &p->hi);
    return true;
  }
  if ((ts.shape == 'P' && !(quals & SF_P_OUT)) ||
      accept(ps, "=")) { /* a constant the build computes */
    sf_tok at = ps->tok;
    if (sf_tok_is(&at, "[")) return fail_at(ps, &at, "a constant is one value, not an array");
    if (quals || ts.stars || ts.shape == 'p' || ts.shape == 'f' || ts.shape == 'd' || ts.is_bytes ||
        !(sf_kind_is_int(ts.kind) || ts.kind == SF_STRING || ts.kind == SF_BOOL))
      return fail_at(ps, &ts.at,
                     "a constant is a number, a string or a pointer, with no qualifier");
    if (ts.shape == 'P' && accept(ps, "=") && ps->tok.kind != SF_TOK_STRING)
      return fail_at(ps, &ps->tok, "expected a C expression in quotes");
    if (ps->tok.kind == SF_TOK_STRING) {
      if (!expect_string(ps, (char **)&p->cexpr)) return false;
      if (!p->cexpr[0] || strchr(p->cexpr, '\n')) return fail_at(ps, &at, "empty C expression");
    } else if (ts.shape != 'P') {
      return fail_at(ps, &at, "expected a C expression in quotes");
    }
    p->flags |= SF_P_CONST;
    p->ctype = ts.kind == SF_STRING ? strdup("const char *") : strdup(ts.base_ctype);
    if (!p->ctype) return oom(ps);
    kind_bounds(p->kind, &p->lo, &p->hi);
    return true;
  }
  bool bracket = false;
  sf_tok bt = ps->tok;
  if (accept(ps, "[")) {
    bracket = true;
    bt = ps->tok;
    if (ps->tok.kind == SF_TOK_INT) {
      if (ps->tok.neg || ps->tok.u == 0 || ps->tok.u > 65536)
        return fail_at(ps, &ps->tok, "array length must be in [1, 65536]");
      p->array_len = (uint32_t)ps->tok.u;
    } else if (ps->tok.kind == SF_TOK_IDENT) {
      x->len_name = ps->tok;
    } else {
      return fail_at(ps, &ps->tok, "expected an array length or a length parameter");
    }
    next(ps);
    if (!expect(ps, "]")) return false;
  }

  const char *base = ts.base_ctype;
  if ((quals & SF_P_INOUT) && (quals & ~SF_P_INOUT))
    return fail_at(ps, &ts.at, "inout takes no other qualifier");
  if (ts.shape == 'P' && (bracket || ts.stars != 1))
    return fail_at(ps, &ts.at,
                   "a pointer is a constant ('pointer p' or 'pointer p = \"EXPR\"') "
                   "or 'out pointer *p'");
  if ((ts.shape == 'f' || ts.shape == 'd') && (bracket || ts.stars))
    return fail_at(ps, &ts.at,
                   "a memfile or memfd is written 'memfile name': its bytes are the value");
  if (ts.shape == 'b' && (bracket || ts.stars || (quals & SF_P_OUT)))
    return fail_at(ps, &ts.at, "bool32 is passed by value");
  if (ts.shape == 'p' && (bracket || ts.stars || quals))
    return fail_at(ps, &ts.at, "a printf format is written 'printf name', with no qualifier");
  if (ts.shape == 'p') p->flags |= SF_P_PRINTF | (ts.sqlite ? SF_P_PRINTF_SQLITE : 0);
  if (bracket) {
    if (!sf_kind_is_int(ts.kind) && ts.kind != SF_BOOL && ts.kind != SF_F32 && ts.kind != SF_F64)
      return fail_at(ps, &ts.at, "array elements must be numbers");
    if (ts.stars) return fail_at(ps, &ts.at, "write an array as 'T name[N]', without '*'");
    if (quals & (SF_P_CONSUME | SF_P_INOUT))
      return fail_at(ps, &ts.at, "arrays cannot be consume or inout parameters");
    if ((quals & SF_P_OUT) && (quals & SF_P_NULLABLE))
      return fail_at(ps, &ts.at, "an out array is the caller's: it is not nullable");
    p->elem = ts.kind;
    p->kind = p->array_len ? SF_ARRAY : SF_BUFFER;
    p->ctype = make_ctype(ts.is_bytes ? "uint8_t" : base, 1, !(quals & SF_P_OUT));
  } else if (ts.shape == 'f' || ts.shape == 'd') {
    if (quals & (SF_P_OUT | SF_P_NULLABLE | (ts.shape == 'f' ? SF_P_CONSUME : 0)))
      return fail_at(ps, &ts.at,
                     ts.shape == 'f' ? "a memfile takes only keep"
                                     : "a memfd takes only keep or consume (the callee closes it)");
    p->kind = SF_BUFFER;
    p->elem = SF_U8;
    p->flags |= ts.shape == 'f' ? SF_P_MEMFILE : SF_P_MEMFD;
    if (quals & SF_P_CONSUME) {
      quals = (quals & ~SF_P_CONSUME) | SF_P_GIVEN;
      p->flags &= ~(uint32_t)SF_P_CONSUME;
    }
    p->ctype = strdup(base);
  } else if (ts.shape == 'b') {
    p->ctype = strdup("int");
  } else if (ts.is_bytes) {
    return fail_at(ps, &ts.at, "bytes needs a length: bytes name[n] or bytes name[16]");
  } else if (ts.kind == SF_HANDLE) {
    /* A struct the caller allocates is passed once removed: `out T *p`. */
    bool is_struct = ps->api->handles[ts.index].is_struct;
    int want = (quals & SF_P_OUT) && !is_struct ? 2 : 1;
    if (ts.stars != want)
      return fail_at(ps, &ts.at,
                     (quals & SF_P_OUT) ? (is_struct ? "a struct the caller allocates is written "
                                                       "'out T *name'"
                                                     : "an out handle is written 'out T **name'")
                                        : "a handle is passed as 'T *name'");
    if (quals & SF_P_INOUT) return fail_at(ps, &ts.at, "inout is for numbers");
    p->ctype = make_ctype(base, ts.stars, false);
  } else if ((quals & SF_P_OUT) &&
             ((ts.kind == SF_STRING && ts.stars == 1) ||
              (ts.kind == SF_I8 && ts.stars == 2 && strcmp(base, "char") == 0) ||
              (ts.shape == 'P' && ts.stars == 1))) {
    /* out string *name: const char **, set to a borrowed string (or one the
     * caller frees: `release SYM`); out pointer *name: any pointer, not read */
    p->kind = SF_STRING;
    p->ctype = strdup(ts.shape == 'P' ? "void **" : "const char **");
    if (!p->ctype) return oom(ps);
    if (accept(ps, "release") && !expect_ident(ps, "a function name", (char **)&p->release))
      return false;
  } else if (ts.kind == SF_I8 && ts.stars == 1 && strcmp(base, "char") == 0 &&
             !(quals & SF_P_OUT)) {
    p->kind = SF_STRING; /* const char *name */
    p->ctype = make_ctype("char", 1, true);
  } else if (quals & (SF_P_OUT | SF_P_INOUT)) {
    if (ts.stars != 1 || ts.kind == SF_STRING)
      return fail_at(ps, &ts.at,
                     (quals & SF_P_OUT) ? "an out number is written 'out T *name'"
                                        : "an inout number is written 'inout T *name'");
    p->ctype = make_ctype(base, 1, false);
  } else {
    if (ts.stars)
      return fail_at(ps, &ts.at,
                     "unexpected '*' (pointers are handles, strings, "
                     "buffers or out parameters)");
    p->ctype = ts.kind == SF_STRING ? strdup("const char *") : make_ctype(base, 0, false);
  }
  if (!p->ctype) return oom(ps);
  if ((quals & SF_P_CONSUME) && (p->kind != SF_HANDLE || (quals & SF_P_OUT)))
    return fail_at(ps, &ts.at, "only handle parameters can be consumed");
  p->flags |= quals & SF_P_GIVEN;
  if (ps->api->default_nullable && !nonnull && !(quals & SF_P_OUT) && !(p->flags & SF_P_PRINTF) &&
      (p->kind == SF_HANDLE || p->kind == SF_STRING))
    quals |= SF_P_NULLABLE, p->flags |= SF_P_NULLABLE;
  if ((quals & SF_P_NULLABLE) && !(p->kind == SF_HANDLE || p->kind == SF_STRING))
    return fail_at(ps, &ts.at, "only handles and strings can be nullable");
  if ((quals & SF_P_NULLABLE) && (quals & SF_P_OUT))
    return fail_at(ps, &ts.at, "an out parameter cannot be nullable");
  if ((quals & SF_P_KEEP) && !(p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY))
    return fail_at(ps, &ts.at, "only strings and buffers can be kept");
  if (p->kind == SF_ENUM || p->kind == SF_FLAGS) {
    p->lo = 0;
    p->hi = UINT64_MAX;
  } else {
    kind_bounds(p->kind, &p->lo, &p->hi);
  }
  x->has_cons = false;
  x->cons_at = ps->tok;
  if (sf_tok_is(&ps->tok, "in") || sf_tok_is(&ps->tok, "!=") || sf_tok_is(&ps->tok, "==") ||
      sf_tok_is(&ps->tok, "<") || sf_tok_is(&ps->tok, ">") || sf_tok_is(&ps->tok, "<=") ||
      sf_tok_is(&ps->tok, ">=")) {
    x->has_cons = true;
    if (!sf_kind_is_int(p->kind) || (quals & SF_P_OUT) || p->kind == SF_BUFFER)
      return fail_at(ps, &ps->tok, "constraints apply to integer parameters only");
    if (!parse_constraints(ps, p)) return false;
  }
  (void)bt;
  return true;
}

static bool parse_error_conv(parser *ps, sf_func *f) {
  sf_tok at = ps->tok;
  if (accept(ps, "null")) {
    if (f->ret.kind != SF_HANDLE && f->ret.kind != SF_STRING)
      return fail_at(ps, &at, "'error null' needs a pointer result");
    f->err_cmp = SF_CMP_NULL;
    return true;
  }
  static const struct {
    const char *op;
    sf_cmp cmp;
  } ops[] = {{"==", SF_CMP_EQ}, {"!=", SF_CMP_NE}, {"<", SF_CMP_LT},
             {"<=", SF_CMP_LE}, {">", SF_CMP_GT},  {">=", SF_CMP_GE}};
  for (size_t i = 0; i < 6; i++) {
    if (sf_tok_is(&ps->tok, ops[i].op)) {
      next(ps);
      if (!sf_kind_is_int(f->ret.kind) && f->ret.kind != SF_BOOL && f->ret.kind != SF_ENUM &&
          f->ret.kind != SF_FLAGS)
        return fail_at(ps, &at, "a comparison error convention needs an integer result");
      f->err_cmp = ops[i].cmp;
      sf_tok vt = ps->tok;
      if (!parse_int_value(ps, &f->err_value)) return false;
      sf_kind k = f->ret.kind == SF_ENUM || f->ret.kind == SF_FLAGS
                      ? ps->api->enums[f->ret.type_index].base
                      : f->ret.kind;
      uint64_t lo, hi;
      kind_bounds(k, &lo, &hi);
      if (!le(k, lo, f->err_value) || !le(k, f->err_value, hi))
        return fail(ps, vt.line, vt.col, "%lld is outside the result type %s",
                    (long long)f->err_value, sf_kind_name(k));
      if ((f->err_cmp == SF_CMP_LT && f->err_value == lo) ||
          (f->err_cmp == SF_CMP_GT && f->err_value == hi))
        return fail(ps, vt.line, vt.col, "this error convention can never hold for %s",
                    sf_kind_name(k));
      return true;
    }
  }
  return fail_at(ps, &ps->tok, "expected 'null' or a comparison (== != < <= > >=)");
}

/* `inverse_of PRINTER`, on a parser: one input, a string; one handle result
 * the caller owns. Or on a feeder: one input handle (the destination) and one
 * string or buffer, producing nothing. The printer is checked once it is
 * known (resolve_pending). */
static bool parse_inverse_of(parser *ps, sf_func *f, uint32_t fidx, const sf_tok *at) {
  uint32_t nin = 0, ntext = 0, nhandles = 0, nout = 0;
  for (uint32_t j = 0; j < f->nparams; j++) {
    const sf_param *p = &f->params[j];
    nout += (p->flags & SF_P_OUT) != 0;
    if (!sf_param_is_input(p)) continue;
    nin++;
    ntext += (p->kind == SF_STRING || (p->kind == SF_BUFFER && sf_kind_size(p->elem) == 1)) &&
             !(p->flags & SF_P_NULLABLE);
    nhandles += p->kind == SF_HANDLE;
  }
  bool parser = f->ret.kind == SF_HANDLE && nout == 0 && nin == 1 && ntext == 1 &&
                f->params[0].kind == SF_STRING;
  bool feeder = f->ret.kind != SF_HANDLE && nout == 0 && nin == 2 && ntext == 1 && nhandles == 1;
  if (!parser && !feeder)
    return fail_at(ps, at,
                   "inverse_of needs a function of one string returning a handle, or of one "
                   "handle and one string or byte buffer returning no handle");
  if (parser && f->owner_param >= 0)
    return fail_at(ps, at, "inverse_of needs a result the caller owns");
  if (f->inverse_of >= 0) return fail_at(ps, at, "inverse_of given twice");
  f->inverse_of = 0; /* set by resolve_pending */
  pending_ref *r = push(&ps->pending, &ps->npending, sizeof *r);
  if (!r) return oom(ps);
  r->func = fidx;
  r->slot = UINT32_MAX;
  r->line = ps->tok.line;
  r->col = ps->tok.col;
  return expect_ident(ps, "a function name", &r->name);
}

static void expr_free(sf_expr *e) {
  if (!e) return;
  for (uint32_t k = 0; k < e->nkids; k++)
    expr_free(e->kids[k]);
  free(e->kids);
  free((char *)e->str);
  free(e);
}

/* ---- contracts: expressions (docs/grammar.md §4a) ----------------------- */

/* Where an expression is written: a function's `ensures` (f set) or an
 * invariant (its variable's name and handle type). */
typedef struct expr_scope {
  const sf_func *f;
  const char *var;
  uint32_t var_handle;
  bool pre; /* a precondition (`requires`): no ret, no old, no out parameter */
  bool in_old;
  uint32_t nold;
} expr_scope;

/* A call's name is resolved after the whole file is read (observers are
 * often declared after the functions whose contracts use them): until then
 * it is kept in str, and where it was written in value (line << 32 | col). */
static sf_expr *new_expr(parser *ps, sf_expr_op op) {
  sf_expr *e = calloc(1, sizeof *e);
  if (!e) oom(ps);
  if (e) {
    e->op = op;
    e->line = ps->tok.line;
    e->col = ps->tok.col;
  }
  return e;
}

/* e written at token t (NULL e passes through). */
static sf_expr *placed(sf_expr *e, const sf_tok *t) {
  if (e) {
    e->line = t->line;
    e->col = t->col;
  }
  return e;
}

static bool add_kid(parser *ps, sf_expr *e, sf_expr *kid) {
  sf_expr **slot = push(&e->kids, &e->nkids, sizeof *slot);
  if (!slot) {
    expr_free(kid);
    return oom(ps);
  }
  *slot = kid;
  return true;
}

static sf_expr *parse_or(parser *ps, expr_scope *sc);

static sf_expr *binary(parser *ps, sf_expr_op op, sf_expr *l, sf_expr *r) {
  if (!l || !r) {
    expr_free(l);
    expr_free(r);
    return NULL;
  }
  sf_expr *e = new_expr(ps, op);
  if (e) {
    e->line = l->line;
    e->col = l->col;
  }
  if (!e || !add_kid(ps, e, l) || !add_kid(ps, e, r)) {
    if (e)
      expr_free(e);
    else {
      expr_free(l);
      expr_free(r);
    }
    return NULL;
  }
  return e;
}

static sf_expr *parse_primary(parser *ps, expr_scope *sc) {
  sf_tok t = ps->tok;
  if (t.kind == SF_TOK_INT || t.kind == SF_TOK_FLOAT) {
    sf_expr *e = new_expr(ps, t.kind == SF_TOK_INT ? SF_E_INT : SF_E_FLOAT);
    if (e) {
      e->value = (int64_t)t.u; /* the lexer negated a negative literal already */
      e->fvalue = t.d;
    }
    next(ps);
    return e;
  }
  if (t.kind == SF_TOK_STRING) {
    sf_expr *e = new_expr(ps, SF_E_STR);
    if (e && !(e->str = dupn((const char *)ps->lx.text.data, ps->lx.text.len))) {
      free(e);
      e = NULL;
      oom(ps);
    }
    next(ps);
    return e;
  }
  if (accept(ps, "(")) {
    sf_expr *e = parse_or(ps, sc);
    if (e && !expect(ps, ")")) {
      expr_free(e);
      return NULL;
    }
    return e;
  }
  if (t.kind != SF_TOK_IDENT) {
    fail_at(ps, &t, "expected a value, a name or '('");
    return NULL;
  }
  next(ps);
  if (name_is("null", &t)) return placed(new_expr(ps, SF_E_NULL), &t);
  if (name_is("old", &t) && sf_tok_is(&ps->tok, "(")) {
    if (sc->pre) {
      fail_at(ps, &t, "old() is for postconditions: a precondition is read before the call");
      return NULL;
    }
    if (!sc->f) {
      fail_at(ps, &t, "old() is for postconditions: an invariant holds at all times");
      return NULL;
    }
    if (sc->in_old) {
      fail_at(ps, &t, "old() inside old()");
      return NULL;
    }
    next(ps);
    sc->in_old = true;
    sf_expr *inner = parse_or(ps, sc);
    sc->in_old = false;
    if (!inner || !expect(ps, ")")) {
      expr_free(inner);
      return NULL;
    }
    sf_expr *e = placed(new_expr(ps, SF_E_OLD), &t);
    if (!e || !add_kid(ps, e, inner)) {
      if (!e) expr_free(inner);
      free(e);
      return NULL;
    }
    e->index = sc->nold++;
    return e;
  }
  if (sf_tok_is(&ps->tok, "(")) { /* an observer call, resolved later */
    next(ps);
    sf_expr *e = placed(new_expr(ps, SF_E_CALL), &t);
    if (!e) return NULL;
    e->index = UINT32_MAX;
    e->value = (int64_t)((uint64_t)t.line << 32 | t.col);
    if (!(e->str = dupn(t.start, t.len))) {
      free(e);
      oom(ps);
      return NULL;
    }
    if (!sf_tok_is(&ps->tok, ")")) {
      do {
        sf_expr *arg = parse_or(ps, sc);
        if (!arg || !add_kid(ps, e, arg)) {
          expr_free(e);
          return NULL;
        }
      } while (accept(ps, ","));
    }
    if (!expect(ps, ")")) {
      expr_free(e);
      return NULL;
    }
    return e;
  }
  if (sc->f && name_is("ret", &t)) {
    if (sc->pre) {
      fail_at(ps, &t, "'ret' has no value before the call");
      return NULL;
    }
    if (sc->f->ret.kind == SF_VOID) {
      fail_at(ps, &t, "'ret': the function returns nothing");
      return NULL;
    }
    if (sc->in_old) {
      fail_at(ps, &t, "'ret' has no value before the call");
      return NULL;
    }
    return placed(new_expr(ps, SF_E_RET), &t);
  }
  if (sc->var && name_is(sc->var, &t)) return placed(new_expr(ps, SF_E_PARAM), &t);
  for (uint32_t j = 0; sc->f && j < sc->f->nparams; j++) {
    const sf_param *p = &sc->f->params[j];
    if (!name_is(p->name, &t)) continue;
    if ((sc->in_old || sc->pre) && (p->flags & SF_P_OUT)) {
      fail(ps, t.line, t.col, "'%s' is written by the call: it has no value before it", p->name);
      return NULL;
    }
    sf_expr *e = placed(new_expr(ps, SF_E_PARAM), &t);
    if (e) e->index = j;
    return e;
  }
  const sf_const *c = find_const(ps->api, &t);
  if (c) {
    sf_expr *e = placed(new_expr(ps, SF_E_INT), &t);
    if (e) e->value = c->value;
    return e;
  }
  fail(ps, t.line, t.col, "unknown name '%.*s' (a parameter, 'ret', a constant or an observer)",
       (int)t.len, t.start);
  return NULL;
}

static sf_expr *parse_unary(parser *ps, expr_scope *sc) {
  sf_tok t = ps->tok;
  sf_expr_op op;
  if (accept(ps, "!"))
    op = SF_E_NOT;
  else if (accept(ps, "-"))
    op = SF_E_NEG;
  else
    return parse_primary(ps, sc);
  sf_expr *kid = parse_unary(ps, sc);
  if (!kid) return NULL;
  sf_expr *e = placed(new_expr(ps, op), &t);
  if (!e || !add_kid(ps, e, kid)) {
    if (!e) expr_free(kid);
    free(e);
    return NULL;
  }
  return e;
}

/* A literal written directly after an operand, "-1" in "a -1", is lexed as
 * a negative number: it is a subtraction. */
static bool negative_literal(const parser *ps) {
  return (ps->tok.kind == SF_TOK_INT || ps->tok.kind == SF_TOK_FLOAT) && ps->tok.neg;
}

static sf_expr *parse_product(parser *ps, expr_scope *sc) {
  sf_expr *l = parse_unary(ps, sc);
  while (l) {
    sf_expr_op op;
    if (accept(ps, "*"))
      op = SF_E_MUL;
    else if (accept(ps, "/"))
      op = SF_E_DIV;
    else if (accept(ps, "%"))
      op = SF_E_MOD;
    else
      break;
    l = binary(ps, op, l, parse_unary(ps, sc));
  }
  return l;
}

static sf_expr *parse_sum(parser *ps, expr_scope *sc) {
  sf_expr *l = parse_product(ps, sc);
  while (l) {
    if (negative_literal(ps)) { /* "x -1": x + (-1) */
      l = binary(ps, SF_E_ADD, l, parse_product(ps, sc));
      continue;
    }
    sf_expr_op op;
    if (accept(ps, "+"))
      op = SF_E_ADD;
    else if (accept(ps, "-"))
      op = SF_E_SUB;
    else
      break;
    l = binary(ps, op, l, parse_product(ps, sc));
  }
  return l;
}

static sf_expr *parse_compare(parser *ps, expr_scope *sc) {
  sf_expr *l = parse_sum(ps, sc);
  static const struct {
    const char *s;
    sf_expr_op op;
  } ops[] = {{"==", SF_E_EQ}, {"!=", SF_E_NE}, {"<=", SF_E_LE},
             {">=", SF_E_GE}, {"<", SF_E_LT},  {">", SF_E_GT}};
  for (size_t i = 0; l && i < sizeof ops / sizeof *ops; i++)
    if (accept(ps, ops[i].s)) return binary(ps, ops[i].op, l, parse_sum(ps, sc));
  return l;
}

static sf_expr *parse_and(parser *ps, expr_scope *sc) {
  sf_expr *l = parse_compare(ps, sc);
  while (l && accept(ps, "&&"))
    l = binary(ps, SF_E_AND, l, parse_compare(ps, sc));
  return l;
}

static sf_expr *parse_or(parser *ps, expr_scope *sc) {
  sf_expr *l = parse_and(ps, sc);
  while (l && accept(ps, "||"))
    l = binary(ps, SF_E_OR, l, parse_and(ps, sc));
  return l;
}

/* A contract: the expression and its text as written. */
static bool parse_contract(parser *ps, expr_scope *sc, sf_contract *c) {
  c->line = ps->tok.line;
  const char *start = ps->tok.start;
  c->expr = parse_or(ps, sc);
  if (!c->expr) return false;
  c->nold = sc->nold;
  if (!(c->text = dupn(start, (size_t)(ps->prev_end - start)))) return oom(ps);
  return true;
}

static bool parse_invariant(parser *ps) {
  sf_tok t = ps->tok;
  int32_t h = -1;
  for (uint32_t i = 0; i < ps->api->nhandles; i++)
    if (name_is(ps->api->handles[i].name, &t)) h = (int32_t)i;
  if (h < 0) return fail_at(ps, &t, "expected a handle type");
  next(ps);
  sf_invariant *inv = push(&ps->api->invariants, &ps->api->ninvariants, sizeof *inv);
  if (!inv) return oom(ps);
  inv->handle = (uint32_t)h;
  if (!expect_ident(ps, "a name for the handle", (char **)&inv->var)) return false;
  if (!expect(ps, ":")) return false;
  expr_scope sc = {.var = inv->var, .var_handle = (uint32_t)h};
  return parse_contract(ps, &sc, &inv->contract) && expect(ps, ";");
}

/* The kind of value e has: a handle type (>= 0), or -1 (a number or a
 * string), -2 (unknown until run time: null). */
static int32_t expr_handle(const sf_api *api, const expr_scope *sc, const sf_expr *e) {
  if (e->op == SF_E_RET) return sc->f->ret.kind == SF_HANDLE ? (int32_t)sc->f->ret.type_index : -1;
  if (e->op == SF_E_PARAM && sc->var) return (int32_t)sc->var_handle;
  if (e->op == SF_E_PARAM) {
    const sf_param *p = &sc->f->params[e->index];
    return p->kind == SF_HANDLE ? (int32_t)p->type_index : -1;
  }
  if (e->op == SF_E_OLD) return expr_handle(api, sc, e->kids[0]);
  if (e->op == SF_E_NULL) return -2;
  return -1;
}

/* Two handle types of one C type (cJSON's trees and its borrowed nodes): an
 * observer of one may look at the other. */
static bool same_ctype(const sf_api *api, uint32_t a, uint32_t b) {
  return strcmp(api->handles[a].ctype, api->handles[b].ctype) == 0;
}

/* Resolve the observer calls of e, now that every function is declared. */
static void resolve_expr(parser *ps, const expr_scope *sc, sf_expr *e) {
  for (uint32_t k = 0; k < e->nkids; k++)
    resolve_expr(ps, sc, e->kids[k]);
  if (e->op != SF_E_CALL || e->index != UINT32_MAX) return;
  uint32_t line = (uint32_t)((uint64_t)e->value >> 32), col = (uint32_t)e->value;
  for (uint32_t i = 0; i < ps->api->nstates; i++) {
    const sf_state *st = &ps->api->states[i];
    if (strcmp(st->name, e->str) != 0) continue;
    int32_t h = e->nkids == 1 ? expr_handle(ps->api, sc, e->kids[0]) : -1;
    if (h < 0 || !((uint32_t)h == st->handle || same_ctype(ps->api, (uint32_t)h, st->handle))) {
      fail(ps, line, col, "state '%s' takes one %s", st->name, ps->api->handles[st->handle].name);
      return;
    }
    free((char *)e->str);
    e->str = NULL;
    e->value = 0;
    e->op = SF_E_STATE;
    e->index = i;
    return;
  }
  int32_t fi = sf_api_find_func(ps->api, e->str);
  if (fi < 0) {
    fail(ps, line, col, "no function named '%s'", e->str);
    return;
  }
  const sf_func *g = &ps->api->funcs[fi];
  if (!(g->flags & SF_F_OBSERVER)) {
    fail(ps, line, col, "'%s' is not an observer: a contract may call only observers", g->name);
    return;
  }
  uint32_t inputs = 0;
  for (uint32_t j = 0; j < g->nparams; j++) {
    const sf_param *p = &g->params[j];
    if (!sf_param_is_input(p)) continue;
    if (inputs < e->nkids) {
      const sf_expr *a = e->kids[inputs];
      int32_t h = expr_handle(ps->api, sc, a);
      bool ok = p->kind == SF_HANDLE ? (h >= 0 && ((uint32_t)h == p->type_index ||
                                                   same_ctype(ps->api, (uint32_t)h, p->type_index)))
                : p->kind == SF_STRING || sf_kind_is_int(p->kind) || p->kind == SF_ENUM ||
                        p->kind == SF_FLAGS || p->kind == SF_BOOL || p->kind == SF_F32 ||
                        p->kind == SF_F64
                    ? h == -1
                    : false;
      if (!ok) {
        fail(ps, line, col, "argument %u of '%s' must be %s", inputs + 1, g->name,
             p->kind == SF_HANDLE   ? ps->api->handles[p->type_index].name
             : p->kind == SF_STRING ? "a string"
             : p->kind == SF_BUFFER || p->kind == SF_ARRAY
                 ? "(nothing: an observer in a contract takes no buffer)"
                 : "a number");
        return;
      }
    }
    inputs++;
  }
  if (inputs != e->nkids) {
    fail(ps, line, col, "'%s' takes %u argument%s, not %u", g->name, inputs, inputs == 1 ? "" : "s",
         e->nkids);
    return;
  }
  free((char *)e->str);
  e->str = NULL;
  e->value = 0;
  e->index = (uint32_t)fi;
}

/* What kind of value e has: 'n' a number, 's' a string, 'h' a handle, 'z'
 * null; 0 after an error (reported). Checks the operands of operators. */
static char expr_kind(parser *ps, const expr_scope *sc, const sf_expr *e) {
  static const char *const names[] = {
      ['n'] = "a number", ['s'] = "a string", ['h'] = "a handle", ['z'] = "null"};
  char a = 0, b = 0;
  if (e->nkids > 0 && !(a = expr_kind(ps, sc, e->kids[0]))) return 0;
  if (e->nkids > 1 && e->op != SF_E_CALL && !(b = expr_kind(ps, sc, e->kids[1]))) return 0;
  const sf_param *p = NULL;
  switch (e->op) {
  case SF_E_INT:
  case SF_E_FLOAT:
    return 'n';
  case SF_E_STR:
    return 's';
  case SF_E_NULL:
    return 'z';
  case SF_E_RET:
    p = &sc->f->ret;
    break;
  case SF_E_PARAM:
    if (sc->var) return 'h';
    p = &sc->f->params[e->index];
    if (p->flags & SF_P_LENGTH) return 'n';
    break;
  case SF_E_CALL:
    if (e->index >= ps->api->nfuncs) return 0;
    p = &ps->api->funcs[e->index].ret;
    break;
  case SF_E_STATE:
    return 'n';
  case SF_E_OLD:
    return a;
  case SF_E_NOT:
  case SF_E_AND:
  case SF_E_OR:
    return 'n';
  case SF_E_EQ:
  case SF_E_NE:
    if (a == b || (a == 'z' && (b == 's' || b == 'h')) || (b == 'z' && (a == 's' || a == 'h')))
      return 'n';
    fail(ps, e->line, e->col, "cannot compare %s with %s", names[(int)a], names[(int)b]);
    return 0;
  case SF_E_LT:
  case SF_E_LE:
  case SF_E_GT:
  case SF_E_GE:
    if (a == b && (a == 'n' || a == 's')) return 'n';
    fail(ps, e->line, e->col, "cannot order %s and %s", names[(int)a], names[(int)b]);
    return 0;
  default: /* arithmetic, negation */
    if (a == 'n' && (e->nkids < 2 || b == 'n')) return 'n';
    fail(ps, e->line, e->col, "arithmetic takes numbers, not %s", names[(int)(a != 'n' ? a : b)]);
    return 0;
  }
  if (p->kind == SF_HANDLE) return 'h';
  if (p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY) return 's';
  return 'n';
}

static void resolve_contracts(parser *ps) {
  for (uint32_t i = 0; i < ps->api->nfuncs; i++) {
    expr_scope sc = {.f = &ps->api->funcs[i]};
    for (uint32_t k = 0; k < ps->api->funcs[i].nensures; k++) {
      int before = ps->nerrors;
      resolve_expr(ps, &sc, ps->api->funcs[i].ensures[k].expr);
      if (ps->nerrors == before) expr_kind(ps, &sc, ps->api->funcs[i].ensures[k].expr);
    }
    for (uint32_t k = 0; k < ps->api->funcs[i].nsets; k++) {
      int before = ps->nerrors;
      resolve_expr(ps, &sc, ps->api->funcs[i].sets[k].value.expr);
      if (ps->nerrors == before) expr_kind(ps, &sc, ps->api->funcs[i].sets[k].value.expr);
    }
    sc.pre = true;
    for (uint32_t k = 0; k < ps->api->funcs[i].nrequires; k++) {
      int before = ps->nerrors;
      resolve_expr(ps, &sc, ps->api->funcs[i].requires[k].expr);
      if (ps->nerrors == before) expr_kind(ps, &sc, ps->api->funcs[i].requires[k].expr);
    }
  }
  for (uint32_t i = 0; i < ps->api->ninvariants; i++) {
    sf_invariant *inv = &ps->api->invariants[i];
    expr_scope sc = {.var = inv->var, .var_handle = inv->handle};
    int before = ps->nerrors;
    resolve_expr(ps, &sc, inv->contract.expr);
    if (ps->nerrors == before) expr_kind(ps, &sc, inv->contract.expr);
  }
}

/* ---- differential mode -------------------------------------------------- */

static int32_t expect_func(parser *ps) {
  sf_tok t = ps->tok;
  int32_t fi = -1;
  for (uint32_t i = 0; i < ps->api->nfuncs; i++)
    if (name_is(ps->api->funcs[i].name, &t)) fi = (int32_t)i;
  if (fi < 0) {
    fail(ps, t.line, t.col, "no function named '%.*s' (declare it before the block)", (int)t.len,
         t.start);
    return -1;
  }
  next(ps);
  return fi;
}

/* One entry of a differential block, up to its ';'. */
static bool parse_diff_entry(parser *ps, sf_differential *d) {
  sf_api *api = ps->api;
  if (accept(ps, "prefix")) {
    if (d->prefix) return fail_at(ps, &ps->tok, "prefix given twice");
    if (!expect_string(ps, (char **)&d->prefix)) return false;
  } else if (accept(ps, "ignore")) {
    do {
      int32_t fi = expect_func(ps);
      if (fi < 0) return false;
      d->ignore[fi] = 1;
    } while (accept(ps, ","));
  } else if (accept(ps, "tolerance")) {
    int32_t fi = expect_func(ps);
    if (fi < 0) return false;
    sf_tok v = ps->tok;
    if (v.kind != SF_TOK_FLOAT && v.kind != SF_TOK_INT)
      return fail_at(ps, &v, "expected a relative tolerance (a number)");
    double tol = v.kind == SF_TOK_FLOAT ? v.d : (double)v.u;
    if (v.neg || !(tol >= 0 && tol < 1))
      return fail_at(ps, &v, "a relative tolerance is at least 0 and below 1");
    d->tolerance[fi] = tol;
    next(ps);
  } else {
    sf_tok at = ps->tok;
    /* A function, or a `release` symbol some function names. */
    int32_t fi = -1, ri = -1;
    for (uint32_t i = 0; i < api->nfuncs; i++) {
      if (name_is(api->funcs[i].name, &at)) fi = (int32_t)i;
      if (api->funcs[i].release && name_is(api->funcs[i].release, &at)) ri = (int32_t)i;
    }
    if (fi < 0 && ri < 0)
      return fail(ps, at.line, at.col,
                  "no function or release symbol named '%.*s' (declare it before the block)",
                  (int)at.len, at.start);
    next(ps);
    char *sym = NULL;
    if (!expect(ps, "=") || !expect_ident(ps, "the symbol of the second implementation", &sym))
      return false;
    const char **slot = fi >= 0 ? &d->symbol[fi] : NULL;
    if (!slot) {
      char **from = push(&d->release_from, &d->nreleases, sizeof *from);
      d->nreleases--;
      const char **to = from ? push(&d->release_to, &d->nreleases, sizeof *to) : NULL;
      if (!to) {
        free(sym);
        return oom(ps);
      }
      *from = dupn(at.start, at.len);
      *to = sym;
      return *from ? true : oom(ps);
    }
    if (*slot) {
      free(sym);
      return fail(ps, at.line, at.col, "'%s' is mapped twice", api->funcs[fi].name);
    }
    *slot = sym;
  }
  return true;
}

/* differential NAME { f = symbol; prefix "p_"; ignore f, g; tolerance f 1e-9; } */
static bool parse_differential(parser *ps) {
  sf_api *api = ps->api;
  sf_tok at = ps->tok;
  if (api->diff) return fail_at(ps, &at, "one differential statement per API");
  sf_differential *d = calloc(1, sizeof *d);
  if (!d) return oom(ps);
  api->diff = d;
  d->line = at.line;
  d->symbol = calloc(api->nfuncs + 1, sizeof *d->symbol);
  d->ignore = calloc(api->nfuncs + 1, 1);
  d->tolerance = calloc(api->nfuncs + 1, sizeof *d->tolerance);
  if (!d->symbol || !d->ignore || !d->tolerance) return oom(ps);
  if (!expect_ident(ps, "a name for the second implementation", (char **)&d->name)) return false;
  if (!expect(ps, "{")) return false;
  while (!accept(ps, "}")) {
    if (ps->tok.kind == SF_TOK_EOF) return fail_at(ps, &ps->tok, "expected '}'");
    if (parse_diff_entry(ps, d) && expect(ps, ";")) continue;
    /* Skip the rest of the entry: the block goes on. */
    while (ps->tok.kind != SF_TOK_EOF && !sf_tok_is(&ps->tok, ";") && !sf_tok_is(&ps->tok, "}"))
      next(ps);
    accept(ps, ";");
    if (ps->nerrors >= MAX_ERRORS) return false;
  }
  accept(ps, ";");
  return true;
}

/* The parameter named next (owned_by P, depends_on P): a handle f borrows
 * (neither out nor consumed). Its index in *out; false after an error. */
static bool borrowed_handle_param(parser *ps, sf_func *f, int32_t *out, const char *not_borrowed) {
  sf_tok n = ps->tok;
  if (n.kind != SF_TOK_IDENT) return fail_at(ps, &n, "expected a parameter name");
  next(ps);
  for (uint32_t j = 0; j < f->nparams; j++)
    if (name_is(f->params[j].name, &n)) *out = (int32_t)j;
  if (*out < 0) return fail(ps, n.line, n.col, "no parameter named '%.*s'", (int)n.len, n.start);
  const sf_param *p = &f->params[*out];
  if (p->kind != SF_HANDLE || (p->flags & (SF_P_OUT | SF_P_CONSUME)))
    return fail(ps, n.line, n.col, "%s", not_borrowed);
  return true;
}

static bool is_param_name(const sf_func *f, const sf_tok *t) {
  for (uint32_t j = 0; j < f->nparams; j++)
    if (name_is(f->params[j].name, t)) return true;
  return false;
}

/* `sets NAME(p) = EXPR` (api.h: sf_set). */
static bool parse_sets(parser *ps, sf_func *f, const sf_tok *at) {
  int32_t st = -1;
  for (uint32_t i = 0; i < ps->api->nstates; i++)
    if (name_is(ps->api->states[i].name, &ps->tok)) st = (int32_t)i;
  if (st < 0)
    return fail_at(ps, &ps->tok, "expected a state declared before ('state T name(H *h);')");
  next(ps);
  sf_set *set = push(&f->sets, &f->nsets, sizeof *set);
  if (!set) return oom(ps);
  set->state = (uint32_t)st;
  int32_t pi = -1;
  if (!expect(ps, "(")) return false;
  sf_tok n = ps->tok;
  for (uint32_t j = 0; j < f->nparams && n.kind == SF_TOK_IDENT; j++)
    if (name_is(f->params[j].name, &n)) pi = (int32_t)j;
  if (pi < 0 || f->params[pi].kind != SF_HANDLE || (f->params[pi].flags & SF_P_OUT) ||
      f->params[pi].type_index != ps->api->states[st].handle)
    return fail_at(ps, &n, "expected an input parameter of the state's handle type");
  set->param = (uint32_t)pi;
  next(ps);
  if (!expect(ps, ")") || !expect(ps, "=")) return false;
  expr_scope sc = {.f = f};
  (void)at;
  return parse_contract(ps, &sc, &set->value);
}

/* `state T NAME(H *h);` (api.h: sf_state). */
static bool parse_state(parser *ps) {
  type_spec ts;
  if (!parse_type(ps, &ts)) return false;
  if (!check_new_name(ps)) return false;
  sf_state *st = push(&ps->api->states, &ps->api->nstates, sizeof *st);
  if (!st) return oom(ps);
  st->line = ps->tok.line;
  st->ret.len_param = st->ret.len_of = -1;
  st->ret.kind = ts.kind;
  st->ret.type_index = ts.index;
  if (ts.stars || ts.shape ||
      !(sf_kind_is_int(ts.kind) || ts.kind == SF_BOOL || ts.kind == SF_ENUM))
    return fail_at(ps, &ts.at, "a state is a number, a bool or an enum");
  if (!(st->ret.ctype = strdup(ts.base_ctype))) return oom(ps);
  if (!expect_ident(ps, "a state name", (char **)&st->name) || !expect(ps, "(")) return false;
  type_spec hs;
  if (!parse_type(ps, &hs)) return false;
  if (hs.kind != SF_HANDLE || hs.stars != 1)
    return fail_at(ps, &hs.at, "a state belongs to a handle: 'state T name(H *h)'");
  st->handle = hs.index;
  char *pname = NULL;
  if (!expect_ident(ps, "a parameter name", &pname)) return false;
  free(pname);
  if (!expect(ps, ")")) return false;
  if (accept(ps, "coverage")) st->coverage = true;
  return expect(ps, ";");
}

/* `reads P->a.b`: f returns a member of its only parameter, a handle. */
static bool parse_reads(parser *ps, sf_func *f, const sf_tok *at) {
  if (f->reads) return fail_at(ps, at, "reads given twice");
  if (f->nparams != 1 || f->params[0].kind != SF_HANDLE || (f->params[0].flags & SF_P_OUT))
    return fail_at(ps, at, "a field read takes exactly one handle parameter");
  if (!(sf_kind_is_int(f->ret.kind) || f->ret.kind == SF_BOOL || f->ret.kind == SF_ENUM ||
        f->ret.kind == SF_FLAGS || f->ret.kind == SF_F32 || f->ret.kind == SF_F64))
    return fail_at(ps, at, "a field read returns a number, a bool or an enum");
  if (!name_is(f->params[0].name, &ps->tok))
    return fail_at(ps, &ps->tok, "expected the parameter's name, then '->' and a member");
  next(ps);
  sf_buf path = {0};
  bool ok = true;
  while (ok && (sf_tok_is(&ps->tok, "->") || sf_tok_is(&ps->tok, "."))) {
    ok = !sf_buf_printf(&path, "%s", ps->tok.punct);
    next(ps);
    if (ps->tok.kind != SF_TOK_IDENT) {
      sf_buf_free(&path);
      return fail_at(ps, &ps->tok, "expected a member name");
    }
    ok = ok && !sf_buf_printf(&path, "%.*s", (int)ps->tok.len, ps->tok.start);
    next(ps);
  }
  if (!path.len || path.data[0] != '-') {
    sf_buf_free(&path);
    return fail_at(ps, at, "write 'reads p->member' (the handle is a pointer)");
  }
  f->reads = ok ? sf_buf_cstr(&path) : NULL;
  if (!f->reads) {
    sf_buf_free(&path);
    return oom(ps);
  }
  return true;
}

static bool ptr_param(const sf_param *p) {
  return p->ctype && strcmp(p->ctype, "void *") == 0;
}

/* `callback RET NAME(PARAMS) [returns (in [lo, hi] | count)] [default K];`
 * (api.h: sf_callback). Parameters: numbers, strings, pointers and handles
 * are only passed; `out T *n` numbers and `out bytes b[n]` / `out bytes *b`
 * chunks are what the mock writes. */
static bool parse_vtable(parser *ps) {
  sf_api *api = ps->api;
  if (!check_new_name(ps)) return false;
  for (uint32_t i = 0; i < api->ncallbacks; i++)
    if (name_is(api->callbacks[i].name, &ps->tok))
      return fail_at(ps, &ps->tok, "a callback has this name");
  sf_vtable *vt = push(&api->vtables, &api->nvtables, sizeof *vt);
  if (!vt) return oom(ps);
  vt->line = ps->tok.line;
  if (!expect_ident(ps, "a vtable name", (char **)&vt->name)) return false;
  if (accept(ps, "=")) {
    if (!expect_string(ps, (char **)&vt->ctype)) return false;
  } else if (!(vt->ctype = strdup(vt->name))) {
    return oom(ps);
  }
  if (!expect(ps, "{")) return false;
  while (!accept(ps, "}")) {
    sf_tok at = ps->tok;
    if (vt->nslots == SF_MAX_VTABLE_SLOTS) return fail_at(ps, &at, "at most 16 members");
    sf_vtable_slot *sl = push(&vt->slots, &vt->nslots, sizeof *sl);
    if (!sl) return oom(ps);
    sl->nullable = accept(ps, "nullable");
    type_spec ts;
    if (!parse_type(ps, &ts)) return false;
    if (ts.shape != 'c' || ts.stars)
      return fail_at(ps, &ts.at, "a vtable member is 'CALLBACK name' (nullable allowed)");
    sl->callback = ts.index;
    if (!expect_ident(ps, "a member name", (char **)&sl->member)) return false;
    for (uint32_t j = 0; j + 1 < vt->nslots; j++)
      if (strcmp(vt->slots[j].member, sl->member) == 0) return fail_at(ps, &at, "duplicate member");
    if (!expect(ps, ";")) return false;
  }
  if (!vt->nslots) return fail(ps, vt->line, 1, "a vtable has at least one member");
  return expect(ps, ";");
}

void sf_vtable_scripts(const sf_vtable *vt, const uint8_t *v, uint32_t len, const uint8_t **scripts,
                       uint32_t *lens) {
  uint32_t pos = 0;
  for (uint32_t i = 0; i < vt->nslots; i++) {
    uint32_t n = 0;
    if (len - pos >= 2) {
      n = v[pos] | (uint32_t)v[pos + 1] << 8;
      pos += 2;
      if (n > len - pos) n = len - pos;
    }
    scripts[i] = v + pos;
    lens[i] = n;
    pos += n;
  }
}

static bool parse_callback(parser *ps) {
  sf_api *api = ps->api;
  type_spec rt;
  if (!parse_type(ps, &rt)) return false;
  if (!check_new_name(ps)) return false;
  sf_callback *cb = push(&api->callbacks, &api->ncallbacks, sizeof *cb);
  if (!cb) return oom(ps);
  cb->line = ps->tok.line;
  cb->ret.len_param = cb->ret.len_of = -1;
  cb->alloc_size = cb->alloc_by = cb->frees = -1;
  cb->ret.kind = rt.kind;
  bool returns_pointer = rt.shape == 'P' || (rt.is_void && rt.stars == 1);
  if (!(rt.is_void || sf_kind_is_int(rt.kind) || rt.kind == SF_BOOL || returns_pointer) ||
      (rt.stars && !returns_pointer) || (rt.shape && !returns_pointer))
    return fail_at(ps, &rt.at, "a callback returns void, an integer or (an allocator) a pointer");
  if (returns_pointer)
    rt.is_void = false, rt.kind = cb->ret.kind = SF_U64, rt.base_ctype = "void *";
  cb->ret.ctype = strdup(rt.base_ctype);
  if (!cb->ret.ctype) return oom(ps);
  kind_bounds(rt.kind, &cb->ret.lo, &cb->ret.hi);
  if (!expect_ident(ps, "a callback name", (char **)&cb->name) || !expect(ps, "(")) return false;
  sf_tok lens[64];
  if (sf_tok_is(&ps->tok, "void")) {
    next(ps);
  } else if (!sf_tok_is(&ps->tok, ")")) {
    do {
      if (cb->nparams == 64) return fail_at(ps, &ps->tok, "too many parameters (at most 64)");
      sf_param *p = push(&cb->params, &cb->nparams, sizeof *p);
      if (!p) return oom(ps);
      p->len_param = p->len_of = -1;
      bool out = accept(ps, "out");
      type_spec ts;
      if (!parse_type(ps, &ts)) return false;
      bool ptr = ts.shape == 'P' || (ts.is_void && ts.stars == 1);
      if (!ptr && (ts.is_void || (ts.shape && ts.shape != 'b')))
        return fail_at(ps, &ts.at, "a callback parameter is a number, string, pointer or handle");
      p->kind = ptr ? SF_U64 : ts.kind;
      p->type_index = ts.index;
      p->flags = out ? SF_P_OUT : 0;
      if (!expect_ident(ps, "a parameter name", (char **)&p->name)) return false;
      lens[cb->nparams - 1].len = 0;
      if (ptr) {
        if (out || ts.stars > 1) return fail_at(ps, &ts.at, "a pointer is only passed");
        p->ctype = strdup("void *");
      } else if (out && ts.is_bytes) { /* a chunk: b[n] (n a parameter) or *b */
        p->kind = SF_BUFFER;
        p->elem = SF_U8;
        if (ts.stars == 1 && !sf_tok_is(&ps->tok, "[")) {
          p->ctype = strdup("unsigned char **");
        } else if (!ts.stars && accept(ps, "[") && ps->tok.kind == SF_TOK_IDENT) {
          lens[cb->nparams - 1] = ps->tok;
          next(ps);
          if (!expect(ps, "]")) return false;
          p->ctype = strdup("unsigned char *");
        } else {
          return fail_at(ps, &ts.at,
                         "a chunk is 'out bytes b[n]' (n a parameter) or 'out bytes *b'");
        }
      } else if (out) {
        if (!(sf_kind_is_int(ts.kind) || ts.kind == SF_BOOL) || ts.stars != 1 || ts.shape)
          return fail_at(ps, &ts.at, "a callback writes 'out T *n' numbers and 'out bytes' chunks");
        p->ctype = make_ctype(ts.base_ctype, 1, false);
        if (accept(ps, "count")) p->flags |= SF_P_LENGTH; /* receives the chunk's length */
      } else if (ts.kind == SF_HANDLE) {
        if (ts.stars != 1) return fail_at(ps, &ts.at, "a handle is passed as 'T *name'");
        p->ctype = make_ctype(ts.base_ctype, 1, false);
      } else if (ts.kind == SF_STRING || (ts.kind == SF_I8 && ts.stars == 1)) {
        p->kind = SF_STRING;
        p->ctype = strdup("const char *");
      } else {
        if (ts.stars || ts.is_bytes)
          return fail_at(ps, &ts.at, "a callback parameter is a number, string, pointer or handle");
        p->ctype = strdup(ts.base_ctype);
      }
      if (!p->ctype) return oom(ps);
    } while (accept(ps, ","));
  }
  if (!expect(ps, ")")) return false;
  bool chunk = false, counted = false;
  for (uint32_t i = 0; i < cb->nparams; i++) {
    if (cb->params[i].kind == SF_BUFFER && chunk)
      return fail(ps, cb->line, 1, "a callback hands out at most one chunk");
    chunk |= cb->params[i].kind == SF_BUFFER;
    counted |= (cb->params[i].flags & SF_P_LENGTH) != 0;
  }
  if (counted && !chunk) return fail(ps, cb->line, 1, "a 'count' needs an 'out bytes' chunk");
  for (uint32_t i = 0; i < cb->nparams; i++) { /* bind chunks to their sizes */
    if (!lens[i].len) continue;
    for (uint32_t j = 0; j < cb->nparams; j++)
      if (name_is(cb->params[j].name, &lens[i]) && sf_kind_is_int(cb->params[j].kind) &&
          !(cb->params[j].flags & SF_P_OUT))
        cb->params[i].len_param = (int32_t)j;
    if (cb->params[i].len_param < 0)
      return fail(ps, lens[i].line, lens[i].col, "no integer parameter named '%.*s'",
                  (int)lens[i].len, lens[i].start);
  }
  bool has_default = false;
  for (;;) {
    sf_tok at = ps->tok;
    if (accept(ps, "allocates") || accept(ps, "frees")) {
      bool alloc = sf_tok_is(&at, "allocates");
      if (alloc != returns_pointer || (!alloc && !rt.is_void))
        return fail_at(ps, &at,
                       alloc ? "an allocator returns a pointer" : "a free callback returns void");
      for (int k = 0; k < (alloc ? 2 : 1); k++) {
        int32_t pi = -1;
        for (uint32_t j = 0; j < cb->nparams; j++)
          if (name_is(cb->params[j].name, &ps->tok) && !(cb->params[j].flags & SF_P_OUT) &&
              (alloc ? sf_kind_is_int(cb->params[j].kind) && !ptr_param(&cb->params[j])
                     : ptr_param(&cb->params[j])))
            pi = (int32_t)j;
        if (pi < 0)
          return fail_at(ps, &ps->tok,
                         alloc ? "expected an integer parameter (the size)"
                               : "expected a pointer parameter (what to free)");
        next(ps);
        *(alloc ? (k ? &cb->alloc_by : &cb->alloc_size) : &cb->frees) = pi;
        if (!alloc || !accept(ps, "*")) break;
      }
    } else if (accept(ps, "returns")) {
      if (rt.is_void) return fail_at(ps, &at, "a void callback returns nothing");
      if (accept(ps, "count")) {
        if (!chunk) return fail_at(ps, &at, "'returns count' needs an 'out bytes' chunk");
        cb->ret_is_count = true;
      } else if (!sf_tok_is(&ps->tok, "in")) {
        return fail_at(ps, &ps->tok, "expected 'in [lo, hi]' or 'count'");
      } else if (!parse_constraints(ps, &cb->ret)) {
        return false;
      }
    } else if (accept(ps, "default")) {
      if (rt.is_void) return fail_at(ps, &at, "a void callback returns nothing");
      if (!parse_int_value(ps, &cb->ret_default)) return false;
      has_default = true;
    } else {
      break;
    }
  }
  if (has_default && !sf_param_accepts(&cb->ret, cb->ret_default))
    return fail_at(ps, &ps->tok, "the default is outside the callback's range");
  if (returns_pointer && cb->alloc_size < 0)
    return fail_at(ps, &ps->tok, "a callback returning a pointer is an allocator: 'allocates n'");
  if (!has_default) cb->ret_default = sf_param_accepts(&cb->ret, 0) ? 0 : cb->ret.lo;
  return expect(ps, ";");
}

static bool parse_func(parser *ps) {
  sf_api *api = ps->api;
  type_spec rt;
  if (api->diff)
    return fail_at(ps, &ps->tok, "functions are declared before the differential statement");
  if (!parse_type(ps, &rt)) return false;
  if (!check_new_name(ps)) return false;
  uint32_t fidx = api->nfuncs;
  sf_func *f = push(&api->funcs, &api->nfuncs, sizeof *f);
  if (!f) return oom(ps);
  f->owner_param = -1;
  f->depends_param = f->rebind_param = f->rebind_to = f->locks_param = -1;
  f->inverse_of = -1;
  f->line = ps->tok.line;
  f->ret.len_param = f->ret.len_of = -1;
  f->ret.kind = rt.kind;
  f->ret.type_index = rt.index;
  if (rt.is_bytes) return fail_at(ps, &rt.at, "a function cannot return bytes");
  if (rt.kind == SF_HANDLE && rt.stars != 1)
    return fail_at(ps, &rt.at, "a handle is returned as 'T *'");
  if (rt.kind == SF_I8 && rt.stars == 1 && strcmp(rt.base_ctype, "char") == 0)
    f->ret.kind = SF_STRING;
  else if (rt.kind != SF_HANDLE && rt.stars)
    return fail_at(ps, &rt.at, "a function returns a handle, a string or a number");
  f->ret.ctype = f->ret.kind == SF_STRING
                     ? make_ctype("char", 1, rt.is_const || rt.kind == SF_STRING)
                     : make_ctype(rt.base_ctype, rt.stars, false);
  if (!f->ret.ctype) return oom(ps);
  kind_bounds(f->ret.kind, &f->ret.lo, &f->ret.hi);
  if (!expect_ident(ps, "a function name", (char **)&f->name)) return false;
  if (!expect(ps, "(")) return false;

  param_extra extras[64];
  bool variadic = false;
  if (sf_tok_is(&ps->tok, "void")) {
    next(ps);
  } else if (!sf_tok_is(&ps->tok, ")")) {
    do {
      if (!variadic && f->nparams && accept(ps, ".")) { /* `...`: the rest are variadic */
        if (!expect(ps, ".") || !expect(ps, ".")) return false;
        variadic = true;
        continue;
      }
      if (f->nparams == 64) return fail_at(ps, &ps->tok, "too many parameters (at most 64)");
      sf_param *p = push(&f->params, &f->nparams, sizeof *p);
      if (!p) return oom(ps);
      sf_tok at = ps->tok;
      if (!parse_param(ps, f, p, &extras[f->nparams - 1])) return false;
      if (variadic) {
        if (p->flags & SF_P_PRINTF) return fail_at(ps, &at, "a printf format is not variadic");
        if (p->kind == SF_F32 || ((sf_kind_size(p->kind) == 1 || sf_kind_size(p->kind) == 2) &&
                                  !(p->flags & SF_P_INT_BOOL)))
          return fail_at(ps, &at, "a variadic argument is promoted: write int or double");
        p->flags |= SF_P_VARIADIC;
      }
    } while (accept(ps, ","));
  }
  if (!expect(ps, ")")) return false;

  for (uint32_t i = 0; i + 1 < f->nparams; i++)
    if (f->params[i].flags & SF_P_PRINTF)
      return fail(ps, f->line, 1,
                  "'%s': a printf format is the last parameter (its arguments follow it)",
                  f->params[i].name);

  /* Bind buffers to their length parameters. */
  for (uint32_t i = 0; i < f->nparams; i++) {
    sf_param *p = &f->params[i];
    if (p->kind != SF_BUFFER ||
        (p->flags & (SF_P_MEMFILE | SF_P_MEMFD | SF_P_CALLBACK | SF_P_VTABLE)))
      continue;
    const sf_tok *ln = &extras[i].len_name;
    int32_t li = -1;
    for (uint32_t j = 0; j < f->nparams; j++)
      if (name_is(f->params[j].name, ln)) li = (int32_t)j;
    if (li < 0)
      return fail(ps, ln->line, ln->col, "no parameter named '%.*s'", (int)ln->len, ln->start);
    sf_param *lp = &f->params[li];
    if (!sf_kind_is_int(lp->kind) || (lp->flags & SF_P_OUT))
      return fail(ps, ln->line, ln->col, "length parameter '%s' must be an integer", lp->name);
    if (lp->flags & SF_P_LENGTH || lp->len_of >= 0)
      return fail(ps, ln->line, ln->col, "'%s' already measures another buffer", lp->name);
    /* An out buffer's length is an argument like any other (the sequence
     * chooses the size of the buffer the callee fills); an input buffer's
     * is derived from the buffer. */
    if (!(p->flags & SF_P_OUT)) lp->flags |= SF_P_LENGTH;
    lp->len_of = (int32_t)i;
    p->len_param = li;
    /* A length's range bounds the buffer size: never negative, at most 1 MiB. */
    if (sf_kind_is_signed(lp->kind) && (int64_t)lp->hi < 0)
      return fail(ps, ln->line, ln->col, "length parameter '%s' admits no size", lp->name);
    if (sf_kind_is_signed(lp->kind) && (int64_t)lp->lo < 0) lp->lo = 0;
    if (lp->hi > (1u << 20)) lp->hi = 1u << 20;
    if (lp->nexcluded)
      return fail(ps, extras[li].cons_at.line, extras[li].cons_at.col,
                  "a length accepts 'in [lo, hi]' and comparisons, not '!='");
  }

  /* Attributes. */
  sf_tok cov_at = ps->tok; /* where `coverage` was written */
  for (;;) {
    sf_tok at = ps->tok;
    if (accept(ps, "error")) {
      if (f->err_cmp != SF_CMP_NONE) return fail_at(ps, &at, "error convention given twice");
      if (!parse_error_conv(ps, f)) return false;
      if (accept(ps, "recoverable")) f->flags |= SF_F_RECOVERABLE;
    } else if (accept(ps, "recoverable")) {
      return fail_at(ps, &at,
                     "'recoverable' goes right after an error convention (error < 0 "
                     "recoverable)");
    } else if (accept(ps, "owned_by")) {
      if (!borrowed_handle_param(ps, f, &f->owner_param,
                                 "the owner must be a borrowed handle parameter"))
        return false;
      if (f->ret.kind != SF_HANDLE && f->ret.kind != SF_STRING)
        return fail_at(ps, &at, "only handle and string results can be owned");
    } else if (accept(ps, "invalidated_by")) {
      do {
        pending_ref *r = push(&ps->pending, &ps->npending, sizeof *r);
        if (!r) return oom(ps);
        r->func = fidx;
        r->line = ps->tok.line;
        r->col = ps->tok.col;
        if (!expect_ident(ps, "a function name", &r->name)) return false;
        uint32_t *slot = push(&f->invalidated_by, &f->ninvalidated_by, sizeof *slot);
        if (!slot) return oom(ps);
        r->slot = f->ninvalidated_by - 1;
      } while (accept(ps, ","));
    } else if (accept(ps, "inverse_of")) {
      if (!parse_inverse_of(ps, f, fidx, &at)) return false;
    } else if (accept(ps, "release")) {
      if (f->ret.kind != SF_STRING) return fail_at(ps, &at, "only string results are released");
      if (f->release) return fail_at(ps, &at, "release given twice");
      if (!expect_ident(ps, "a function name", (char **)&f->release)) return false;
    } else if (accept(ps, "destructor")) {
      if (f->flags & SF_F_OBSERVER)
        return fail_at(ps, &at, "an observer only reads its handle: it cannot be a destructor");
      f->flags |= SF_F_DESTRUCTOR;
      int32_t hp = -1;
      for (uint32_t j = 0; j < f->nparams && hp < 0; j++)
        if (f->params[j].kind == SF_HANDLE && !(f->params[j].flags & SF_P_OUT)) hp = (int32_t)j;
      if (hp < 0) return fail_at(ps, &at, "a destructor needs a handle parameter");
      f->params[hp].flags |= SF_P_CONSUME;
      for (uint32_t j = 0; j < f->nparams; j++)
        if ((int32_t)j != hp && sf_param_is_input(&f->params[j]))
          return fail_at(ps, &at, "a destructor takes only the handle it destroys");
      sf_handle_type *h = &api->handles[f->params[hp].type_index];
      if (h->destructor >= 0)
        return fail(ps, at.line, at.col, "handle type '%s' already has destructor '%s'", h->name,
                    api->funcs[h->destructor].name);
      h->destructor = (int32_t)fidx;
    } else if (accept(ps, "ensures")) {
      sf_contract *c = push(&f->ensures, &f->nensures, sizeof *c);
      if (!c) return oom(ps);
      expr_scope sc = {.f = f};
      if (!parse_contract(ps, &sc, c)) return false;
    } else if (accept(ps, "requires")) {
      sf_contract *c = push(&f->requires, &f->nrequires, sizeof *c);
      if (!c) return oom(ps);
      expr_scope sc = {.f = f, .pre = true};
      if (!parse_contract(ps, &sc, c)) return false;
    } else if (accept(ps, "depends_on")) {
      if (!borrowed_handle_param(ps, f, &f->depends_param,
                                 "what a result depends on must be a borrowed handle parameter"))
        return false;
      if (f->ret.kind != SF_HANDLE) return fail_at(ps, &at, "depends_on needs a handle result");
    } else if (accept(ps, "reads")) {
      if (!parse_reads(ps, f, &at)) return false;
    } else if (accept(ps, "locks")) {
      if (!borrowed_handle_param(ps, f, &f->locks_param,
                                 "what a result locks must be a borrowed handle parameter"))
        return false;
      if (f->ret.kind != SF_HANDLE || f->owner_param >= 0)
        return fail_at(ps, &at, "locks needs a handle result the caller owns");
    } else if (accept(ps, "sets")) {
      if (!parse_sets(ps, f, &at)) return false;
    } else if (ps->tok.kind == SF_TOK_IDENT && f->rebind_param < 0 && is_param_name(f, &ps->tok)) {
      /* `P depends_on Q` */
      if (!borrowed_handle_param(ps, f, &f->rebind_param,
                                 "what depends on another must be a borrowed handle parameter") ||
          !expect(ps, "depends_on") ||
          !borrowed_handle_param(ps, f, &f->rebind_to,
                                 "what a handle depends on must be a borrowed handle parameter"))
        return false;
      if (f->rebind_param == f->rebind_to)
        return fail_at(ps, &at, "a handle cannot depend on itself");
    } else if (accept(ps, "nondeterministic")) {
      f->flags |= SF_F_NONDETERMINISTIC;
    } else if (accept(ps, "coverage")) {
      f->flags |= SF_F_COVERAGE;
      cov_at = at;
    } else if (accept(ps, "observer")) {
      f->flags |= SF_F_OBSERVER;
      bool has_handle = false;
      for (uint32_t j = 0; j < f->nparams; j++)
        if (f->params[j].kind == SF_HANDLE && !(f->params[j].flags & SF_P_OUT)) has_handle = true;
      if (!has_handle) return fail_at(ps, &at, "an observer needs a handle parameter");
      if (f->flags & SF_F_DESTRUCTOR)
        return fail_at(ps, &at, "an observer only reads its handle: it cannot be a destructor");
      if (f->ret.kind == SF_VOID || f->ret.kind == SF_HANDLE)
        return fail_at(ps, &at, "an observer returns a number or a string");
    } else {
      break;
    }
  }
  if (f->ninvalidated_by && f->owner_param < 0)
    return fail(ps, ps->tok.line, ps->tok.col, "invalidated_by needs owned_by");
  /* The harness calls a coverage observer after calls, and a reproducer
   * the same way: just the handle in, a value to hash out. */
  if ((f->flags & SF_F_COVERAGE) &&
      (sf_func_state_observer(f) < 0 || f->nparams != 1 ||
       !(sf_kind_is_int(f->ret.kind) || f->ret.kind == SF_BOOL || f->ret.kind == SF_ENUM)))
    return fail_at(ps, &cov_at,
                   "coverage marks an observer that takes only its handle and returns a "
                   "number, a bool or an enum (no requires)");
  if (f->depends_param >= 0 && f->owner_param >= 0)
    return fail(ps, ps->tok.line, ps->tok.col,
                "an owned result dies with its owner: drop depends_on or owned_by");
  if (f->release && f->owner_param >= 0)
    return fail(ps, ps->tok.line, ps->tok.col,
                "an owned result is freed by its owner: drop release or owned_by");
  f->nproduced = f->ret.kind == SF_HANDLE;
  for (uint32_t j = 0; j < f->nparams; j++)
    if (f->params[j].kind == SF_HANDLE && (f->params[j].flags & SF_P_OUT)) f->nproduced++;
  return expect(ps, ";");
}

static bool parse_statement(parser *ps) {
  sf_tok t = ps->tok;
  if (t.kind == SF_TOK_ERROR) return fail_at(ps, &t, "");
  if (accept(ps, "api")) {
    if (ps->api->name) return fail_at(ps, &t, "api name given twice");
    return expect_ident(ps, "an API name", (char **)&ps->api->name) && expect(ps, ";");
  }
  if (accept(ps, "header") || accept(ps, "library")) {
    bool hdr = sf_tok_is(&t, "header");
    char *s;
    if (!expect_string(ps, &s)) return false;
    const char **slot = hdr ? push(&ps->api->headers, &ps->api->nheaders, sizeof *slot)
                            : push(&ps->api->libraries, &ps->api->nlibraries, sizeof *slot);
    if (!slot) {
      free(s);
      return oom(ps);
    }
    *slot = s;
    return expect(ps, ";");
  }
  if (accept(ps, "handle")) return parse_handle(ps);
  if (accept(ps, "default")) {
    if (!accept(ps, "nullable")) return fail_at(ps, &ps->tok, "expected 'nullable'");
    if (ps->api->nfuncs) return fail_at(ps, &t, "'default nullable' comes before every func");
    ps->api->default_nullable = true;
    return expect(ps, ";");
  }
  if (accept(ps, "enum")) return parse_enum(ps, false);
  if (accept(ps, "flags")) return parse_enum(ps, true);
  if (accept(ps, "dict")) return parse_dict(ps);
  if (accept(ps, "func")) return parse_func(ps);
  if (accept(ps, "invariant")) return parse_invariant(ps);
  if (accept(ps, "callback")) return parse_callback(ps);
  if (accept(ps, "vtable")) return parse_vtable(ps);
  if (accept(ps, "state")) return parse_state(ps);
  if (accept(ps, "differential")) return parse_differential(ps);
  return fail_at(ps, &t,
                 "expected a declaration (api, header, library, handle, default, enum, "
                 "flags, dict, callback, vtable, state, func, invariant or differential)");
}

static void resolve_pending(parser *ps) {
  for (uint32_t i = 0; i < ps->npending; i++) {
    pending_ref *r = &ps->pending[i];
    if (!r->name) continue;
    int32_t fi = sf_api_find_func(ps->api, r->name);
    if (fi < 0) {
      fail(ps, r->line, r->col, "no function named '%s'", r->name);
      continue;
    }
    if (r->slot == UINT32_MAX) {
      /* The printer: a string of one handle (of the parser's result type),
       * its length in an out integer if it may hold NULs (feeders only). */
      sf_func *parser_f = &ps->api->funcs[r->func];
      sf_func *g = &ps->api->funcs[fi];
      bool feeder = parser_f->ret.kind != SF_HANDLE;
      bool sized =
          g->nparams == 2 && (g->params[1].flags & SF_P_OUT) && sf_kind_is_int(g->params[1].kind);
      bool takes_bytes = false;
      for (uint32_t j = 0; j < parser_f->nparams; j++)
        takes_bytes |= parser_f->params[j].kind == SF_BUFFER;
      bool ok = g->ret.kind == SF_STRING && (g->nparams == 1 || sized) &&
                g->params[0].kind == SF_HANDLE && sf_param_is_input(&g->params[0]) &&
                (feeder || g->params[0].type_index == parser_f->ret.type_index);
      if (!ok && feeder)
        fail(ps, r->line, r->col,
             "'%s' must return a string from one handle (and its length in an out integer)",
             g->name);
      else if (!ok)
        fail(ps, r->line, r->col, "'%s' must return a string from one '%s' handle", g->name,
             ps->api->handles[parser_f->ret.type_index].name);
      else if (sized && !takes_bytes)
        fail(ps, r->line, r->col,
             "'%s' returns bytes (with a length): '%s' must take a byte buffer, not a string",
             g->name, parser_f->name);
      if (sized) g->ret.len_param = 1;
      parser_f->inverse_of = fi;
      continue;
    }
    ps->api->funcs[r->func].invalidated_by[r->slot] = (uint32_t)fi;
    ps->api->funcs[fi].flags |= SF_F_INVALIDATOR;
  }
}

/* ---- fingerprint -------------------------------------------------------- */

/* Hashing without allocating (the fingerprint must not fail). */
static uint64_t fp_str(uint64_t h, const char *str) {
  return sf_hash_mix(h, sf_hash_bytes(str, strlen(str), 0x5e9f));
}

static uint64_t fp_param(uint64_t h, const sf_param *p) {
  const uint64_t fields[] = {
      p->kind,  p->elem, p->type_index, p->array_len, (uint64_t)(int64_t)p->len_param,
      p->flags, p->lo,   p->hi,         p->nexcluded};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    h = sf_hash_mix(h, fields[i]);
  for (uint32_t i = 0; i < p->nexcluded; i++)
    h = sf_hash_mix(h, p->excluded[i]);
  return h;
}

static uint32_t fingerprint(const sf_api *api) {
  uint64_t h = sf_hash_mix(0x5e9f, api->nhandles);
  for (uint32_t i = 0; i < api->nhandles; i++)
    h = api->handles[i].is_struct ? sf_hash_mix(fp_str(h, api->handles[i].name), 0x57c)
                                  : fp_str(h, api->handles[i].name);
  h = sf_hash_mix(h, api->nenums);
  for (uint32_t i = 0; i < api->nenums; i++) {
    const sf_enum *e = &api->enums[i];
    h = sf_hash_mix(sf_hash_mix(sf_hash_mix(fp_str(h, e->name), e->is_flags), e->base), e->nconsts);
    for (uint32_t j = 0; j < e->nconsts; j++)
      h = sf_hash_mix(h, (uint64_t)e->consts[j].value);
  }
  h = sf_hash_mix(h, api->nfuncs);
  for (uint32_t i = 0; i < api->nfuncs; i++) {
    const sf_func *f = &api->funcs[i];
    h = fp_param(fp_str(h, f->name), &f->ret);
    h = sf_hash_mix(h, f->nparams);
    for (uint32_t j = 0; j < f->nparams; j++)
      h = fp_param(h, &f->params[j]);
    /* Oracles (contracts, nondeterministic) do not change what an input means. */
    const uint64_t fields[] = {f->flags & ~(uint64_t)SF_F_NONDETERMINISTIC, f->err_cmp,
                               f->err_value, (uint64_t)(int64_t)f->owner_param, f->ninvalidated_by};
    for (size_t k = 0; k < sizeof fields / sizeof *fields; k++)
      h = sf_hash_mix(h, fields[k]);
    for (uint32_t j = 0; j < f->ninvalidated_by; j++)
      h = sf_hash_mix(h, f->invalidated_by[j]);
    /* Mixed in only when set, so that older grammars keep their fingerprint. */
    if (f->depends_param >= 0) h = sf_hash_mix(h ^ 0xdeb, (uint64_t)f->depends_param);
    if (f->rebind_param >= 0)
      h = sf_hash_mix(h ^ 0xdec, (uint64_t)f->rebind_param << 8 | (uint64_t)f->rebind_to);
    if (f->locks_param >= 0) h = sf_hash_mix(h ^ 0x10c, (uint64_t)f->locks_param);
  }
  /* A callback's script is read by its shape. */
  for (uint32_t i = 0; i < api->ncallbacks; i++) {
    const sf_callback *cb = &api->callbacks[i];
    h = sf_hash_mix(fp_param(h ^ 0xcb, &cb->ret), cb->ret_default + 2 * cb->ret_is_count);
    for (uint32_t j = 0; j < cb->nparams; j++)
      h = fp_param(h, &cb->params[j]);
  }
  for (uint32_t i = 0; i < api->nvtables; i++)
    for (uint32_t j = 0; j < api->vtables[i].nslots; j++)
      h = sf_hash_mix(h ^ 0x7ab,
                      api->vtables[i].slots[j].callback * 2u + api->vtables[i].slots[j].nullable);
  return (uint32_t)(h ^ (h >> 32));
}

/* ---- entry points ------------------------------------------------------- */

const char *sf_generated_symbol(const sf_func *f, const sf_param *constant, char *buf,
                                size_t buflen) {
  if (constant) /* one per parameter: one expression may have several types */
    snprintf(buf, buflen, "=%s.%s", f->name, constant->name);
  else
    snprintf(buf, buflen, "reads:%s", f->name);
  return buf;
}

const char *sf_vtable_symbol(const sf_vtable *vt, char *buf, size_t buflen) {
  snprintf(buf, buflen, "vtable:%s", vt->name);
  return buf;
}

static void free_param(sf_param *p) {
  free((char *)p->name);
  free((char *)p->ctype);
  free((char *)p->cexpr);
  free((char *)p->release);
}

void sf_api_free(sf_api *api) {
  if (!api) return;
  free((char *)api->name);
  free((char *)api->path);
  for (uint32_t i = 0; i < api->nheaders; i++)
    free((char *)api->headers[i]);
  free(api->headers);
  for (uint32_t i = 0; i < api->nlibraries; i++)
    free((char *)api->libraries[i]);
  free(api->libraries);
  for (uint32_t i = 0; i < api->nhandles; i++) {
    free((char *)api->handles[i].name);
    free((char *)api->handles[i].ctype);
  }
  free(api->handles);
  for (uint32_t i = 0; i < api->nenums; i++) {
    sf_enum *e = &api->enums[i];
    free((char *)e->name);
    free((char *)e->ctype);
    for (uint32_t j = 0; j < e->nconsts; j++)
      free((char *)e->consts[j].name);
    free(e->consts);
  }
  free(api->enums);
  for (uint32_t i = 0; i < api->nfuncs; i++) {
    sf_func *f = &api->funcs[i];
    free((char *)f->name);
    free_param(&f->ret);
    for (uint32_t j = 0; j < f->nparams; j++)
      free_param(&f->params[j]);
    free(f->params);
    free(f->invalidated_by);
    free((char *)f->release);
    for (uint32_t k = 0; k < f->nensures; k++) {
      expr_free(f->ensures[k].expr);
      free((char *)f->ensures[k].text);
    }
    free(f->ensures);
    for (uint32_t k = 0; k < f->nrequires; k++) {
      expr_free(f->requires[k].expr);
      free((char *)f->requires[k].text);
    }
    free(f->requires);
    for (uint32_t k = 0; k < f->nsets; k++) {
      expr_free(f->sets[k].value.expr);
      free((char *)f->sets[k].value.text);
    }
    free(f->sets);
    free((char *)f->reads);
  }
  free(api->funcs);
  for (uint32_t i = 0; i < api->ninvariants; i++) {
    expr_free(api->invariants[i].contract.expr);
    free((char *)api->invariants[i].contract.text);
    free((char *)api->invariants[i].var);
  }
  free(api->invariants);
  for (uint32_t i = 0; i < api->ncallbacks; i++) {
    sf_callback *cb = &api->callbacks[i];
    free((char *)cb->name);
    free_param(&cb->ret);
    for (uint32_t j = 0; j < cb->nparams; j++)
      free_param(&cb->params[j]);
    free(cb->params);
  }
  free(api->callbacks);
  for (uint32_t i = 0; i < api->nvtables; i++) {
    free((char *)api->vtables[i].name);
    free((char *)api->vtables[i].ctype);
    for (uint32_t j = 0; j < api->vtables[i].nslots; j++)
      free((char *)api->vtables[i].slots[j].member);
    free(api->vtables[i].slots);
  }
  free(api->vtables);
  for (uint32_t i = 0; i < api->nstates; i++) {
    free((char *)api->states[i].name);
    free_param(&api->states[i].ret);
  }
  free(api->states);
  if (api->diff) {
    for (uint32_t i = 0; i < api->nfuncs; i++)
      free((char *)api->diff->symbol[i]);
    free(api->diff->symbol);
    free(api->diff->ignore);
    free(api->diff->tolerance);
    for (uint32_t i = 0; i < api->diff->nreleases; i++) {
      free(api->diff->release_from[i]);
      free((char *)api->diff->release_to[i]);
    }
    free(api->diff->release_from);
    free(api->diff->release_to);
    free((char *)api->diff->name);
    free((char *)api->diff->prefix);
    free(api->diff);
  }
  for (uint32_t i = 0; i < api->ndict; i++)
    free((char *)api->dict[i]);
  free(api->dict);
  free(api);
}

sf_api *sf_api_parse(const char *text, size_t len, const char *path, char *err, size_t errlen) {
  parser ps;
  memset(&ps, 0, sizeof ps);
  ps.path = path ? path : "<api>";
  ps.err = err;
  ps.errlen = errlen;
  if (err && errlen) err[0] = 0;
  ps.api = calloc(1, sizeof *ps.api);
  if (!ps.api) {
    if (err && errlen) snprintf(err, errlen, "%s: out of memory", ps.path);
    return NULL;
  }
  ps.api->path = strdup(ps.path);
  sf_lex_init(&ps.lx, text, len);
  next(&ps);
  while (ps.tok.kind != SF_TOK_EOF && ps.nerrors < MAX_ERRORS) {
    if (!parse_statement(&ps)) {
      if (ps.tok.kind == SF_TOK_ERROR) next(&ps);
      sync(&ps);
    }
  }
  if (ps.nerrors == 0) resolve_pending(&ps);
  if (ps.nerrors == 0) resolve_contracts(&ps);
  if (ps.nerrors == 0 && !ps.api->name) fail(&ps, 1, 1, "missing 'api NAME;' declaration");
  if (ps.nerrors == 0 && ps.api->nfuncs == 0) fail(&ps, 1, 1, "the API declares no function");
  if (ps.nerrors == 0 && !ps.api->path) fail(&ps, 1, 1, "out of memory");
  for (uint32_t i = 0; i < ps.npending; i++)
    free(ps.pending[i].name);
  free(ps.pending);
  sf_lex_free(&ps.lx);
  if (ps.nerrors) {
    sf_api_free(ps.api);
    return NULL;
  }
  ps.api->fingerprint = fingerprint(ps.api);
  return ps.api;
}

sf_api *sf_api_load(const char *path, char *err, size_t errlen) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    if (err && errlen) snprintf(err, errlen, "%s: cannot open file", path);
    return NULL;
  }
  sf_buf b = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
    if (sf_buf_append(&b, chunk, n)) {
      fclose(fp);
      sf_buf_free(&b);
      if (err && errlen) snprintf(err, errlen, "%s: out of memory", path);
      return NULL;
    }
  }
  fclose(fp);
  sf_api *api = sf_api_parse((const char *)b.data, b.len, path, err, errlen);
  sf_buf_free(&b);
  return api;
}
