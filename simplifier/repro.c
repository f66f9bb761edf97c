#include "repro.h"

#include "../harness/feedback.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A C string literal; octal escapes have at most 3 digits, so a following
 * digit cannot run into them the way hex escapes would. */
static void c_literal(sf_buf *out, const uint8_t *d, size_t n) {
  sf_buf_putc(out, '"');
  for (size_t i = 0; i < n; i++) {
    uint8_t c = d[i];
    if (c == '"' || c == '\\')
      sf_buf_printf(out, "\\%c", c);
    else if (c == '\n')
      sf_buf_printf(out, "\\n");
    else if (c >= 0x20 && c < 0x7f && c != '?')
      sf_buf_putc(out, c);
    else
      sf_buf_printf(out, "\\%03o", c);
  }
  sf_buf_putc(out, '"');
}

static void number(sf_buf *out, sf_kind k, uint64_t bits) {
  switch (k) {
  case SF_BOOL:
    sf_buf_printf(out, bits ? "true" : "false");
    return;
  case SF_F32:
  case SF_F64: {
    double d = sf_float_value(k, bits);
    if (isnan(d))
      sf_buf_printf(out, "NAN");
    else if (isinf(d))
      sf_buf_printf(out, d < 0 ? "-INFINITY" : "INFINITY");
    else
      sf_buf_printf(out, k == SF_F32 ? "%af" : "%a", d);
    return;
  }
  default:
    if (sf_kind_is_signed(k)) {
      if ((int64_t)bits == INT64_MIN)
        sf_buf_printf(out, "INT64_MIN");
      else
        sf_buf_printf(out, "%lld", (long long)bits);
    } else {
      sf_buf_printf(out, "%lluu%s", (unsigned long long)bits, bits > UINT32_MAX ? "ll" : "");
    }
  }
}

static const char *stdint_name(sf_kind k) {
  static const char *const names[] = {
      [SF_BOOL] = "bool",    [SF_I8] = "int8_t",  [SF_I16] = "int16_t",  [SF_I32] = "int32_t",
      [SF_I64] = "int64_t",  [SF_U8] = "uint8_t", [SF_U16] = "uint16_t", [SF_U32] = "uint32_t",
      [SF_U64] = "uint64_t", [SF_F32] = "float",  [SF_F64] = "double"};
  return k <= SF_F64 && names[k] ? names[k] : "int64_t";
}

static sf_kind value_kind(const sf_api *api, const sf_param *p) {
  return p->kind == SF_ENUM || p->kind == SF_FLAGS ? api->enums[p->type_index].base : p->kind;
}

/* The error test of f's result in variable r, as a C condition. */
static void error_test(sf_buf *out, const sf_func *f) {
  static const char *const ops[] = {[SF_CMP_EQ] = "==", [SF_CMP_NE] = "!=", [SF_CMP_LT] = "<",
                                    [SF_CMP_LE] = "<=", [SF_CMP_GT] = ">",  [SF_CMP_GE] = ">="};
  if (f->err_cmp == SF_CMP_NULL)
    sf_buf_printf(out, "!r");
  else
    sf_buf_printf(out, "r %s %lld", ops[f->err_cmp], (long long)f->err_value);
}

/* ---- what a reproducer checks besides crashes ------------------------------
 * With contracts, a second implementation or an input that observes, the
 * program checks what the harness checks (harness/exec.h) and reports a
 * violation in the same words, so its signature is the fuzzer's. */
static const char oracle_runtime[] =
    "\n/* The harness's oracles (harness/exec.h), reported the same way. */\n"
    "#define SF_UNUSED __attribute__((unused))\n"
    "SF_UNUSED static void sf_violation(const char *kind, const char *func, const char *which,\n"
    "                         const char *what) {\n"
    "  fprintf(stderr, \"==%d==ERROR: seqfuzz: %s in %s [%s]: %s\\n\", (int)getpid(), kind, "
    "func,\n          which, what);\n"
    "  fprintf(stderr, \"SUMMARY: seqfuzz: %s in %s [%s]\\n\", kind, func, which);\n"
    "  abort();\n}\n"
    "/* A contract that reads a NULL handle or divides by zero says nothing. */\n"
    "static int sf_unknown;\n"
    "SF_UNUSED static int sf_known(const void *h) {\n  if (!h) sf_unknown = 1;\n  return h != "
    "0;\n}\n"
    "SF_UNUSED static long long sf_idiv(long long a, long long b, int mod) {\n"
    "  if (b == 0 || (a == INT64_MIN && b == -1)) return sf_unknown = 1, 0;\n"
    "  return mod ? a % b : a / b;\n}\n"
    "SF_UNUSED static int sf_strcmp(const char *a, const char *b) {\n"
    "  return !a || !b ? (a != 0) - (b != 0) : strcmp(a, b);\n}\n"
    "/* A copy of a string result, kept to the end. */\n"
    "SF_UNUSED static const char *sf_keep(const char *s) {\n"
    "  static char *kept[4096];\n  static unsigned n;\n"
    "  if (!s || n == 4096) return s;\n  return kept[n++] = strdup(s);\n}\n"
    "/* An observed value: t 0 a number, 1 a float, 2 a string (a copy). */\n"
    "typedef struct sf_val {\n  int t;\n  long long i;\n  double d;\n  char *s;\n} sf_val;\n"
    "SF_UNUSED static sf_val sf_vi(long long i) { return (sf_val){0, i, 0, 0}; }\n"
    "SF_UNUSED static sf_val sf_vd(double d) { return (sf_val){1, 0, d, 0}; }\n"
    "SF_UNUSED static sf_val sf_vs(const char *s) { return (sf_val){2, s != 0, 0, s ? strdup(s) : "
    "0}; }\n"
    "SF_UNUSED static int sf_veq(sf_val a, sf_val b, double tol) {\n"
    "  if (a.t != b.t) return 0;\n"
    "  if (a.t == 1)\n"
    "    return a.d == b.d || (isnan(a.d) && isnan(b.d)) ||\n"
    "           fabs(a.d - b.d) <= tol * fmax(1, fmax(fabs(a.d), fabs(b.d)));\n"
    "  return a.i == b.i && (a.t != 2 || !a.s || strcmp(a.s, b.s) == 0);\n}\n"
    "SF_UNUSED static void sf_vprint(char *buf, size_t n, sf_val v) {\n"
    "  if (v.t == 1) snprintf(buf, n, \"%.17g\", v.d);\n"
    "  else if (v.t == 2 && v.s) snprintf(buf, n, \"\\\"%.300s\\\"\", v.s);\n"
    "  else if (v.t == 2) snprintf(buf, n, \"NULL\");\n"
    "  else snprintf(buf, n, \"%lld\", v.i);\n}\n"
    "/* What a run saw, to compare two runs (two implementations, or a repeat). */\n"
    "typedef struct sf_fact {\n  int call;\n  const char *func, *what;\n  sf_val v;\n"
    "  double tol;\n} sf_fact;\n"
    "static sf_fact sf_facts[2][4096];\nstatic int sf_nfacts[2], sf_run;\n"
    "SF_UNUSED static void sf_fact_add(int call, const char *func, const char *what, sf_val v, "
    "double tol) "
    "{\n"
    "  if (sf_nfacts[sf_run] < 4096) sf_facts[sf_run][sf_nfacts[sf_run]++] = (sf_fact){call, "
    "func, what, v, tol};\n"
    "  else free(v.s);\n}\n"
    "SF_UNUSED static void sf_facts_reset(void) {\n"
    "  for (int r = 0; r < 2; r++)\n    while (sf_nfacts[r]) "
    "free(sf_facts[r][--sf_nfacts[r]].v.s);\n"
    "}\n"
    "SF_UNUSED static int sf_same_fact(const sf_fact *a, const sf_fact *b) {\n"
    "  return a->call == b->call && strcmp(a->func, b->func) == 0 &&\n"
    "         strcmp(a->what, b->what) == 0 && sf_veq(a->v, b->v, a->tol);\n}\n"
    "SF_UNUSED static void sf_compare(const char *kind, const char *a, const char *b) {\n"
    "  int n = sf_nfacts[0] < sf_nfacts[1] ? sf_nfacts[0] : sf_nfacts[1], i = 0;\n"
    "  while (i < n && sf_same_fact(&sf_facts[0][i], &sf_facts[1][i])) i++;\n"
    "  if (i == n && sf_nfacts[0] == sf_nfacts[1]) return;\n"
    "  const sf_fact *f = i < sf_nfacts[0] ? &sf_facts[0][i] : &sf_facts[1][i];\n"
    "  char va[400] = \"(nothing: the run ended)\", vb[400] = \"(nothing: the run ended)\", "
    "what[1000];\n"
    "  if (i < sf_nfacts[0]) sf_vprint(va, sizeof va, sf_facts[0][i].v);\n"
    "  if (i < sf_nfacts[1]) sf_vprint(vb, sizeof vb, sf_facts[1][i].v);\n"
    "  snprintf(what, sizeof what, \"call %d: %s: %s; %s: %s\", f->call + 1, a, va, b, vb);\n"
    "  sf_violation(kind, f->func, f->what, what);\n}\n"
    "/* Observers answer the same twice and change no other one's answer: each\n"
    " * is called twice in a row as it comes, then every one before it again. */\n"
    "typedef sf_val (*sf_obs_fn)(void *);\n"
    "SF_UNUSED static void sf_impure(const char *culprit, const char *victim, sf_val a, sf_val "
    "b) {\n"
    "  char which[300], what[1000], va[400], vb[400];\n"
    "  if (culprit == victim) snprintf(which, sizeof which, \"not deterministic\");\n"
    "  else snprintf(which, sizeof which, \"changes %s\", victim);\n"
    "  sf_vprint(va, sizeof va, a);\n  sf_vprint(vb, sizeof vb, b);\n"
    "  snprintf(what, sizeof what, \"%s: %s, then %s\", victim, va, vb);\n"
    "  sf_violation(\"impure-observer\", culprit, which, what);\n}\n"
    "SF_UNUSED static void sf_check_pure(void *h, int n, sf_obs_fn *obs, const char **names,\n"
    "                                    const int *cmp) {\n"
    "  sf_val last[32], a, b;\n"
    "  for (int j = 0; j < n; j++) {\n"
    "    last[j] = obs[j](h);\n"
    "    for (int i = 0; i < j; i++) {\n"
    "      sf_val v = obs[i](h);\n"
    "      if (cmp[i] && !sf_veq(last[i], v, 0)) sf_impure(names[j], names[i], last[i], v);\n"
    "      free(last[i].s);\n      last[i] = v;\n    }\n  }\n"
    "  for (int k = 0; k < n; k++) free(last[k].s);\n"
    "  for (int c = 0; c < n; c++)\n"
    "    for (int v = 0; v < n; v++) {\n"
    "      a = obs[v](h);\n"
    "      if (c != v) free(obs[c](h).s);\n"
    "      b = obs[v](h);\n"
    "      if (cmp[v] && !sf_veq(a, b, 0)) sf_impure(names[v == c ? v : c], names[v], a, b);\n"
    "      free(a.s), free(b.s);\n    }\n}\n"
    "/* A parser accepts what its printer prints, and the text survives. */\n"
    "SF_UNUSED static void sf_round_trip(void *h, char *(*print)(void *), void *(*parse)(const "
    "char *),\n"
    "                          void (*destroy)(void *), const char *pname, const char *qname) "
    "{\n"
    "  char *s1 = print(h), *s2, what[1000];\n"
    "  if (!s1) return;\n"
    "  void *h2 = parse(s1);\n"
    "  if (!h2) {\n"
    "    snprintf(what, sizeof what, \"printed: \\\"%.300s\\\"\", s1);\n"
    "    sf_violation(\"round-trip-failure\", qname, \"rejects its printer's output\", what);\n"
    "  }\n"
    "  s2 = print(h2);\n"
    "  if (s2 && strcmp(s1, s2) != 0) {\n"
    "    snprintf(what, sizeof what, \"printed: \\\"%.300s\\\"; printed after parsing it: "
    "\\\"%.300s\\\"\", s1, s2);\n"
    "    sf_violation(\"round-trip-failure\", pname, \"prints differently\", what);\n  }\n"
    "  free(s1), free(s2);\n  destroy(h2);\n}\n";

