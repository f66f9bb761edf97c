/* The text form of sequences: printing and parsing (format in seq.h).
 * Uses the lexical rules of the API language (grammar/api_lex.h). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../grammar/api_lex.h"
#include "seq.h"
#include "seq_internal.h"

/* Is parameter p written in a call's text? Not a length (derived from its
 * buffer), a constant, nor an out buffer (its size is its length argument). */
static bool written(const sf_param *p) {
  return !(p->flags & (SF_P_LENGTH | SF_P_CONST)) &&
         !((p->flags & SF_P_OUT) && (p->kind == SF_BUFFER || p->kind == SF_ARRAY));
}

/* ---- printing ----------------------------------------------------------- */

static int print_float(sf_buf *out, sf_kind k, uint64_t bits) {
  double d = sf_float_value(k, bits);
  if (isnan(d)) return sf_buf_printf(out, "nan");
  if (isinf(d)) return sf_buf_printf(out, d < 0 ? "-inf" : "inf");
  /* The shortest form that reads back to the same value. */
  char tmp[64];
  for (int prec = k == SF_F32 ? 6 : 15; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, d);
    double back = strtod(tmp, NULL);
    if (k == SF_F32 ? (float)back == (float)d : back == d) break;
  }
  if (!strpbrk(tmp, ".eEn")) strcat(tmp, ".0");
  return sf_buf_printf(out, "%s", tmp);
}

static int print_number(sf_buf *out, sf_kind k, uint64_t bits) {
  if (k == SF_BOOL) return sf_buf_printf(out, bits ? "true" : "false");
  if (k == SF_F32 || k == SF_F64) return print_float(out, k, bits);
  if (sf_kind_is_signed(k)) return sf_buf_printf(out, "%lld", (long long)bits);
  return sf_buf_printf(out, "%llu", (unsigned long long)bits);
}

int sf_seq_print_string(sf_buf *out, const uint8_t *d, size_t n) {
  int rc = sf_buf_putc(out, '"');
  for (size_t i = 0; i < n && rc == 0; i++) {
    uint8_t c = d[i];
    if (c == '"' || c == '\\')
      rc = sf_buf_printf(out, "\\%c", c);
    else if (c == '\n')
      rc = sf_buf_printf(out, "\\n");
    else if (c == '\t')
      rc = sf_buf_printf(out, "\\t");
    else if (c >= 0x20 && c < 0x7f)
      rc = sf_buf_putc(out, c);
    else
      rc = sf_buf_printf(out, "\\x%02x", c);
  }
  return rc ? rc : sf_buf_putc(out, '"');
}

int sf_seq_parse_string(const char *text, size_t len, sf_buf *out) {
  sf_lexer lx;
  sf_lex_init(&lx, text, len);
  sf_tok t = sf_lex_next(&lx);
  int rc = -1;
  if ((t.kind == SF_TOK_STRING || t.kind == SF_TOK_HEX) && sf_lex_next(&lx).kind == SF_TOK_EOF)
    rc = sf_buf_append(out, lx.text.data, lx.text.len);
  sf_lex_free(&lx);
  return rc;
}

/* Mostly printable bytes as a string, others (and a mock's script, `hex`)
 * as x"...". */
static int print_bytes(sf_buf *out, sf_kind elem, const uint8_t *d, size_t n, bool hex) {
  if (sf_kind_size(elem) == 1 && elem != SF_BOOL) {
    size_t printable = 0;
    for (size_t i = 0; i < n; i++)
      printable += (d[i] >= 0x20 && d[i] < 0x7f) || d[i] == '\n';
    if (!hex && (n == 0 || printable * 4 >= n * 3)) return sf_seq_print_string(out, d, n);
    int rc = sf_buf_printf(out, "x\"");
    for (size_t i = 0; i < n && rc == 0; i++)
      rc = sf_buf_printf(out, "%02x", d[i]);
    return rc ? rc : sf_buf_putc(out, '"');
  }
  unsigned es = sf_kind_size(elem);
  int rc = sf_buf_putc(out, '{');
  for (size_t i = 0; i + es <= n && rc == 0; i += es) {
    uint64_t b = 0;
    memcpy(&b, d + i, es);
    if (sf_kind_is_signed(elem) && es < 8)
      b = (uint64_t)((int64_t)(b << (64 - es * 8)) >> (64 - es * 8));
    if (i) rc = sf_buf_printf(out, ", ");
    if (rc == 0) rc = print_number(out, elem, b);
  }
  return rc ? rc : sf_buf_putc(out, '}');
}