/* Which functions the program calls: the first implementation's (impl 0)
 * or the second's (impl 1, api->diff). */
struct mock_ref;
typedef struct emit_ctx {
  const sf_seq *s;
  const struct mock_ref *mocks; /* list_mocks */
  uint32_t nmocks;
  unsigned impl;
  bool facts;   /* record what the run sees (two runs are compared) */
  bool observe; /* the run ends observing (s->observed, first implementation) */
  char names[2][512];
  unsigned slot;
} emit_ctx;

static const char *fname(emit_ctx *c, uint32_t fi) {
  const sf_api *api = c->s->api;
  c->slot ^= 1;
  if (api->funcs[fi].reads) { /* generated by sf_repro_write, as by the build */
    snprintf(c->names[c->slot], sizeof c->names[c->slot], "sf_reads_%s", api->funcs[fi].name);
    return c->names[c->slot];
  }
  if (c->impl == 0) return api->funcs[fi].name;
  return sf_diff_symbol(api, fi, c->names[c->slot], sizeof c->names[c->slot]);
}

/* A `release` symbol, mapped like the functions. */
static const char *rname(emit_ctx *c, const char *release) {
  if (c->impl == 0) return release;
  c->slot ^= 1;
  return sf_diff_release(c->s->api, release, c->names[c->slot], sizeof c->names[c->slot]);
}

static double tolerance(const sf_api *api, uint32_t fi) {
  return api->diff ? api->diff->tolerance[fi] : 0;
}

/* The sf_val constructor for a value of kind k. */
static const char *val_ctor(const sf_api *api, const sf_param *p) {
  sf_kind k = value_kind(api, p);
  return k == SF_F32 || k == SF_F64 ? "sf_vd" : k == SF_STRING ? "sf_vs" : "sf_vi";
}

/* A `struct` handle the caller allocates (docs/grammar.md 3.2). */
static bool is_struct(const sf_api *api, const sf_param *p) {
  return p->kind == SF_HANDLE && api->handles[p->type_index].is_struct;
}

/* Value id of out handle parameter j of call ci. */
static uint32_t out_handle_vid(const sf_seq *s, uint32_t ci, uint32_t j) {
  const sf_func *f = sf_seq_func(s, ci);
  uint32_t vid = s->calls[ci].val0 + (f->ret.kind == SF_HANDLE);
  for (uint32_t k = 0; k < j; k++)
    if (f->params[k].kind == SF_HANDLE && (f->params[k].flags & SF_P_OUT)) vid++;
  return vid;
}

static void out_scratch(sf_buf *out, const sf_func *f) {
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].flags & SF_P_OUT)
      sf_buf_printf(out, " %s o%u = 0;",
                    f->params[i].kind == SF_HANDLE ? "void *" : stdint_name(f->params[i].kind), i);
}

/* Wrappers the checks call through a handle as void *: each state observer
 * (sf_oI_NAME, giving an sf_val), printers and parsers for round trips. */
static void emit_wrappers(emit_ctx *c, sf_buf *out) {
  const sf_api *api = c->s->api;
  for (uint32_t fi = 0; fi < api->nfuncs; fi++) {
    const sf_func *f = &api->funcs[fi];
    int32_t h = sf_func_state_observer(f);
    bool parser = sf_func_round_trip(api, fi) >= 0;
    if (h >= 0) {
      sf_buf_printf(out, "SF_UNUSED static sf_val sf_o%u_%s(void *h) {", c->impl, f->name);
      out_scratch(out, f);
      sf_buf_printf(out, " %s r = %s(", f->ret.kind == SF_STRING ? "const char *" : f->ret.ctype,
                    fname(c, fi));
      for (uint32_t i = 0; i < f->nparams; i++) {
        sf_buf_printf(out, "%s", i ? ", " : "");
        if (f->params[i].flags & SF_P_OUT)
          sf_buf_printf(out, "&o%u", i);
        else
          sf_buf_printf(out, "h");
      }
      if (f->ret.kind == SF_STRING)
        sf_buf_printf(out, "); sf_val v = sf_vs(r);%s%s%s return v; }\n",
                      f->release ? " if (r) " : "", f->release ? rname(c, f->release) : "",
                      f->release ? "((char *)r);" : "");
      else if (f->ret.kind == SF_F32 || f->ret.kind == SF_F64)
        sf_buf_printf(out, "); return sf_vd(r); }\n");
      else
        sf_buf_printf(out, "); return sf_vi((long long)r); }\n");
    }
    if (parser) {
      const sf_func *p = &api->funcs[f->inverse_of];
      const sf_func *d = &api->funcs[api->handles[f->ret.type_index].destructor];
      sf_buf_printf(out, "SF_UNUSED static char *sf_print%u_%s(void *h) { char *r = (char *)%s(h);",
                    c->impl, f->name, fname(c, (uint32_t)f->inverse_of));
      sf_buf_printf(out, " char *c = r ? strdup(r) : NULL;%s%s%s return c; }\n",
                    p->release ? " if (r) " : "", p->release ? rname(c, p->release) : "",
                    p->release ? "(r);" : "");
      sf_buf_printf(out, "SF_UNUSED static void *sf_parse%u_%s(const char *s) { %s *r = %s(s); ",
                    c->impl, f->name, api->handles[f->ret.type_index].ctype, fname(c, fi));
      if (f->err_cmp != SF_CMP_NONE && f->err_cmp != SF_CMP_NULL) {
        sf_buf_printf(out, "if (");
        error_test(out, f);
        sf_buf_printf(out, ") return NULL; ");
      }
      sf_buf_printf(out, "return r; }\n");
      sf_buf_printf(out, "SF_UNUSED static void sf_free%u_%s(void *h) {", c->impl, f->name);
      out_scratch(out, d);
      sf_buf_printf(out, " (void)%s(",
                    fname(c, (uint32_t)api->handles[f->ret.type_index].destructor));
      bool done = false;
      for (uint32_t i = 0; i < d->nparams; i++) {
        sf_buf_printf(out, "%s", i ? ", " : "");
        if (d->params[i].flags & SF_P_OUT)
          sf_buf_printf(out, "&o%u", i);
        else if (!done && d->params[i].kind == SF_HANDLE)
          sf_buf_printf(out, "h"), done = true;
        else
          sf_buf_printf(out, "0");
      }
      /* A struct's storage is the caller's to free after its destructor. */
      sf_buf_printf(out, api->handles[f->ret.type_index].is_struct ? "); free(h); }\n" : "); }\n");
    }
  }
}

/* ---- contracts as C ------------------------------------------------------ */

typedef struct c_expr_ctx {
  emit_ctx *ec;
  uint32_t ci;
  const sf_func *f; /* NULL for an invariant */
  uint32_t var;     /* an invariant's handle: its value id */
  uint32_t old_base;
  bool pre; /* a precondition: read before the call's variables exist */
} c_expr_ctx;

/* 's' a string, 'f' a float, 'i' an integer, 'p' a handle or NULL. */
static char expr_type(const c_expr_ctx *c, const sf_expr *e) {
  const sf_api *api = c->ec->s->api;
  const sf_param *p = NULL;
  switch (e->op) {
  case SF_E_INT:
    return 'i';
  case SF_E_FLOAT:
    return 'f';
  case SF_E_STR:
    return 's';
  case SF_E_NULL:
    return 'p';
  case SF_E_RET:
    p = &c->f->ret;
    break;
  case SF_E_PARAM:
    if (!c->f) return 'p';
    p = &c->f->params[e->index];
    if (p->flags & SF_P_LENGTH) return 'i';
    break;
  case SF_E_CALL:
    p = &api->funcs[e->index].ret;
    break;
  case SF_E_OLD:
  case SF_E_NEG:
    return expr_type(c, e->kids[0]);
  case SF_E_ADD:
  case SF_E_SUB:
  case SF_E_MUL:
  case SF_E_DIV:
  case SF_E_MOD:
    return expr_type(c, e->kids[0]) == 'f' || expr_type(c, e->kids[1]) == 'f' ? 'f' : 'i';
  default:
    return 'i';
  }
  if (p->kind == SF_HANDLE) return 'p';
  if (p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY) return 's';
  if (p->kind == SF_F32 || p->kind == SF_F64) return 'f';
  return 'i';
}

static void c_arg_value(const c_expr_ctx *c, uint32_t j, sf_buf *out) {
  const sf_seq *s = c->ec->s;
  const sf_api *api = s->api;
  const sf_func *f = c->f;
  const sf_param *p = &f->params[j];
  const sf_arg *a = sf_seq_args(s, c->ci);
  if (p->flags & SF_P_OUT) {
    if (p->kind != SF_HANDLE) {
      sf_buf_printf(out, "o%u", j);
      return;
    }
    sf_buf_printf(out, "h%u", out_handle_vid(s, c->ci, j) + 1);
  } else if ((p->flags & SF_P_INOUT) && !c->pre) {
    sf_buf_printf(out, "o%u", j);
  } else if (p->flags & SF_P_LENGTH) {
    sf_buf_printf(out, "%u", a[p->len_of].len / sf_kind_size(f->params[p->len_of].elem));
  } else if (p->kind == SF_HANDLE) {
    if (a[j].bits == SF_NULL_REF)
      sf_buf_printf(out, "NULL");
    else
      sf_buf_printf(out, "h%llu", (unsigned long long)a[j].bits + 1);
  } else if (p->kind == SF_STRING && a[j].bits) {
    sf_buf_printf(out, "(const char *)NULL");
  } else if (p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY) {
    c_literal(out, sf_seq_bytes(s, &a[j]), a[j].len);
  } else if (p->kind == SF_ENUM) {
    /* By value: a grammar's constant names need not be the header's. */
    const sf_const *k = &api->enums[p->type_index].consts[a[j].bits];
    sf_buf_printf(out, "%lld /* %s */", (long long)k->value, k->name);
  } else if (p->kind == SF_FLAGS) {
    const sf_enum *e = &api->enums[p->type_index];
    uint64_t v = 0;
    sf_buf_printf(out, "(");
    for (uint32_t k = 0; k < e->nconsts; k++)
      if (a[j].bits >> k & 1) v |= (uint64_t)e->consts[k].value;
    sf_buf_printf(out, "%#llx /*", (unsigned long long)v);
    for (uint32_t k = 0; k < e->nconsts; k++)
      if (a[j].bits >> k & 1) sf_buf_printf(out, " %s", e->consts[k].name);
    sf_buf_printf(out, " */)");
  } else {
    number(out, p->kind, a[j].bits);
  }
}

static bool c_leaf(void *ctx, const sf_expr *e, sf_buf *out) {
  c_expr_ctx *c = ctx;
  const sf_api *api = c->ec->s->api;
  switch (e->op) {
  case SF_E_RET:
    sf_buf_printf(out, "r");
    return true;
  case SF_E_PARAM:
    if (c->f)
      c_arg_value(c, e->index, out);
    else
      sf_buf_printf(out, "h%u", c->var + 1);
    return true;
  case SF_E_STATE: { /* the harness's per-value states, as an array */
    const sf_expr *h = e->kids[0];
    uint64_t vid = !c->f                 ? c->var
                   : h->op == SF_E_PARAM ? sf_seq_args(c->ec->s, c->ci)[h->index].bits
                                         : SF_NULL_REF;
    if (vid == SF_NULL_REF)
      sf_buf_printf(out, "(sf_unknown = 1, 0)");
    else
      sf_buf_printf(out, "sf_state[%llu][%u]", (unsigned long long)vid, e->index);
    return true;
  }
  case SF_E_OLD:
    sf_buf_printf(out, "(sf_unknown |= sf_oldu%u_%u, sf_old%u_%u)", c->ci + 1,
                  c->old_base + e->index, c->ci + 1, c->old_base + e->index);
    return true;
  case SF_E_CALL: {
    const sf_func *g = &api->funcs[e->index];
    sf_buf_printf(out, "(1");
    for (uint32_t k = 0; k < e->nkids; k++)
      if (expr_type(c, e->kids[k]) == 'p') {
        sf_buf_printf(out, " && sf_known(");
        sf_expr_print(api, e->kids[k], c_leaf, c, out);
        sf_buf_printf(out, ")");
      }
    sf_buf_printf(out, g->ret.kind == SF_STRING ? " ? sf_keep(%s(" : " ? %s(",
                  fname(c->ec, e->index));
    uint32_t in = 0;
    for (uint32_t j = 0; j < g->nparams; j++) {
      if (j) sf_buf_printf(out, ", ");
      if (sf_param_is_input(&g->params[j]) && in < e->nkids)
        sf_expr_print(api, e->kids[in++], c_leaf, c, out);
      else
        sf_buf_printf(out, "&(%s){0}",
                      g->params[j].kind == SF_HANDLE ? "void *" : stdint_name(g->params[j].kind));
    }
    sf_buf_printf(out, g->ret.kind == SF_STRING ? ")) : (const char *)0)" : ") : 0)");
    return true;
  }
  case SF_E_EQ:
  case SF_E_NE:
  case SF_E_LT:
  case SF_E_LE:
  case SF_E_GT:
  case SF_E_GE: {
    if (expr_type(c, e->kids[0]) != 's' || expr_type(c, e->kids[1]) != 's') return false;
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    sf_buf_printf(out, "(sf_strcmp(");
    sf_expr_print(api, e->kids[0], c_leaf, c, out);
    sf_buf_printf(out, ", ");
    sf_expr_print(api, e->kids[1], c_leaf, c, out);
    sf_buf_printf(out, ") %s 0)", ops[e->op - SF_E_EQ]);
    return true;
  }
  case SF_E_DIV:
  case SF_E_MOD:
    if (expr_type(c, e) == 'f') return false;
    sf_buf_printf(out, "sf_idiv(");
    sf_expr_print(api, e->kids[0], c_leaf, c, out);
    sf_buf_printf(out, ", ");
    sf_expr_print(api, e->kids[1], c_leaf, c, out);
    sf_buf_printf(out, ", %d)", e->op == SF_E_MOD);
    return true;
  default:
    return false;
  }
}

/* Declare the old() values of f's contracts before call ci. */
static void c_capture_old(c_expr_ctx *c, const sf_expr *e, sf_buf *out) {
  if (e->op == SF_E_OLD) {
    uint32_t k = c->old_base + e->index;
    sf_buf_printf(out, "    sf_unknown = 0;\n    __typeof__(");
    sf_expr_print(c->ec->s->api, e->kids[0], c_leaf, c, out);
    sf_buf_printf(out, ") sf_old%u_%u = ", c->ci + 1, k);
    sf_expr_print(c->ec->s->api, e->kids[0], c_leaf, c, out);
    sf_buf_printf(out, ";\n    int sf_oldu%u_%u = sf_unknown;\n", c->ci + 1, k);
    return;
  }
  for (uint32_t i = 0; i < e->nkids; i++)
    c_capture_old(c, e->kids[i], out);
}

static void c_check(c_expr_ctx *c, const sf_contract *k, const char *kind, const char *func,
                    const char *which, sf_buf *out) {
  sf_buf_printf(out, "    sf_unknown = 0;\n    if (!(");
  sf_expr_print(c->ec->s->api, k->expr, c_leaf, c, out);
  sf_buf_printf(out, ") && !sf_unknown)\n      sf_violation(\"%s\", \"%s\", \"%s\", ", kind, func,
                which);
  c_literal(out, (const uint8_t *)k->text, strlen(k->text));
  sf_buf_printf(out, ");\n");
}