static int print_arg(const sf_seq *s, const sf_param *p, const sf_arg *a, sf_buf *out) {
  const sf_api *api = s->api;
  switch (p->kind) {
  case SF_HANDLE:
    if (a->bits == SF_NULL_REF) return sf_buf_printf(out, "NULL");
    return sf_buf_printf(out, "h%llu", (unsigned long long)a->bits + 1);
  case SF_ENUM:
    return sf_buf_printf(out, "%s", api->enums[p->type_index].consts[a->bits].name);
  case SF_FLAGS: {
    const sf_enum *e = &api->enums[p->type_index];
    if (a->bits == 0) return sf_buf_printf(out, "0");
    int rc = 0;
    bool first = true;
    for (uint32_t i = 0; i < e->nconsts && rc == 0; i++) {
      if (!(a->bits >> i & 1)) continue;
      rc = sf_buf_printf(out, "%s%s", first ? "" : "|", e->consts[i].name);
      first = false;
    }
    return rc;
  }
  case SF_STRING:
    if (a->bits) return sf_buf_printf(out, "NULL");
    return sf_seq_print_string(out, sf_seq_bytes(s, a), a->len);
  case SF_BUFFER:
  case SF_ARRAY:
    return print_bytes(out, p->elem, sf_seq_bytes(s, a), a->len,
                       p->flags & (SF_P_CALLBACK | SF_P_VTABLE));
  default:
    return print_number(out, p->kind, a->bits);
  }
}

int sf_seq_print_call(const sf_seq *s, uint32_t ci, sf_buf *out) {
  const sf_func *f = sf_seq_func(s, ci);
  const sf_arg *a = sf_seq_args(s, ci);
  uint32_t vid = s->calls[ci].val0;
  int rc = 0;
  if (f->ret.kind == SF_HANDLE) rc = sf_buf_printf(out, "h%u = ", ++vid);
  rc |= sf_buf_printf(out, "%s(", f->name);
  bool first = true;
  for (uint32_t i = 0; i < f->nparams && rc == 0; i++) {
    const sf_param *p = &f->params[i];
    if (!written(p)) continue;
    if (!first) rc |= sf_buf_printf(out, ", ");
    first = false;
    if (p->flags & SF_P_OUT) {
      if (p->kind == SF_HANDLE)
        rc |= sf_buf_printf(out, "&h%u", ++vid);
      else
        rc |= sf_buf_printf(out, "&_");
    } else {
      rc |= print_arg(s, p, &a[i], out);
    }
  }
  rc |= sf_buf_printf(out, ");");
  return rc ? -1 : 0;
}

int sf_seq_print(const sf_seq *s, sf_buf *out) {
  if (s->observed && sf_buf_printf(out, "observe_at_end;\n")) return -1;
  for (uint32_t ci = 0; ci < s->ncalls; ci++)
    if (sf_seq_print_call(s, ci, out) || sf_buf_putc(out, '\n')) return -1;
  return 0;
}

/* ---- parsing ------------------------------------------------------------ */

typedef struct binding {
  char *name;
  uint32_t vid;
  uint32_t line; /* where it was bound */
} binding;

typedef struct tparser {
  sf_lexer lx;
  sf_tok tok;
  const char *path;
  char *err;
  size_t errlen;
  bool failed;
  sf_seq *s;
  sf_life life;
  binding *names;
  uint32_t nnames;
  uint32_t *died_at; /* line of the call after which a value was no longer alive */
  uint32_t ndied;
} tparser;