static void c_invariants(emit_ctx *ec, uint32_t ci, uint32_t vid, sf_buf *out) {
  const sf_api *api = ec->s->api;
  for (uint32_t i = 0; i < api->ninvariants; i++) {
    const sf_invariant *inv = &api->invariants[i];
    if (inv->handle != ec->s->vals[vid].htype) continue;
    char which[96];
    snprintf(which, sizeof which, "invariant %u of %s", i + 1, api->handles[inv->handle].name);
    c_expr_ctx c = {ec, ci, NULL, vid, 0, false};
    sf_buf_printf(out, "    if (h%u) {\n  ", vid + 1);
    c_check(&c, &inv->contract, "invariant-violation", sf_seq_func(ec->s, ci)->name, which, out);
    sf_buf_printf(out, "    }\n");
  }
}

/* ---- recording what a run sees ------------------------------------------- */

static void fact_observers(emit_ctx *c, int call, uint32_t vid, sf_buf *out) {
  const sf_api *api = c->s->api;
  for (uint32_t fi = 0; fi < api->nfuncs; fi++) {
    if (sf_func_state_observer(&api->funcs[fi]) != (int32_t)c->s->vals[vid].htype ||
        !sf_func_compared(api, fi))
      continue;
    sf_buf_printf(out, "    if (h%u) sf_fact_add(%d, \"%s\", \"observer\", sf_o%u_%s(h%u), %g);\n",
                  vid + 1, call, api->funcs[fi].name, c->impl, api->funcs[fi].name, vid + 1,
                  tolerance(api, fi));
  }
}

/* An `observed` input's run ends by checking the generic contracts on every
 * live value and calling its state observers (harness/feedback.h); a crash
 * inside one must happen here too. */
static void observe_all(emit_ctx *c, sf_buf *out) {
  const sf_seq *s = c->s;
  const sf_api *api = s->api;
  for (uint32_t v = 0; v < s->nvals; v++) {
    uint32_t n = 0;
    sf_buf names = {0}, fns = {0}, cmp = {0};
    for (uint32_t fi = 0; fi < api->nfuncs; fi++) {
      if (sf_func_state_observer(&api->funcs[fi]) != (int32_t)s->vals[v].htype) continue;
      sf_buf_printf(&names, "%s\"%s\"", n ? ", " : "", api->funcs[fi].name);
      sf_buf_printf(&fns, "%ssf_o%u_%s", n ? ", " : "", c->impl, api->funcs[fi].name);
      sf_buf_printf(&cmp, "%s%d", n ? ", " : "", sf_func_compared(api, fi));
      n++;
    }
    if (n && n <= 32)
      sf_buf_printf(
          out,
          "  if (h%u) sf_check_pure(h%u, %u, (sf_obs_fn[]){%.*s}, (const char *[]){%.*s}, "
          "(const int[]){%.*s});\n",
          v + 1, v + 1, n, (int)fns.len, (const char *)fns.data, (int)names.len,
          (const char *)names.data, (int)cmp.len, (const char *)cmp.data);
    sf_buf_free(&names);
    sf_buf_free(&fns);
    sf_buf_free(&cmp);
    for (uint32_t fi = 0; fi < api->nfuncs; fi++) {
      const sf_func *q = &api->funcs[fi];
      if (sf_func_round_trip(api, fi) != (int32_t)s->vals[v].htype) continue;
      sf_buf_printf(out,
                    "  if (h%u) sf_round_trip(h%u, sf_print%u_%s, sf_parse%u_%s, sf_free%u_%s, "
                    "\"%s\", \"%s\");\n",
                    v + 1, v + 1, c->impl, q->name, c->impl, q->name, c->impl, q->name,
                    api->funcs[q->inverse_of].name, q->name);
    }
  }
  for (uint32_t v = 0; v < s->nvals && v < SF_FB_MAX_VALUES; v++) {
    for (uint32_t fi = 0; fi < api->nfuncs; fi++) {
      const sf_func *f = &api->funcs[fi];
      if (sf_func_state_observer(f) != (int32_t)s->vals[v].htype) continue;
      sf_buf_printf(out,
                    "  if (h%u) free(sf_o%u_%s(h%u).s); /* observer, as at the end of every "
                    "run */\n",
                    v + 1, c->impl, f->name, v + 1);
    }
  }
}

/* The `sets` of call ci, as the harness applies them: every value from the
 * states before the call, then the stores. */
static void emit_sets(emit_ctx *ec, uint32_t ci, sf_buf *out) {
  const sf_seq *s = ec->s;
  const sf_func *f = sf_seq_func(s, ci);
  const sf_arg *a = sf_seq_args(s, ci);
  if (!f->nsets) return;
  sf_buf_printf(out, "    {\n");
  for (uint32_t k = 0; k < f->nsets; k++) {
    c_expr_ctx cc = {ec, ci, f, 0, 0, false};
    sf_buf_printf(out, "      sf_unknown = 0;\n      long long st%u = (", k);
    sf_expr_print(s->api, f->sets[k].value.expr, c_leaf, &cc, out);
    sf_buf_printf(out, ");\n      if (sf_unknown) st%u = 0; /* sets %s */\n", k,
                  s->api->states[f->sets[k].state].name);
  }
  for (uint32_t k = 0; k < f->nsets; k++)
    if (a[f->sets[k].param].bits != SF_NULL_REF)
      sf_buf_printf(out, "      sf_state[%llu][%u] = st%u;\n",
                    (unsigned long long)a[f->sets[k].param].bits, f->sets[k].state, k);
  sf_buf_printf(out, "    }\n");
}

/* The coverage observers (api.h: sf_api_coverage_state) the harness calls
 * after each call that did not fail, on each live handle it took or made:
 * a crash inside one happens here too. */
static void emit_coverage(emit_ctx *ec, uint32_t ci, const sf_life *life, sf_buf *out) {
  const sf_seq *s = ec->s;
  const sf_api *api = s->api;
  const sf_func *f = sf_seq_func(s, ci);
  const sf_arg *a = sf_seq_args(s, ci);
  uint32_t vid = s->calls[ci].val0;
  /* Inside `if (the call did not fail)` when a failure lets the run go on. */
  bool refused = f->err_cmp != SF_CMP_NONE && (f->flags & SF_F_RECOVERABLE);
  const char *indent = refused ? "      " : "    ";
  sf_buf calls = {0};
  for (uint32_t k = 0; k < f->nparams + f->nproduced; k++) {
    uint32_t v;
    if (k < f->nparams) {
      const sf_param *p = &f->params[k];
      if (p->kind != SF_HANDLE || (p->flags & SF_P_OUT) || a[k].bits == SF_NULL_REF) continue;
      v = (uint32_t)a[k].bits;
    } else {
      v = vid + (k - f->nparams);
    }
    if (v >= life->n || !life->alive[v]) continue;
    for (uint32_t fi = 0; fi < api->nfuncs; fi++)
      if ((api->funcs[fi].flags & SF_F_COVERAGE) &&
          sf_func_state_observer(&api->funcs[fi]) == (int32_t)s->vals[v].htype)
        sf_buf_printf(&calls, "%sif (h%u) (void)%s(h%u); /* coverage */\n", indent, v + 1,
                      fname(ec, fi), v + 1);
  }
  if (!calls.len) return;
  if (refused) {
    sf_buf_printf(out, "    if (!(");
    error_test(out, f);
    sf_buf_printf(out, ")) {\n");
  }
  sf_buf_printf(out, "%.*s", (int)calls.len, (const char *)calls.data);
  if (refused) sf_buf_printf(out, "    }\n");
  sf_buf_free(&calls);
}

/* Is argument a (of parameter p) a mock or a vtable, not NULL? */
static bool is_mock(const sf_param *p, const sf_arg *a) {
  return (p->flags & (SF_P_CALLBACK | SF_P_VTABLE)) && (a->len || !(p->flags & SF_P_NULLABLE));
}

/* A mock of the sequence: a callback argument, or a member of a vtable
 * argument (slot >= 0), with its script. Named sf_mock<call>_<param>[_<slot>]
 * (its function) and sf_script... (its script). */
typedef struct mock_ref {
  uint32_t call, param;
  int32_t slot;
  const sf_callback *cb;
  const uint8_t *script;
  uint32_t len;
} mock_ref;

/* Every mock of s (NULL members and arguments left out), in call order. */
static mock_ref *list_mocks(const sf_seq *s, uint32_t *n) {
  mock_ref *refs = NULL;
  uint32_t cap = 0;
  *n = 0;
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    const sf_arg *a = sf_seq_args(s, ci);
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (!is_mock(p, &a[i])) continue;
      const uint8_t *scripts[SF_MAX_VTABLE_SLOTS] = {sf_seq_bytes(s, &a[i])};
      uint32_t lens[SF_MAX_VTABLE_SLOTS] = {a[i].len}, nslots = 1;
      const sf_vtable *vt = (p->flags & SF_P_VTABLE) ? &s->api->vtables[p->type_index] : NULL;
      if (vt) {
        sf_vtable_scripts(vt, sf_seq_bytes(s, &a[i]), a[i].len, scripts, lens);
        nslots = vt->nslots;
      }
      for (uint32_t k = 0; k < nslots; k++) {
        if (vt && !lens[k] && vt->slots[k].nullable) continue;
        if (*n == cap) {
          mock_ref *r = realloc(refs, (cap = cap ? 2 * cap : 16) * sizeof *r);
          if (!r) {
            free(refs);
            *n = 0;
            return NULL;
          }
          refs = r;
        }
        refs[(*n)++] = (mock_ref){ci + 1,
                                  i,
                                  vt ? (int32_t)k : -1,
                                  &s->api->callbacks[vt ? vt->slots[k].callback : p->type_index],
                                  scripts[k],
                                  lens[k]};
      }
    }
  }
  return refs;
}

/* "PREFIX<call>_<param>[_<slot>]" */
static void mock_name(sf_buf *out, const char *prefix, const mock_ref *m) {
  sf_buf_printf(out, "%s%u_%u", prefix, m->call, m->param);
  if (m->slot >= 0) sf_buf_printf(out, "_%d", m->slot);
}

/* Each mock (sf_mock...): its script and a function that answers from it as
 * the harness's mock does (api.h: sf_callback; harness/exec.c: mock_entry);
 * each vtable argument's struct (sf_vt<call>_<param>), filled in main. */
static void emit_mocks(const sf_seq *s, const mock_ref *refs, uint32_t nrefs, sf_buf *out) {
  for (uint32_t ci = 0; ci < s->ncalls; ci++)
    for (uint32_t i = 0; i < sf_seq_func(s, ci)->nparams; i++) {
      const sf_param *p = &sf_seq_func(s, ci)->params[i];
      if ((p->flags & SF_P_VTABLE) && is_mock(p, &sf_seq_args(s, ci)[i]))
        sf_buf_printf(out, "static %s sf_vt%u_%u;\n", s->api->vtables[p->type_index].ctype, ci + 1,
                      i);
    }
  for (uint32_t r = 0; r < nrefs; r++) {
    const mock_ref *mr = &refs[r];
    const sf_callback *cb = mr->cb;
    /* its bytes: a heap copy of exactly their size, made by each run */
    sf_buf_printf(out, "static struct sf_script ");
    mock_name(out, "sf_script", mr);
    sf_buf_printf(out, " = {NULL, %u, 0};\n/* callback %s */\nstatic %s ", mr->len, cb->name,
                  cb->ret.ctype);
    mock_name(out, "sf_mock", mr);
    sf_buf_printf(out, "(");
    for (uint32_t j = 0; j < cb->nparams; j++)
      sf_buf_printf(out, "%s%s q%u", j ? ", " : "", cb->params[j].ctype, j);
    sf_buf_printf(out, "%s) {\n  struct sf_script *m = &", cb->nparams ? "" : "void");
    mock_name(out, "sf_script", mr);
    sf_buf_printf(out, ";\n  unsigned long long chunk = 0, v;\n  (void)m;\n  (void)chunk;\n"
                       "  (void)v;\n");
    for (uint32_t j = 0; j < cb->nparams && (cb->alloc_size >= 0 || cb->frees >= 0); j++)
      sf_buf_printf(out, "  (void)q%u;\n", j);
    if (cb->alloc_size >= 0) { /* fault injection: the record says whether it fails */
      sf_buf_printf(out, "  unsigned long long n = (unsigned long long)q%d", cb->alloc_size);
      if (cb->alloc_by >= 0) sf_buf_printf(out, " * (unsigned long long)q%d", cb->alloc_by);
      sf_buf_printf(out,
                    ";\n  return sf_take(m, 1) || n > (1u << 30) ? NULL : malloc(n ? n : 1);\n}\n");
      continue;
    }
    if (cb->frees >= 0) {
      sf_buf_printf(out, "  free(q%d);\n}\n", cb->frees);
      continue;
    }
    for (uint32_t j = 0; j < cb->nparams; j++) { /* the chunk first, as the harness */
      const sf_param *q = &cb->params[j];
      if (!(q->flags & SF_P_OUT)) {
        sf_buf_printf(out, "  (void)q%u;\n", j);
      } else if (q->kind == SF_BUFFER) {
        sf_buf_printf(out, "  {\n    const unsigned char *b;\n    chunk = sf_chunk(m, &b);\n");
        if (q->len_param >= 0)
          sf_buf_printf(out,
                        "    if (chunk > (unsigned long long)q%d) chunk = q%d;\n"
                        "    if (q%u && chunk) memcpy(q%u, b, chunk);\n  }\n",
                        q->len_param, q->len_param, j, j);
        else
          sf_buf_printf(out, "    if (q%u) *q%u = (unsigned char *)b;\n  }\n", j, j);
      }
    }
    for (uint32_t j = 0; j < cb->nparams; j++) { /* then the out numbers */
      const sf_param *q = &cb->params[j];
      if (!(q->flags & SF_P_OUT) || q->kind == SF_BUFFER) continue;
      unsigned size = sf_kind_size(q->kind);
      if (q->flags & SF_P_LENGTH)
        sf_buf_printf(out, "  v = chunk;\n");
      else
        sf_buf_printf(out, "  v = sf_take(m, %u);\n", size);
      sf_buf_printf(out, "  if (q%u) memcpy(q%u, &v, %u);\n", j, j, size);
    }
    if (cb->ret.kind == SF_VOID) {
      sf_buf_printf(out, "}\n");
      continue;
    }
    unsigned size = sf_kind_size(cb->ret.kind);
    if (cb->ret_is_count) {
      sf_buf_printf(out, "  return (%s)chunk;\n}\n", cb->ret.ctype);
      continue;
    }
    sf_buf_printf(out, "  if (m->pos + %u > m->len) {\n    m->pos = m->len;\n    return (%s)", size,
                  cb->ret.ctype);
    number(out, cb->ret.kind, cb->ret_default);
    sf_buf_printf(out, ";\n  }\n  v = sf_take(m, %u);\n", size);
    /* out of range: the default */
    if (sf_kind_is_signed(cb->ret.kind))
      sf_buf_printf(out,
                    "  long long w = (long long)(v << %u) >> %u;\n"
                    "  if (w < %lldLL || w > %lldLL) w = %lldLL;\n",
                    64 - 8 * size, 64 - 8 * size, (long long)cb->ret.lo, (long long)cb->ret.hi,
                    (long long)cb->ret_default);
    else if (cb->ret.lo == 0) /* no `w < 0` test: gcc's -Wtype-limits */
      sf_buf_printf(out, "  unsigned long long w = v;\n  if (w > %lluULL) w = %lluULL;\n",
                    (unsigned long long)cb->ret.hi, (unsigned long long)cb->ret_default);
    else
      sf_buf_printf(out,
                    "  unsigned long long w = v;\n"
                    "  if (w < %lluULL || w > %lluULL) w = %lluULL;\n",
                    (unsigned long long)cb->ret.lo, (unsigned long long)cb->ret.hi,
                    (unsigned long long)cb->ret_default);
    sf_buf_printf(out, "  return (%s)w;\n}\n", cb->ret.ctype);
  }
}

static const char mock_runtime[] =
    "\n/* Mocks answer from scripts: numbers little endian, a chunk is a length\n"
    " * byte and that many bytes; past the end, zeros and empty chunks. */\n"
    "struct sf_script {\n  const unsigned char *d;\n  unsigned len, pos;\n};\n"
    "__attribute__((unused)) static unsigned long long sf_take(struct sf_script *m, unsigned n) "
    "{\n  unsigned long long v = 0;\n"
    "  for (unsigned i = 0; i < n && m->pos < m->len; i++)\n"
    "    v |= (unsigned long long)m->d[m->pos++] << (8 * i);\n  return v;\n}\n"
    "__attribute__((unused)) static unsigned long long sf_chunk(struct sf_script *m, "
    "const unsigned char **b) {\n"
    "  unsigned long long n = sf_take(m, 1);\n"
    "  if (n > m->len - m->pos) n = m->len - m->pos;\n"
    "  *b = m->d + m->pos;\n  m->pos += (unsigned)n;\n  return n;\n}\n";

/* The calls of s, as function sf_repro_calls<impl>. */
/* The memfiles and memfds of `keep` parameters, open to the end of the run
 * (f<call>_<param>): their declarations, or (close) their closing. */
static void kept_files(const sf_seq *s, bool close, sf_buf *out) {
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    for (uint32_t i = 0; i < f->nparams; i++) {
      uint32_t fl = f->params[i].flags;
      if (!(fl & (SF_P_MEMFILE | SF_P_MEMFD)) || !(fl & SF_P_KEEP)) continue;
      bool file = fl & SF_P_MEMFILE;
      if (!close)
        sf_buf_printf(out, file ? "  FILE *f%u_%u = NULL;\n" : "  int f%u_%u = -1;\n", ci + 1, i);
      else
        sf_buf_printf(
            out, file ? "  if (f%u_%u) fclose(f%u_%u);\n" : "  if (f%u_%u >= 0) close(f%u_%u);\n",
            ci + 1, i, ci + 1, i);
    }
  }
}