static bool tfail(tparser *tp, const sf_tok *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool tfail(tparser *tp, const sf_tok *t, const char *fmt, ...) {
  if (tp->failed) return false;
  tp->failed = true;
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (t->kind == SF_TOK_ERROR) snprintf(msg, sizeof msg, "%s", t->err);
  if (tp->err && tp->errlen)
    snprintf(tp->err, tp->errlen, "%s:%u:%u: %s", tp->path, t->line, t->col, msg);
  return false;
}

static void tnext(tparser *tp) {
  tp->tok = sf_lex_next(&tp->lx);
}

static bool taccept(tparser *tp, const char *s) {
  if (!sf_tok_is(&tp->tok, s)) return false;
  tnext(tp);
  return true;
}

static bool texpect(tparser *tp, const char *s) {
  if (taccept(tp, s)) return true;
  return tfail(tp, &tp->tok, "expected '%s'", s);
}

static binding *find_name(tparser *tp, const sf_tok *t) {
  for (uint32_t i = 0; i < tp->nnames; i++)
    if (strlen(tp->names[i].name) == t->len && memcmp(tp->names[i].name, t->start, t->len) == 0)
      return &tp->names[i];
  return NULL;
}

static bool bind(tparser *tp, const sf_tok *t, uint32_t vid) {
  if (find_name(tp, t)) return tfail(tp, t, "'%.*s' is already bound", (int)t->len, t->start);
  binding *nb = realloc(tp->names, (tp->nnames + 1) * sizeof *nb);
  if (!nb) return tfail(tp, t, "out of memory");
  tp->names = nb;
  char *name = malloc(t->len + 1);
  if (!name) return tfail(tp, t, "out of memory");
  memcpy(name, t->start, t->len);
  name[t->len] = 0;
  tp->names[tp->nnames++] = (binding){name, vid, t->line};
  return true;
}

/* The name bound to value vid. A value a call is handed was named to be
 * passed, and so was its owner, so "?" is only a fallback. */
static const char *name_of(const tparser *tp, uint64_t vid) {
  for (uint32_t i = 0; i < tp->nnames; i++)
    if (tp->names[i].vid == vid) return tp->names[i].name;
  return "?";
}

static bool parse_int_lit(tparser *tp, const sf_param *p, sf_kind k, uint64_t *out) {
  sf_tok t = tp->tok;
  uint64_t v;
  if (t.kind == SF_TOK_INT) {
    v = t.u;
  } else if (t.kind == SF_TOK_IDENT) {
    /* A named constant of any enum. */
    const sf_api *api = tp->s->api;
    bool found = false;
    for (uint32_t i = 0; i < api->nenums && !found; i++)
      for (uint32_t j = 0; j < api->enums[i].nconsts && !found; j++)
        if (sf_tok_is(&t, api->enums[i].consts[j].name)) {
          v = (uint64_t)api->enums[i].consts[j].value;
          found = true;
        }
    if (!found) return tfail(tp, &t, "expected an integer");
  } else {
    return tfail(tp, &t, "expected an integer");
  }
  tnext(tp);
  unsigned sz = sf_kind_size(k);
  if (sf_kind_is_signed(k)) {
    int64_t sv = (int64_t)v, lim = sz >= 8 ? INT64_MAX : (int64_t)((1ULL << (sz * 8 - 1)) - 1);
    if (t.kind == SF_TOK_INT && !t.neg && v > (uint64_t)lim) goto range;
    if (sv > lim || sv < -lim - 1) goto range;
  } else {
    if (t.kind == SF_TOK_INT && t.neg && v != 0) goto range;
    if (sz < 8 && v >> (sz * 8)) goto range;
  }
  *out = v;
  if (p && !sf_param_accepts(p, v))
    return tfail(tp, &t, "%.*s violates the precondition of parameter '%s'", (int)t.len, t.start,
                 p->name);
  return true;
range:
  return tfail(tp, &t, "%.*s is out of range for %s", (int)t.len, t.start, sf_kind_name(k));
}

static bool parse_float_lit(tparser *tp, sf_kind k, uint64_t *out) {
  sf_tok t = tp->tok;
  double d;
  bool neg = taccept(tp, "-");
  if (tp->tok.kind == SF_TOK_FLOAT)
    d = tp->tok.d;
  else if (tp->tok.kind == SF_TOK_INT)
    d = tp->tok.neg ? (double)(int64_t)tp->tok.u : (double)tp->tok.u;
  else if (sf_tok_is(&tp->tok, "nan"))
    d = NAN;
  else if (sf_tok_is(&tp->tok, "inf"))
    d = INFINITY;
  else
    return tfail(tp, &t, "expected a number");
  if (neg && tp->tok.kind != SF_TOK_IDENT) return tfail(tp, &t, "expected a number");
  tnext(tp);
  if (neg) d = -d;
  if (k == SF_F32) {
    float f = (float)d;
    uint32_t b;
    memcpy(&b, &f, 4);
    *out = isnan(f) ? 0x7fc00000ULL : b;
  } else {
    uint64_t b;
    memcpy(&b, &d, 8);
    *out = isnan(d) ? 0x7ff8000000000000ULL : b;
  }
  return true;
}

static bool parse_number(tparser *tp, const sf_param *p, sf_kind k, uint64_t *out) {
  if (k == SF_BOOL) {
    if (taccept(tp, "true") || (tp->tok.kind == SF_TOK_INT && tp->tok.u == 1 && (tnext(tp), 1))) {
      *out = 1;
      return true;
    }
    if (taccept(tp, "false") || (tp->tok.kind == SF_TOK_INT && tp->tok.u == 0 && (tnext(tp), 1))) {
      *out = 0;
      return true;
    }
    return tfail(tp, &tp->tok, "expected true or false");
  }
  if (k == SF_F32 || k == SF_F64) return parse_float_lit(tp, k, out);
  return parse_int_lit(tp, p, k, out);
}

static bool parse_bytes_lit(tparser *tp, const sf_param *p, sf_arg *a) {
  sf_seq *s = tp->s;
  unsigned es = sf_kind_size(p->elem);
  sf_tok t = tp->tok;
  if (t.kind == SF_TOK_STRING || t.kind == SF_TOK_HEX) {
    if (es != 1 || p->elem == SF_BOOL) return tfail(tp, &t, "expected a list {...} of numbers");
    if (sf_seq_set_bytes(s, a, tp->lx.text.data, tp->lx.text.len))
      return tfail(tp, &t, "out of memory");
    tnext(tp);
  } else if (taccept(tp, "{")) {
    sf_buf tmp = {0};
    while (!sf_tok_is(&tp->tok, "}")) {
      uint64_t v;
      if (!parse_number(tp, NULL, p->elem, &v) || sf_buf_append(&tmp, &v, es)) {
        sf_buf_free(&tmp);
        return tfail(tp, &tp->tok, "out of memory");
      }
      if (!taccept(tp, ",")) break;
    }
    int rc = sf_seq_set_bytes(s, a, tmp.data, tmp.len);
    sf_buf_free(&tmp);
    if (rc) return tfail(tp, &t, "out of memory");
    if (!texpect(tp, "}")) return false;
  } else {
    return tfail(tp, &t, "expected a string, x\"hex\" or {...}");
  }
  if (a->len) sf_seq_canon_elems(p->elem, s->blob.data + a->off, a->len);
  return true;
}

static bool parse_arg(tparser *tp, const sf_func *f, const sf_param *p, sf_arg *a) {
  const sf_api *api = tp->s->api;
  sf_tok t = tp->tok;
  switch (p->kind) {
  case SF_HANDLE: {
    if (taccept(tp, "NULL")) {
      if (!(p->flags & SF_P_NULLABLE))
        return tfail(tp, &t, "parameter '%s' of %s is not nullable", p->name, f->name);
      a->bits = SF_NULL_REF;
      return true;
    }
    if (t.kind != SF_TOK_IDENT) return tfail(tp, &t, "expected a handle name");
    binding *b = find_name(tp, &t);
    if (!b) return tfail(tp, &t, "'%.*s' is not defined", (int)t.len, t.start);
    if (tp->life.htype[b->vid] != p->type_index)
      return tfail(tp, &t, "'%s' is a %s, parameter '%s' wants a %s", b->name,
                   api->handles[tp->life.htype[b->vid]].name, p->name,
                   api->handles[p->type_index].name);
    if (!tp->life.alive[b->vid])
      return tfail(tp, &t, "'%s' is no longer alive (consumed, destroyed or invalidated)", b->name);
    a->bits = b->vid;
    tnext(tp);
    return true;
  }
  case SF_ENUM: {
    const sf_enum *e = &api->enums[p->type_index];
    for (uint32_t i = 0; i < e->nconsts; i++) {
      if (sf_tok_is(&t, e->consts[i].name)) {
        a->bits = i;
        tnext(tp);
        return true;
      }
    }
    return tfail(tp, &t, "expected a constant of %s", e->name);
  }
  case SF_FLAGS: {
    const sf_enum *e = &api->enums[p->type_index];
    if (t.kind == SF_TOK_INT && t.u == 0) {
      tnext(tp);
      a->bits = 0;
      return true;
    }
    do {
      sf_tok c = tp->tok;
      uint32_t i = 0;
      while (i < e->nconsts && !sf_tok_is(&c, e->consts[i].name))
        i++;
      if (i == e->nconsts) return tfail(tp, &c, "expected a flag of %s", e->name);
      a->bits |= 1ULL << i;
      tnext(tp);
    } while (taccept(tp, "|"));
    return true;
  }
  case SF_STRING:
    if (taccept(tp, "NULL")) {
      if (!(p->flags & SF_P_NULLABLE))
        return tfail(tp, &t, "parameter '%s' of %s is not nullable", p->name, f->name);
      a->bits = 1;
      return true;
    }
    if (t.kind != SF_TOK_STRING) return tfail(tp, &t, "expected a string literal");
    if (tp->lx.text.len && memchr(tp->lx.text.data, 0, tp->lx.text.len))
      return tfail(tp, &t, "a string argument cannot contain NUL");
    if (tp->lx.text.len > SF_MAX_STRING)
      return tfail(tp, &t, "string longer than %d bytes", SF_MAX_STRING);
    if (sf_seq_set_bytes(tp->s, a, tp->lx.text.data, tp->lx.text.len))
      return tfail(tp, &t, "out of memory");
    tnext(tp);
    return true;
  case SF_BUFFER:
  case SF_ARRAY: {
    if (!parse_bytes_lit(tp, p, a)) return false;
    uint64_t n = a->len / sf_kind_size(p->elem), lo = p->array_len, hi = p->array_len;
    if (p->kind == SF_BUFFER) sf_seq_buffer_bounds(f, p, &lo, &hi);
    if (n < lo || n > hi)
      return tfail(tp, &t, "%llu elements; parameter '%s' takes %llu to %llu",
                   (unsigned long long)n, p->name, (unsigned long long)lo, (unsigned long long)hi);
    return true;
  }
  default:
    return parse_number(tp, p, p->kind, &a->bits);
  }
}

static bool parse_call(tparser *tp) {
  sf_seq *s = tp->s;
  const sf_api *api = s->api;
  sf_tok result_name = {0}, t = tp->tok;
  if (t.kind != SF_TOK_IDENT) return tfail(tp, &t, "expected a call");
  tnext(tp);
  if (sf_tok_is(&t, "observe_at_end") && taccept(tp, ";")) {
    s->observed = true; /* not a call: a call has parentheses */
    return true;
  }
  if (taccept(tp, "=")) {
    result_name = t;
    t = tp->tok;
    if (t.kind != SF_TOK_IDENT) return tfail(tp, &t, "expected a function name");
    tnext(tp);
  }
  int32_t fi = -1;
  for (uint32_t i = 0; i < api->nfuncs && fi < 0; i++)
    if (sf_tok_is(&t, api->funcs[i].name)) fi = (int32_t)i;
  if (fi < 0) return tfail(tp, &t, "unknown function '%.*s'", (int)t.len, t.start);
  const sf_func *f = &api->funcs[fi];
  if (result_name.kind && f->ret.kind != SF_HANDLE)
    return tfail(tp, &result_name, "%s does not return a handle", f->name);
  if (s->ncalls >= SF_SEQ_MAX_CALLS) return tfail(tp, &t, "more than %d calls", SF_SEQ_MAX_CALLS);
  sf_arg args[64];
  memset(args, 0, sizeof args);
  sf_tok outs[64], argtoks[64];
  uint32_t nouts = 0;
  if (!texpect(tp, "(")) return false;
  bool first = true;
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (!written(p)) continue;
    if (!first && !texpect(tp, ",")) return false;
    first = false;
    if (p->flags & SF_P_OUT) {
      if (!texpect(tp, "&")) return false;
      if (tp->tok.kind != SF_TOK_IDENT) return tfail(tp, &tp->tok, "expected a name after '&'");
      if (p->kind == SF_HANDLE) outs[nouts++] = tp->tok;
      tnext(tp);
      continue;
    }
    if (p->kind == SF_HANDLE) args[i].bits = SF_NULL_REF;
    argtoks[i] = tp->tok;
    if (!parse_arg(tp, f, p, &args[i])) return false;
  }
  if (!texpect(tp, ")") || !texpect(tp, ";")) return false;
  uint32_t ci = 0, oi = 0;
  switch (sf_call_consume_conflict(&tp->life, f, args, &ci, &oi)) {
  case SF_CONSUME_OK:
    break;
  case SF_CONSUME_TWICE:
    return tfail(tp, &t, "%s consumes a handle that is also passed as another argument", f->name);
  case SF_CONSUME_OWNED:
    return tfail(tp, &argtoks[ci], "'%s' is owned by '%s' and cannot be %s",
                 name_of(tp, args[ci].bits), name_of(tp, tp->life.owner[args[ci].bits]),
                 (f->flags & SF_F_DESTRUCTOR) ? "destroyed" : "consumed");
  case SF_CONSUME_OWNS_OTHER:
    return tfail(tp, &argtoks[oi], "'%s' is owned by '%s', which %s consumes",
                 name_of(tp, args[oi].bits), name_of(tp, args[ci].bits), f->name);
  case SF_CONSUME_DEPENDED:
    return tfail(tp, &argtoks[ci], "'%s' has a live dependent (depends_on) and cannot be %s",
                 name_of(tp, args[ci].bits),
                 (f->flags & SF_F_DESTRUCTOR) ? "destroyed" : "consumed");
  }
  int32_t broken = sf_call_requires_failing(s, (uint32_t)fi, args);
  if (broken >= 0)
    return tfail(tp, &t, "%s: precondition '%s' does not hold", f->name, f->requires[broken].text);
  sf_arg *a = sf_seq_add_call(s, (uint32_t)fi);
  if (!a) return tfail(tp, &t, "out of memory");
  memcpy(a, args, f->nparams * sizeof *a);
  uint32_t vid = s->calls[s->ncalls - 1].val0;
  if (f->ret.kind == SF_HANDLE) {
    if (result_name.kind && !bind(tp, &result_name, vid)) return false;
    vid++;
  }
  for (uint32_t k = 0; k < nouts; k++)
    if (!bind(tp, &outs[k], vid++)) return false;
  if (sf_life_apply(&tp->life, (uint32_t)fi, a)) return tfail(tp, &t, "out of memory");
  return true;
}

int sf_seq_parse_text(sf_seq *s, const sf_api *api, const char *text, size_t len, const char *path,
                      char *err, size_t errlen) {
  tparser tp;
  memset(&tp, 0, sizeof tp);
  tp.path = path ? path : "<text>";
  tp.err = err;
  tp.errlen = errlen;
  if (err && errlen) err[0] = 0;
  sf_seq_clear(s);
  s->api = api;
  tp.s = s;
  sf_life_init(&tp.life, api);
  sf_lex_init(&tp.lx, text, len);
  tnext(&tp);
  while (tp.tok.kind != SF_TOK_EOF && !tp.failed)
    parse_call(&tp);
  if (!tp.failed) {
    char verr[256];
    if (sf_seq_validate(s, verr, sizeof verr)) tfail(&tp, &tp.tok, "%s", verr);
  }
  for (uint32_t i = 0; i < tp.nnames; i++)
    free(tp.names[i].name);
  free(tp.names);
  free(tp.died_at);
  sf_life_free(&tp.life);
  sf_lex_free(&tp.lx);
  return tp.failed ? -1 : 0;
}