/* A printf format and its arguments as C: "%d of %s", 42, "abc". */
static void printf_args(sf_buf *out, const uint8_t *d, size_t n, bool sqlite) {
  static sf_printf fmt; /* large: not on the stack */
  sf_printf_parse(d, n, sqlite, &fmt);
  c_literal(out, (const uint8_t *)fmt.format, fmt.flen);
  for (uint32_t k = 0; k < fmt.nargs; k++) {
    const sf_printf_arg *pa = &fmt.args[k];
    switch (pa->kind) {
    case 'i':
      sf_buf_printf(out, ", (int)%d", (int)pa->bits);
      break;
    case 'u':
      sf_buf_printf(out, ", (unsigned)%uu", (unsigned)pa->bits);
      break;
    case 'l':
    case 'L': {
      /* the C type the length modifier names */
      const char *t = strcmp(pa->mod, "ll") == 0 ? "long long"
                      : pa->mod[0] == 'z'        ? (pa->kind == 'L' ? "size_t" : "ssize_t")
                      : pa->mod[0] == 'j'        ? "intmax_t"
                      : pa->mod[0] == 't'        ? "ptrdiff_t"
                                                 : "long";
      sf_buf_printf(out, ", (%s%s)%lldLL", pa->kind == 'L' && t[0] != 's' ? "unsigned " : "", t,
                    (long long)pa->bits);
      break;
    }
    case 'd': {
      uint64_t b;
      memcpy(&b, &pa->d, sizeof b);
      sf_buf_printf(out, ", ");
      number(out, SF_F64, b);
      break;
    }
    default:
      sf_buf_printf(out, ", ");
      c_literal(out, (const uint8_t *)pa->str, pa->len);
    }
  }
}

static int emit_calls(emit_ctx *ec, sf_buf *out) {
  const mock_ref *mocks = ec->mocks;
  uint32_t nmocks = ec->nmocks;
  const sf_seq *s = ec->s;
  const sf_api *api = s->api;
  sf_life life;
  sf_life_init(&life, api);
  sf_buf_printf(out, "__attribute__((noinline)) static int sf_repro_calls%u(void) {\n", ec->impl);
  for (uint32_t v = 0; v < s->nvals; v++)
    sf_buf_printf(out, "  %s *h%u = NULL;\n", api->handles[s->vals[v].htype].ctype, v + 1);
  uint32_t nkept = 0;
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    for (uint32_t i = 0; i < f->nparams; i++)
      nkept += (f->params[i].flags & SF_P_KEEP) != 0;
  }
  if (nkept) sf_buf_printf(out, "  void *kept[%u];\n  unsigned nkept = 0;\n", nkept);
  kept_files(s, false, out);
  if (api->nstates && s->nvals) /* the grammar's `state`s of each value */
    sf_buf_printf(out, "  long long sf_state[%u][%u];\n  memset(sf_state, 0, sizeof sf_state);\n",
                  s->nvals, api->nstates);
  for (uint32_t r = 0; r < nmocks; r++) { /* each run starts its scripts anew */
    const mock_ref *m = &mocks[r];
    sf_buf_printf(out, "  ");
    mock_name(out, "sf_script", m);
    sf_buf_printf(out, ".pos = 0;\n  ");
    mock_name(out, "sf_script", m);
    sf_buf_printf(out, ".d = copy_of(");
    c_literal(out, m->script, m->len);
    sf_buf_printf(out, ", %u);\n  ", m->len);
    mock_name(out, "sf_script", m);
    sf_buf_printf(out, ".len = %u;\n", m->len);
    if (m->slot >= 0) {
      const sf_param *p = &sf_seq_func(s, m->call - 1)->params[m->param];
      sf_buf_printf(out, "  sf_vt%u_%u.%s = ", m->call, m->param,
                    api->vtables[p->type_index].slots[m->slot].member);
      mock_name(out, "sf_mock", m);
      sf_buf_printf(out, ";\n");
    }
  }

  sf_buf_printf(out, "\n");

  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    uint32_t fi = s->calls[ci].func;
    const sf_arg *a = sf_seq_args(s, ci);
    uint32_t vid = s->calls[ci].val0;
    /* Values that die here (consumed, owner gone, invalidated). */
    uint8_t before[1024];
    uint32_t n = life.n < sizeof before ? life.n : sizeof before;
    if (n) memcpy(before, life.alive, n);
    if (sf_life_apply(&life, fi, a)) {
      sf_life_free(&life);
      return -1;
    }
    /* A NULL handle stops the run, as in the executor. */
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (p->kind == SF_HANDLE && sf_param_is_input(p) && a[i].bits != SF_NULL_REF &&
          !(p->flags & SF_P_NULLABLE)) {
        sf_buf_printf(out, "  if (!h%llu) ", (unsigned long long)a[i].bits + 1);
        if (ec->facts)
          sf_buf_printf(out, "{ sf_fact_add(%u, \"%s\", \"status\", sf_vi(2), 0); goto out; }\n",
                        ci, f->name);
        else
          sf_buf_printf(out, "goto out;\n");
      }
    }
    /* Preconditions: false, the call is not made (the harness stops there). */
    for (uint32_t k = 0; k < f->nrequires; k++) {
      c_expr_ctx cc = {ec, ci, f, 0, 0, true};
      sf_buf_printf(out, "  sf_unknown = 0;\n  if (!(");
      sf_expr_print(api, f->requires[k].expr, c_leaf, &cc, out);
      sf_buf_printf(out, ") || sf_unknown) goto out; /* requires ");
      for (const char *t = f->requires[k].text; *t; t++) /* no comment end inside */
        sf_buf_printf(out, "%c", *t == '*' && t[1] == '/' ? '+' : *t);
      sf_buf_printf(out, " */\n");
    }
    sf_buf_printf(out, "  { /* %u */\n", ci + 1);
    /* Arguments that live in heap blocks. */
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (p->flags & SF_P_INOUT) { /* passed by pointer */
        sf_buf_printf(out, "    %s o%u = ", stdint_name(p->kind), i);
        if (p->flags & SF_P_LENGTH)
          sf_buf_printf(out, "%u", a[p->len_of].len / sf_kind_size(f->params[p->len_of].elem));
        else
          number(out, p->kind, a[i].bits);
        sf_buf_printf(out, ";\n");
        continue;
      }
      if (!sf_param_is_input(p)) {
        if ((p->flags & SF_P_OUT) && (p->kind == SF_BUFFER || p->kind == SF_ARRAY)) {
          uint64_t count = p->kind == SF_ARRAY ? p->array_len : a[p->len_param].bits;
          if (count) /* the callee fills it */
            sf_buf_printf(out, "    %s *a%u = calloc(%llu, %u);\n", stdint_name(p->elem), i,
                          (unsigned long long)count, sf_kind_size(p->elem));
          else /* empty: the end of a 1-byte block, as the harness passes it */
            sf_buf_printf(out, "    %s *a%u = (%s *)((char *)calloc(1, 1) + 1);\n",
                          stdint_name(p->elem), i, stdint_name(p->elem));
        } else if ((p->flags & SF_P_OUT) && p->kind == SF_STRING) {
          sf_buf_printf(out, "    %s o%u = NULL;\n",
                        strcmp(p->ctype, "void **") == 0 ? "void *" : "const char *", i);
        } else if ((p->flags & SF_P_OUT) && is_struct(api, p)) {
          sf_buf_printf(out, "    h%u = calloc(1, sizeof(%s)); /* the caller's struct */\n",
                        out_handle_vid(s, ci, i) + 1, api->handles[p->type_index].ctype);
        } else if ((p->flags & SF_P_OUT) && p->kind != SF_HANDLE) {
          sf_buf_printf(out, "    %s o%u = 0;\n", stdint_name(p->kind), i);
        }
        continue;
      }
      if (p->flags & (SF_P_MEMFILE | SF_P_MEMFD)) {
        bool file = p->flags & SF_P_MEMFILE;
        if (p->flags & SF_P_KEEP)
          sf_buf_printf(out, "    f%u_%u = ", ci + 1, i);
        else
          sf_buf_printf(out, "    %s a%u = ", file ? "FILE *" : "int", i);
        sf_buf_printf(out, "%s(", file ? "sf_memfile" : "sf_memfd");
        c_literal(out, sf_seq_bytes(s, &a[i]), a[i].len);
        sf_buf_printf(out, ", %u);\n", a[i].len);
        if (p->flags & SF_P_KEEP)
          sf_buf_printf(out, "    %s a%u = f%u_%u;\n", file ? "FILE *" : "int", i, ci + 1, i);
        continue;
      }
      if (p->flags & (SF_P_PRINTF | SF_P_CALLBACK | SF_P_VTABLE))
        continue; /* written out in the call */
      if (p->kind == SF_STRING && !a[i].bits) {
        sf_buf_printf(out, "    char *a%u = copy_of(", i);
        c_literal(out, sf_seq_bytes(s, &a[i]), a[i].len);
        sf_buf_printf(out, ", %u);\n", a[i].len + 1);
      } else if (p->kind == SF_BUFFER || p->kind == SF_ARRAY) {
        unsigned es = sf_kind_size(p->elem);
        if (es == 1 && p->elem != SF_BOOL) {
          sf_buf_printf(out, "    void *a%u = copy_of(", i);
          c_literal(out, sf_seq_bytes(s, &a[i]), a[i].len);
          sf_buf_printf(out, ", %u);\n", a[i].len);
        } else {
          sf_buf_printf(out, "    void *a%u = copy_of((const %s[]){", i, stdint_name(p->elem));
          const uint8_t *d = sf_seq_bytes(s, &a[i]);
          for (uint32_t k = 0; k < a[i].len; k += es) {
            uint64_t b = 0;
            memcpy(&b, d + k, es);
            if (sf_kind_is_signed(p->elem) && es < 8)
              b = (uint64_t)((int64_t)(b << (64 - es * 8)) >> (64 - es * 8));
            if (k) sf_buf_printf(out, ", ");
            number(out, p->elem, b);
          }
          if (!a[i].len) sf_buf_printf(out, "0");
          sf_buf_printf(out, "}, %u);\n", a[i].len);
        }
      }
    }
    /* Values the contracts read before the call. */
    uint32_t old_base = 0;
    for (uint32_t k = 0; k < f->nensures; k++) {
      c_expr_ctx cc = {ec, ci, f, 0, old_base, false};
      c_capture_old(&cc, f->ensures[k].expr, out);
      old_base += f->ensures[k].nold;
    }
    /* The call. */
    sf_buf_printf(out, "    ");
    bool check = f->err_cmp != SF_CMP_NONE;
    bool keep_r = check || f->nensures || ec->facts || f->nsets;
    if (f->ret.kind == SF_HANDLE) {
      sf_buf_printf(out, "%s *r = ", api->handles[f->ret.type_index].ctype);
    } else if (f->ret.kind == SF_STRING) {
      sf_buf_printf(out, "%s r = ", f->release ? "char *" : "const char *");
    } else if (f->ret.kind != SF_VOID && keep_r) {
      sf_buf_printf(out, "%s r = ", stdint_name(value_kind(api, &f->ret)));
    } else if (f->ret.kind != SF_VOID) {
      sf_buf_printf(out, "(void)");
    }
    sf_buf_printf(out, "%s(", fname(ec, fi));
    uint32_t out_vid = vid + (f->ret.kind == SF_HANDLE);
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (i) sf_buf_printf(out, ", ");
      if (p->flags & SF_P_OUT) {
        if (p->kind == SF_HANDLE)
          sf_buf_printf(out, is_struct(api, p) ? "h%u" : "&h%u", ++out_vid);
        else if (p->kind == SF_BUFFER || p->kind == SF_ARRAY)
          sf_buf_printf(out, "a%u", i);
        else
          sf_buf_printf(out, "&o%u", i);
      } else if (p->flags & SF_P_INOUT) {
        sf_buf_printf(out, "&o%u", i);
      } else if (p->flags & SF_P_PRINTF) {
        printf_args(out, sf_seq_bytes(s, &a[i]), a[i].len, p->flags & SF_P_PRINTF_SQLITE);
      } else if (p->flags & (SF_P_CALLBACK | SF_P_VTABLE)) {
        if (is_mock(p, &a[i]))
          sf_buf_printf(out, "%ssf_%s%u_%u", p->flags & SF_P_VTABLE ? "&" : "",
                        p->flags & SF_P_VTABLE ? "vt" : "mock", ci + 1, i);
        else
          sf_buf_printf(out, "NULL");
      } else if (p->flags & SF_P_CONST) {
        sf_buf_printf(out, "(%s)(%s)", p->ctype, p->cexpr ? p->cexpr : "0");
      } else if (p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY) {
        if (p->kind == SF_STRING && a[i].bits)
          sf_buf_printf(out, "NULL");
        else
          sf_buf_printf(out, "a%u", i);
      } else {
        c_expr_ctx cc = {ec, ci, f, 0, 0, false};
        c_arg_value(&cc, i, out);
      }
    }
    sf_buf_printf(out, ");\n");
    for (uint32_t i = 0; i < f->nparams; i++) /* what the caller frees */
      if (f->params[i].release)
        sf_buf_printf(out, "    if (o%u) %s((void *)o%u);\n", i, f->params[i].release, i);
    emit_sets(ec, ci, out);
    if (f->ret.kind == SF_HANDLE) sf_buf_printf(out, "    h%u = r;\n", vid + 1);
    if (f->ret.kind != SF_VOID && f->ret.kind != SF_HANDLE && keep_r)
      sf_buf_printf(out, "    (void)r;\n");
    if (ec->facts) {
      sf_buf_printf(out, "    sf_fact_add(%u, \"%s\", \"status\", sf_vi(", ci, f->name);
      if (check) {
        sf_buf_printf(out, "(");
        error_test(out, f);
        sf_buf_printf(out, ") ? 1 : ");
      }
      sf_buf_printf(out, "0), 0);\n");
      if (f->ret.kind != SF_VOID && sf_func_compared(api, fi)) {
        sf_buf_printf(out, "    sf_fact_add(%u, \"%s\", \"result\", ", ci, f->name);
        if (f->ret.kind == SF_HANDLE)
          sf_buf_printf(out, "sf_vi(r != NULL)");
        else
          sf_buf_printf(out, "%s(r)", val_ctor(api, &f->ret));
        sf_buf_printf(out, ", %g);\n", tolerance(api, fi));
      }
    }
    /* Blocks: freed after the call, or kept to the end. */
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if ((p->flags & SF_P_OUT) && p->kind == SF_STRING) /* borrowed, not read */
        sf_buf_printf(out, "    (void)o%u;\n", i);
      if ((p->flags & SF_P_OUT) && (p->kind == SF_BUFFER || p->kind == SF_ARRAY)) {
        bool empty = p->kind == SF_BUFFER && a[p->len_param].bits == 0; /* a block's end */
        sf_buf_printf(out, "    %s(char *)a%u%s;\n",
                      (p->flags & SF_P_KEEP) ? "kept[nkept++] = " : "free(", i,
                      (p->flags & SF_P_KEEP) ? (empty ? " - 1" : "") : (empty ? " - 1)" : ")"));
      }
      if (p->flags & (SF_P_MEMFILE | SF_P_MEMFD)) {
        const char *close_fn = (p->flags & SF_P_MEMFILE) ? "fclose" : "close";
        if (p->flags & SF_P_KEEP) continue;
        if ((p->flags & SF_P_GIVEN) && check) { /* the callee's, unless the call failed */
          sf_buf_printf(out, "    if (");
          error_test(out, f);
          sf_buf_printf(out, ") close(a%u);\n", i);
        } else if (!(p->flags & SF_P_GIVEN)) {
          sf_buf_printf(out, "    %s(a%u);\n", close_fn, i);
        }
        continue;
      }
      bool block =
          sf_param_is_input(p) && !(p->flags & (SF_P_PRINTF | SF_P_CALLBACK | SF_P_VTABLE)) &&
          ((p->kind == SF_STRING && !a[i].bits) || p->kind == SF_BUFFER || p->kind == SF_ARRAY);
      if (!block) continue;
      if (p->flags & SF_P_KEEP)
        sf_buf_printf(out, "    kept[nkept++] = a%u;\n", i);
      else
        sf_buf_printf(out, "    free(a%u);\n", i);
    }
    /* Consumed handles are no longer ours (a failed destructor consumes too). */
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (!(p->flags & SF_P_CONSUME) || a[i].bits == SF_NULL_REF) continue;
      /* A consumed struct gave its content away; its memory is ours to free. */
      const char *fr = is_struct(api, p) ? "free(h%llu), " : "";
      unsigned long long h = (unsigned long long)a[i].bits + 1;
      if (check && !(f->flags & SF_F_DESTRUCTOR) && !(p->flags & SF_P_STEAL)) {
        sf_buf_printf(out, "    if (!(");
        error_test(out, f);
        sf_buf_printf(out, ")) ");
      } else {
        sf_buf_printf(out, "    ");
      }
      sf_buf_printf(out, fr, h);
      sf_buf_printf(out, "h%llu = NULL;\n", h);
    }
    /* What a stolen handle owned dies with it, even when the call failed. */
    bool steals = false;
    for (uint32_t i = 0; i < f->nparams; i++)
      steals |= (f->params[i].flags & SF_P_STEAL) != 0;
    for (uint32_t v = 0; v < n && steals; v++)
      if (before[v] && !life.alive[v] && life.owner[v] != UINT32_MAX)
        sf_buf_printf(out, "    h%u = NULL; /* owned by a stolen value */\n", v + 1);
    /* A struct a failed call did not fill is freed, not destroyed. */
    for (uint32_t i = 0; check && i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (!(p->flags & SF_P_OUT) || !is_struct(api, p)) continue;
      uint32_t v = out_handle_vid(s, ci, i) + 1;
      sf_buf_printf(out, "    if (");
      error_test(out, f);
      sf_buf_printf(out, ") free(h%u), h%u = NULL;\n", v, v);
    }
    /* Postconditions hold after every call made, failed ones too. */
    old_base = 0;
    for (uint32_t k = 0; k < f->nensures; k++) {
      char which[32];
      snprintf(which, sizeof which, "ensures %u", k + 1);
      c_expr_ctx cc = {ec, ci, f, 0, old_base, false};
      c_check(&cc, &f->ensures[k], "contract-violation", f->name, which, out);
      old_base += f->ensures[k].nold;
    }
    if (check && (f->flags & SF_F_RECOVERABLE)) { /* refused: the run goes on */
      for (uint32_t i = 0; i < f->nparams; i++) {
        const sf_param *p = &f->params[i];
        if (!(p->flags & SF_P_OUT) || p->kind != SF_HANDLE || is_struct(api, p)) continue;
        sf_buf_printf(out, "    if (");
        error_test(out, f);
        sf_buf_printf(out, ") h%u = NULL; /* not made */\n", out_handle_vid(s, ci, i) + 1);
      }
    } else if (check) {
      sf_buf_printf(out, "    if (");
      error_test(out, f);
      sf_buf_printf(out, ") goto out; /* fails by the API's error convention */\n");
    }
    if (ec->facts && sf_func_compared(api, fi)) {
      uint32_t ov = vid + (f->ret.kind == SF_HANDLE);
      for (uint32_t i = 0; i < f->nparams; i++) {
        const sf_param *p = &f->params[i];
        if (!(p->flags & SF_P_OUT) || p->kind == SF_BUFFER || p->kind == SF_ARRAY) continue;
        sf_buf_printf(out, "    sf_fact_add(%u, \"%s\", \"out %s\", ", ci, f->name, p->name);
        if (p->kind == SF_HANDLE)
          sf_buf_printf(out, "sf_vi(h%u != NULL), 0);\n", ++ov);
        else if (p->kind == SF_STRING) /* not read: whether it was set */
          sf_buf_printf(out, "sf_vi(o%u != NULL), 0);\n", i);
        else
          sf_buf_printf(out, "%s(o%u), %g);\n", val_ctor(api, p), i, tolerance(api, fi));
      }
    }
    if (ec->facts) {
      for (uint32_t i = 0; i < f->nparams; i++)
        if (f->params[i].kind == SF_HANDLE && sf_param_is_input(&f->params[i]) &&
            a[i].bits != SF_NULL_REF)
          fact_observers(ec, (int)ci, (uint32_t)a[i].bits, out);
      for (uint32_t v = vid; v < vid + f->nproduced; v++)
        fact_observers(ec, (int)ci, v, out);
    }
    /* Invariants hold for what the call took or made. */
    for (uint32_t i = 0; api->ninvariants && i < f->nparams; i++)
      if (f->params[i].kind == SF_HANDLE && sf_param_is_input(&f->params[i]) &&
          a[i].bits != SF_NULL_REF && a[i].bits < life.n && life.alive[a[i].bits])
        c_invariants(ec, ci, (uint32_t)a[i].bits, out);
    for (uint32_t v = vid; api->ninvariants && v < vid + f->nproduced; v++)
      c_invariants(ec, ci, v, out);
    emit_coverage(ec, ci, &life, out);
    if (f->ret.kind == SF_STRING && f->release)
      sf_buf_printf(out, "    %s(r);\n", rname(ec, f->release));
    sf_buf_printf(out, "  }\n");
    for (uint32_t v = 0; v < n; v++)
      if (before[v] && !life.alive[v] && life.owner[v] != UINT32_MAX)
        sf_buf_printf(out, "  h%u = NULL; /* owned value no longer valid */\n", v + 1);
  }
  sf_buf_printf(out, "\nout: __attribute__((unused));\n");
  if (ec->observe) observe_all(ec, out);
  for (uint32_t v = 0; ec->facts && v < s->nvals; v++)
    fact_observers(ec, -1, v, out);
  for (uint32_t v = s->nvals; v-- > 0;) {
    const sf_handle_type *h = &api->handles[s->vals[v].htype];
    bool owned = v < life.n && life.owner[v] != UINT32_MAX;
    if (h->destructor < 0 || owned) continue;
    sf_buf_printf(out, "  if (h%u) %s(h%u);\n", v + 1, fname(ec, (uint32_t)h->destructor), v + 1);
    if (h->is_struct) sf_buf_printf(out, "  free(h%u);\n", v + 1);
  }
  if (nkept) sf_buf_printf(out, "  while (nkept) free(kept[--nkept]);\n");
  kept_files(s, true, out);
  for (uint32_t r = 0; r < nmocks; r++) { /* the scripts, once no mock can be called */
    sf_buf_printf(out, "  free((void *)");
    mock_name(out, "sf_script", &mocks[r]);
    sf_buf_printf(out, ".d); /* later calls: the defaults */\n  ");
    mock_name(out, "sf_script", &mocks[r]);
    sf_buf_printf(out, ".d = NULL;\n  ");
    mock_name(out, "sf_script", &mocks[r]);
    sf_buf_printf(out, ".len = 0;\n");
  }

  sf_buf_printf(out, "  return 0;\n}\n\n");
  sf_life_free(&life);
  return 0;
}

int sf_repro_write(const sf_seq *s, const char *origin, sf_buf *out) {
  const sf_api *api = s->api;
  bool diff = api->diff != NULL;
  bool facts = diff || s->observed;
  bool oracles = facts || sf_api_has_contracts(api);
  bool files = false;
  for (uint32_t fi = 0; fi < api->nfuncs; fi++) {
    oracles |=
        api->funcs[fi].nrequires > 0 || api->funcs[fi].nsets > 0; /* sf_unknown and friends */
    for (uint32_t i = 0; i < api->funcs[fi].nparams; i++)
      files |= (api->funcs[fi].params[i].flags & (SF_P_MEMFILE | SF_P_MEMFD)) != 0;
  }
  sf_buf_printf(out,
                "/* Reproducer generated by `seqfuzz repro` from %s (API %s).\n"
                " * Build it with the library and the sanitizers the fuzzer used, e.g.\n"
                " *   clang -g -fsanitize=address,undefined repro.c <library> -o repro\n"
                " * Arguments are copied to heap blocks of their exact size, as seqfuzz\n"
                " * passes them; the run stops where seqfuzz's would (a call failing by the\n"
                " * API's error convention, a NULL handle) and then destroys what it owns.%s */\n"
                "%s#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n"
                "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
                "#include <unistd.h>\n",
                origin ? origin : "an input", api->name,
                !oracles ? ""
                : diff   ? "\n * Both implementations run (differential mode), and must agree."
                         : "\n * The API's contracts are checked as the harness checks them.",
                files ? "#define _GNU_SOURCE /* memfd_create */\n" : "");
  for (uint32_t i = 0; i < api->nheaders; i++)
    sf_buf_printf(out, "#include \"%s\"\n", api->headers[i]);
  sf_buf_printf(out,
                "\n/* Reports as the fuzzer makes them: UBSan with a stack, an abort with one. */\n"
                "const char *__ubsan_default_options(void) { return \"print_stacktrace=1\"; }\n"
                "const char *__asan_default_options(void) { return \"handle_abort=1\"; }\n"
                "\n__attribute__((unused)) static void *copy_of(const void *p, size_t n) {\n"
                "  void *q = malloc(n);\n  if (n) memcpy(q, p, n);\n  return q;\n}\n");
  if (files)
    sf_buf_printf(
        out, "\n/* A private in-memory file with these bytes, at offset 0 (memfd, memfile). */\n"
             "#include <sys/mman.h>\n"
             "__attribute__((unused)) static int sf_memfd(const void *d, size_t n) {\n"
             "  int fd = memfd_create(\"seqfuzz\", MFD_CLOEXEC);\n"
             "  if (n && write(fd, d, n) != (ssize_t)n) abort();\n"
             "  lseek(fd, 0, SEEK_SET);\n  return fd;\n}\n"
             "__attribute__((unused)) static FILE *sf_memfile(const void *d, size_t n) {\n"
             "  return fdopen(sf_memfd(d, n), \"r+\");\n}\n");
  if (oracles) sf_buf_printf(out, "%s", oracle_runtime);
  for (uint32_t fi = 0; fi < api->nfuncs; fi++) {
    const sf_func *f = &api->funcs[fi];
    if (f->reads) sf_reads_define(f, out); /* as the build generates it (seqfuzz embed) */
  }
  uint32_t nmocks = 0;
  mock_ref *mocks = list_mocks(s, &nmocks);
  if (api->ncallbacks) {
    sf_buf_printf(out, "%s", mock_runtime);
    emit_mocks(s, mocks, nmocks, out);
  }
  sf_buf_printf(out, "\n/* The calls, in a frame of their own (sf_: no frame of the library, for\n"
                     " * signatures): what is left of it on the stack once it returns (a pointer\n"
                     " * to a leaked block) is wiped before the leak check. */\n");
  for (unsigned impl = 0; impl < (diff ? 2u : 1u); impl++) {
    emit_ctx ec = {.s = s,
                   .mocks = mocks,
                   .nmocks = nmocks,
                   .impl = impl,
                   .facts = facts,
                   .observe = s->observed && impl == 0};
    if (oracles) emit_wrappers(&ec, out);
    if (emit_calls(&ec, out)) {
      free(mocks);
      return -1;
    }
  }
  free(mocks);
  sf_buf_printf(out, "__attribute__((noinline)) static void sf_repro_wipe_stack(void) {\n"
                     "  volatile char junk[1 << 16];\n"
                     "  memset((char *)junk, 0, sizeof junk);\n}\n\n"
                     "int main(void) {\n  int rc = sf_repro_calls0();\n");
  if (diff)
    sf_buf_printf(out,
                  "  /* The second implementation (%s), with handles of its own. */\n"
                  "  sf_run = 1;\n  sf_repro_calls1();\n"
                  "  sf_compare(\"divergence\", \"%s\", \"%s\");\n",
                  api->diff->name, api->name, api->diff->name);
  if (s->observed)
    sf_buf_printf(out, "  /* Twice more: one sequence, one answer. */\n"
                       "  sf_facts_reset();\n  sf_run = 0;\n  sf_repro_calls0();\n"
                       "  sf_run = 1;\n  sf_repro_calls0();\n"
                       "  sf_compare(\"nondeterminism\", \"first run\", \"second run\");\n");
  if (facts) sf_buf_printf(out, "  sf_facts_reset();\n");
  sf_buf_printf(out, "  sf_repro_wipe_stack();\n  return rc;\n}\n");
  return 0;
}
