/* Oracles beyond crashes (docs/grammar.md §4a; contract in exec.h):
 *  - contracts: `ensures` after each call made, `invariant`s after each call
 *    that takes or makes a handle of their type;
 *  - generic contracts on a live value at the end of an observed run:
 *    observers are pure, parsers accept what their printers print;
 *  - differential mode: each run is repeated on a second implementation (the
 *    twin) and what both calls returned and observed is compared;
 *  - the repeat check: one sequence run twice observes the same.
 * A violation is reported the way a sanitizer reports a crash (an `ERROR:`
 * line naming kind, function and which rule, details, a SUMMARY) and aborts,
 * so the engines save the input and the simplifier keeps the signature. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/sf_clock.h"
#include "exec_internal.h"
#include "known.h"

/* A value of an expression or an observation. */
enum { V_NONE, V_INT, V_FLT, V_STR, V_PTR };
typedef struct oval {
  uint8_t t;
  int64_t i;
  double d;
  const char *s; /* V_STR: NULL for a NULL string */
  size_t n;
  void *p;      /* V_PTR */
  uint32_t vid; /* V_PTR: the value id, or UINT32_MAX (a literal null) */
} oval;

/* What a recorded run saw: per call its status, result and out numbers, and
 * the observers of the handles it touched; at the end every live value. */
enum { A_STATUS, A_RESULT, A_OUT, A_OBSERVER };
typedef struct fact {
  uint32_t call; /* UINT32_MAX: the end of the run */
  uint8_t aspect;
  uint32_t index; /* A_OUT: the parameter; A_OBSERVER: the function */
  uint32_t vid;   /* A_OBSERVER: the value observed */
  uint8_t t;      /* V_INT, V_FLT, V_STR (soff/slen in text), V_PTR (null or not in i) */
  int64_t i;
  double d;
  uint32_t soff, slen;
} fact;

typedef struct record {
  fact *facts;
  uint32_t n, cap;
  sf_buf text;
} record;

struct sf_oracle {
  sf_violation_fn on_violation;
  void *violation_ctx;
  sf_exec *twin;
  bool recording;       /* facts of the run go to rec */
  bool in_twin;         /* this exec runs as another's twin */
  bool checking;        /* inside a check: no nested checks */
  bool generic_off;     /* sf_exec_generic_checks(x, false) */
  double generic_spent; /* seconds in the generic checks (sf_exec_generic_seconds) */
  record rec;
  /* Values of the old() expressions of the call under way. */
  oval *old;
  uint32_t nold, oldcap;
  /* Strings an evaluation made (observer results, old() copies). */
  char **tmp;
  uint32_t ntmp, tmpcap;
  char **oldtmp;
  uint32_t noldtmp, oldtmpcap;
};

static struct sf_oracle *oracle_get(sf_exec *x) {
  if (!x->oracle) x->oracle = calloc(1, sizeof *x->oracle);
  return x->oracle;
}

void sf_oracle_init(sf_exec *x) {
  x->oracle_hooks = sf_api_has_contracts(x->api) && oracle_get(x);
}

void sf_exec_on_violation(sf_exec *x, sf_violation_fn fn, void *ctx) {
  struct sf_oracle *o = oracle_get(x);
  if (!o) return;
  o->on_violation = fn;
  o->violation_ctx = ctx;
}

void sf_exec_generic_checks(sf_exec *x, bool on) {
  struct sf_oracle *o = oracle_get(x);
  if (o) o->generic_off = !on;
}

double sf_exec_generic_seconds(sf_exec *x) {
  struct sf_oracle *o = oracle_get(x);
  return o ? o->generic_spent : 0;
}

void sf_exec_set_twin(sf_exec *x, sf_exec *twin) {
  struct sf_oracle *o = oracle_get(x);
  struct sf_oracle *t = twin ? oracle_get(twin) : NULL;
  if (!o || (twin && !t)) return;
  o->twin = twin;
  o->recording = twin != NULL;
  x->oracle_hooks = twin || sf_api_has_contracts(x->api);
  if (t) {
    t->in_twin = true;
    twin->oracle_hooks = true;
    t->on_violation = o->on_violation;
    t->violation_ctx = o->violation_ctx;
  }
}

static void free_strings(char **v, uint32_t *n) {
  for (uint32_t i = 0; i < *n; i++)
    free(v[i]);
  *n = 0;
}

void sf_oracle_free(sf_exec *x) {
  struct sf_oracle *o = x->oracle;
  if (!o) return;
  free(o->rec.facts);
  sf_buf_free(&o->rec.text);
  free(o->old);
  free_strings(o->tmp, &o->ntmp);
  free(o->tmp);
  free_strings(o->oldtmp, &o->noldtmp);
  free(o->oldtmp);
  free(o);
  x->oracle = NULL;
}

/* ---- reporting ----------------------------------------------------------- */

/* A finding whose signature (its report's SUMMARY) is a known bug's is
 * not reported: the run ends as a known bug's (harness/known.h). */
static bool known_finding(sf_exec *x, const sf_buf *r) {
  static const char tag[] = "SUMMARY: seqfuzz: ";
  if (!x->known || !r->data) return false;
  const char *sum = strstr((const char *)r->data, tag);
  if (!sum) return false;
  sum += sizeof tag - 1;
  const char *end = strchr(sum, '\n');
  char sig[1024];
  snprintf(sig, sizeof sig, "%.*s", (int)(end ? end - sum : (ptrdiff_t)strlen(sum)), sum);
  if (!sf_known_signature(x->known, sig)) return false;
  x->known_finding = true;
  return true;
}

static void report(sf_exec *x, sf_buf *r) {
  struct sf_oracle *o = x->oracle;
  if (known_finding(x, r)) {
    sf_buf_free(r);
    return;
  }
  if (o && o->on_violation) {
    o->on_violation(o->violation_ctx, (const char *)r->data);
    sf_buf_free(r);
    return;
  }
  fflush(stdout);
  if (write(2, r->data, r->len) < 0) { /* nothing more to do: we abort anyway */
  }
  abort();
}

/* Start a report: "==PID==ERROR: seqfuzz: KIND in FUNC [WHICH]: " */
static void report_head(sf_buf *r, const char *kind, const char *func, const char *which) {
  sf_buf_printf(r, "==%d==ERROR: seqfuzz: %s in %s [%s]: ", (int)getpid(), kind, func, which);
}

static void report_tail(sf_buf *r, const char *kind, const char *func, const char *which) {
  sf_buf_printf(r, "SUMMARY: seqfuzz: %s in %s [%s]\n", kind, func, which);
  sf_buf_putc(r, 0);
  r->len--;
}

static void print_val(sf_buf *out, const oval *v) {
  switch (v->t) {
  case V_INT:
    sf_buf_printf(out, "%lld", (long long)v->i);
    break;
  case V_FLT:
    sf_buf_printf(out, "%.17g", v->d);
    break;
  case V_STR:
    if (!v->s)
      sf_buf_printf(out, "NULL");
    else
      sf_seq_print_string(out, (const uint8_t *)v->s, v->n > 300 ? 300 : v->n);
    if (v->s && v->n > 300) sf_buf_printf(out, "... (%zu bytes)", v->n);
    break;
  case V_PTR:
    sf_buf_printf(out, "%s", v->p ? "a handle" : "NULL");
    break;
  default:
    sf_buf_printf(out, "unknown");
  }
}

/* ---- evaluating contracts ------------------------------------------------ */

typedef struct eval_env {
  sf_exec *x;
  const sf_seq *s;
  uint32_t ci;
  const sf_call_outcome *o; /* NULL before the call */
  const sf_func *f;         /* the call's function; NULL for an invariant */
  uint32_t var_vid;         /* an invariant's handle */
  const char *var;
  oval *old;     /* this contract's old() slots */
  sf_buf *notes; /* "kv_count(db) = 2; ..." for a report, or NULL */
} eval_env;

static const char *keep_string(struct sf_oracle *o, const char *s, size_t n, bool old) {
  char *c = malloc(n + 1);
  if (!c) return NULL;
  memcpy(c, s, n);
  c[n] = 0;
  char ***v = old ? &o->oldtmp : &o->tmp;
  uint32_t *cnt = old ? &o->noldtmp : &o->ntmp, *cap = old ? &o->oldtmpcap : &o->tmpcap;
  if (*cnt == *cap) {
    uint32_t nc = *cap ? *cap * 2 : 16;
    char **q = realloc(*v, nc * sizeof *q);
    if (!q) {
      free(c);
      return NULL;
    }
    *v = q;
    *cap = nc;
  }
  (*v)[(*cnt)++] = c;
  return c;
}

/* A value of kind k from raw bits (integers widened, floats as bits). */
static oval from_raw(const sf_api *api, const sf_param *p, uint64_t raw) {
  oval v = {.t = V_INT, .vid = UINT32_MAX};
  sf_kind k = p->kind;
  if (k == SF_STRING && (p->flags & SF_P_OUT)) { /* not read: whether it was set */
    v.i = raw != 0;
    return v;
  }
  if (k == SF_F32 || k == SF_F64) {
    v.t = V_FLT;
    v.d = sf_float_value(k, raw);
  } else if (k == SF_HANDLE) {
    v.t = V_PTR;
    v.p = (void *)(uintptr_t)raw;
  } else if (k == SF_STRING) {
    v.t = V_STR;
    v.s = (const char *)(uintptr_t)raw;
    v.n = v.s ? strlen(v.s) : 0;
  } else {
    if (k == SF_ENUM || k == SF_FLAGS) k = api->enums[p->type_index].base;
    v.i = (int64_t)sf_exec_widen(k, raw);
  }
  return v;
}

static oval param_value(const eval_env *env, uint32_t j) {
  sf_exec *x = env->x;
  const sf_func *f = env->f;
  const sf_param *p = &f->params[j];
  const sf_arg *a = sf_seq_args(env->s, env->ci);
  oval v = {.t = V_NONE, .vid = UINT32_MAX};
  if (p->flags & SF_P_OUT) {
    if (!env->o || !env->o->made || env->o->failed) return v;
    if (p->kind == SF_STRING) { /* not read: null, or unknown contents */
      if (!env->o->outs[j]) v.t = V_STR;
      return v;
    }
    if (p->kind == SF_BUFFER || p->kind == SF_ARRAY) return v; /* not recorded */
    if (p->kind != SF_HANDLE) return from_raw(x->api, p, env->o->outs[j]);
    /* The out handle's value id: after the result's, in parameter order. */
    uint32_t vid = env->s->calls[env->ci].val0 + (f->ret.kind == SF_HANDLE);
    for (uint32_t k = 0; k < j; k++)
      if (f->params[k].kind == SF_HANDLE && (f->params[k].flags & SF_P_OUT)) vid++;
    v.t = V_PTR;
    v.vid = vid;
    v.p = sf_exec_value(x, vid);
    return v;
  }
  if (p->flags & SF_P_LENGTH) {
    const sf_param *b = &f->params[p->len_of];
    v.t = V_INT;
    v.i = (int64_t)(a[p->len_of].len / sf_kind_size(b->elem));
    return v;
  }
  switch (p->kind) {
  case SF_HANDLE:
    v.t = V_PTR;
    if (a[j].bits != SF_NULL_REF) {
      v.vid = (uint32_t)a[j].bits;
      v.p = sf_exec_value(x, v.vid);
    }
    return v;
  case SF_STRING:
  case SF_BUFFER:
  case SF_ARRAY:
    v.t = V_STR;
    if (p->kind == SF_STRING && a[j].bits) return v; /* NULL */
    v.s = (const char *)sf_seq_bytes(env->s, &a[j]);
    v.n = a[j].len;
    return v;
  case SF_ENUM:
  case SF_FLAGS: {
    const sf_enum *e = &x->api->enums[p->type_index];
    v.t = V_INT;
    if (p->kind == SF_ENUM) {
      v.i = e->consts[a[j].bits].value;
    } else {
      uint64_t bits = 0;
      for (uint32_t i = 0; i < e->nconsts; i++)
        if (a[j].bits >> i & 1) bits |= (uint64_t)e->consts[i].value;
      v.i = (int64_t)sf_exec_widen(e->base, bits);
    }
    return v;
  }
  default:
    return from_raw(x->api, p, a[j].bits);
  }
}

static bool value_alive(const sf_exec *x, const oval *v) {
  return v->t == V_PTR && v->p && v->vid < x->life.n && x->life.alive[v->vid];
}

static bool truth(const oval *v, bool *known) {
  *known = v->t != V_NONE;
  switch (v->t) {
  case V_INT:
    return v->i != 0;
  case V_FLT:
    return v->d != 0;
  case V_STR:
    return v->s != NULL;
  case V_PTR:
    return v->p != NULL;
  default:
    return false;
  }
}

static oval eval(eval_env *env, const sf_expr *e);

/* Print names as written: parameters, `ret`, the invariant's variable. */
static bool report_leaf(void *ctx, const sf_expr *e, sf_buf *out) {
  const eval_env *env = ctx;
  if (e->op == SF_E_PARAM) {
    sf_buf_printf(out, "%s", env->var ? env->var : env->f->params[e->index].name);
    return true;
  }
  if (e->op == SF_E_INT) {
    sf_buf_printf(out, "%lld", (long long)e->value);
    return true;
  }
  return false;
}

static void note(eval_env *env, const sf_expr *e, const oval *v) {
  if (!env->notes) return;
  sf_expr_print(env->x->api, e, report_leaf, env, env->notes);
  sf_buf_printf(env->notes, " = ");
  print_val(env->notes, v);
  sf_buf_printf(env->notes, "; ");
}

static oval call_observer(eval_env *env, const sf_expr *e) {
  sf_exec *x = env->x;
  const sf_func *g = &x->api->funcs[e->index];
  oval none = {.t = V_NONE};
  uint64_t in[64];
  for (uint32_t k = 0; k < e->nkids; k++) {
    oval a = eval(env, e->kids[k]);
    if (a.t == V_NONE) return none;
    if (a.t == V_PTR && !value_alive(x, &a)) return none; /* NULL or dead: unknown */
    if (a.t == V_PTR)
      in[k] = (uint64_t)(uintptr_t)a.p;
    else if (a.t == V_STR)
      in[k] = (uint64_t)(uintptr_t)(a.s ? keep_string(x->oracle, a.s, a.n, false) : NULL);
    else if (a.t == V_FLT) {
      double d = a.d;
      float f32 = (float)d;
      uint32_t b32;
      memcpy(&b32, &f32, 4);
      in[k] = 0;
      if (g->params[k].kind == SF_F32)
        in[k] = b32;
      else
        memcpy(&in[k], &d, 8);
    } else
      in[k] = (uint64_t)a.i;
  }
  uint64_t raw = sf_exec_call_raw(x, e->index, in);
  oval v = from_raw(x->api, &g->ret, raw);
  if (v.t == V_STR && v.s) {
    const char *orig = v.s;
    v.s = keep_string(x->oracle, v.s, v.n, env->o == NULL);
    if (x->funcs[e->index].release) x->funcs[e->index].release((void *)orig);
  }
  note(env, e, &v);
  return v;
}

static bool num(const oval *v) {
  return v->t == V_INT || v->t == V_FLT;
}

static double as_double(const oval *v) {
  return v->t == V_FLT ? v->d : (double)v->i;
}

/* a OP b for comparisons; V_NONE when the two cannot be compared. */
static oval compare(sf_expr_op op, const oval *a, const oval *b) {
  oval r = {.t = V_INT};
  int c;
  if (num(a) && num(b)) {
    if (a->t == V_INT && b->t == V_INT)
      c = a->i < b->i ? -1 : a->i > b->i;
    else {
      double x = as_double(a), y = as_double(b);
      if (isnan(x) || isnan(y)) { /* as C: only != holds */
        r.i = op == SF_E_NE;
        return r;
      }
      c = x < y ? -1 : x > y;
    }
  } else if (a->t == V_STR && b->t == V_STR) {
    if (!a->s || !b->s)
      c = (a->s != NULL) - (b->s != NULL);
    else {
      size_t n = a->n < b->n ? a->n : b->n;
      c = memcmp(a->s, b->s, n);
      if (c == 0) c = a->n < b->n ? -1 : a->n > b->n;
    }
  } else if ((a->t == V_PTR || a->t == V_STR) && (b->t == V_PTR || b->t == V_STR)) {
    const void *x = a->t == V_PTR ? a->p : a->s, *y = b->t == V_PTR ? b->p : b->s;
    if (op != SF_E_EQ && op != SF_E_NE) return (oval){.t = V_NONE};
    c = x != y;
  } else {
    return (oval){.t = V_NONE};
  }
  switch (op) {
  case SF_E_EQ:
    r.i = c == 0;
    break;
  case SF_E_NE:
    r.i = c != 0;
    break;
  case SF_E_LT:
    r.i = c < 0;
    break;
  case SF_E_LE:
    r.i = c <= 0;
    break;
  case SF_E_GT:
    r.i = c > 0;
    break;
  default:
    r.i = c >= 0;
  }
  return r;
}

static oval arith(sf_expr_op op, const oval *a, const oval *b) {
  oval r = {.t = V_NONE};
  if (!num(a) || !num(b)) return r;
  if (a->t == V_INT && b->t == V_INT) {
    uint64_t x = (uint64_t)a->i, y = (uint64_t)b->i; /* wrapping, never UB */
    r.t = V_INT;
    switch (op) {
    case SF_E_ADD:
      r.i = (int64_t)(x + y);
      break;
    case SF_E_SUB:
      r.i = (int64_t)(x - y);
      break;
    case SF_E_MUL:
      r.i = (int64_t)(x * y);
      break;
    default:
      if (b->i == 0 || (a->i == INT64_MIN && b->i == -1)) return (oval){.t = V_NONE};
      r.i = op == SF_E_DIV ? a->i / b->i : a->i % b->i;
    }
    return r;
  }
  double x = as_double(a), y = as_double(b);
  r.t = V_FLT;
  switch (op) {
  case SF_E_ADD:
    r.d = x + y;
    break;
  case SF_E_SUB:
    r.d = x - y;
    break;
  case SF_E_MUL:
    r.d = x * y;
    break;
  case SF_E_DIV:
    r.d = x / y;
    break;
  default:
    r.d = fmod(x, y);
  }
  return r;
}

static oval eval(eval_env *env, const sf_expr *e) {
  oval v = {.t = V_NONE, .vid = UINT32_MAX};
  switch (e->op) {
  case SF_E_INT:
    v.t = V_INT;
    v.i = e->value;
    return v;
  case SF_E_FLOAT:
    v.t = V_FLT;
    v.d = e->fvalue;
    return v;
  case SF_E_STR:
    v.t = V_STR;
    v.s = e->str;
    v.n = strlen(e->str);
    return v;
  case SF_E_NULL:
    v.t = V_PTR;
    return v;
  case SF_E_RET: {
    const sf_call_outcome *o = env->o;
    if (!o || !o->made) return v;
    v = from_raw(env->x->api, &env->f->ret, o->ret);
    if (v.t == V_STR) v.s = o->str, v.n = o->str ? strlen(o->str) : 0;
    if (v.t == V_PTR) v.vid = o->failed ? UINT32_MAX : env->s->calls[env->ci].val0;
    return v;
  }
  case SF_E_PARAM:
    if (env->var) {
      v.t = V_PTR;
      v.vid = env->var_vid;
      v.p = sf_exec_value(env->x, env->var_vid);
      return v;
    }
    return param_value(env, e->index);
  case SF_E_OLD:
    v = env->old[e->index];
    note(env, e, &v);
    return v;
  case SF_E_CALL:
    return call_observer(env, e);
  case SF_E_STATE: {
    oval h = eval(env, e->kids[0]);
    if (!value_alive(env->x, &h)) return v; /* NULL or dead: unknown */
    v.t = V_INT;
    v.i = env->x->states[(size_t)h.vid * env->x->api->nstates + e->index];
    note(env, e, &v);
    return v;
  }
  case SF_E_NOT:
  case SF_E_NEG: {
    oval a = eval(env, e->kids[0]);
    bool known;
    if (e->op == SF_E_NOT) {
      bool t = truth(&a, &known);
      if (!known) return v;
      v.t = V_INT;
      v.i = !t;
      return v;
    }
    if (a.t == V_INT)
      a.i = (int64_t)(0 - (uint64_t)a.i);
    else if (a.t == V_FLT)
      a.d = -a.d;
    else
      return v;
    return a;
  }
  case SF_E_AND:
  case SF_E_OR: {
    bool known, known2;
    oval a = eval(env, e->kids[0]);
    bool ta = truth(&a, &known);
    if (known && ta == (e->op == SF_E_OR)) { /* short circuit */
      v.t = V_INT;
      v.i = ta;
      return v;
    }
    oval b = eval(env, e->kids[1]);
    bool tb = truth(&b, &known2);
    if (!known2 || (!known && tb != (e->op == SF_E_OR))) return v;
    v.t = V_INT;
    v.i = tb;
    return v;
  }
  default: {
    oval a = eval(env, e->kids[0]), b = eval(env, e->kids[1]);
    if (e->op >= SF_E_EQ && e->op <= SF_E_GE) return compare(e->op, &a, &b);
    return arith(e->op, &a, &b);
  }
  }
}

/* Evaluate the old() expressions of e into env->old, before the call. */
static void capture_old(eval_env *env, const sf_expr *e) {
  if (e->op == SF_E_OLD) {
    oval v = eval(env, e->kids[0]);
    if (v.t == V_STR && v.s) v.s = keep_string(env->x->oracle, v.s, v.n, true);
    if (v.t == V_STR && !v.s) v.t = V_NONE; /* out of memory: unknown */
    env->old[e->index] = v;
    return;
  }
  for (uint32_t k = 0; k < e->nkids; k++)
    capture_old(env, e->kids[k]);
}

void sf_oracle_before_call(sf_exec *x, const sf_seq *s, uint32_t ci) {
  struct sf_oracle *o = x->oracle;
  const sf_func *f = sf_seq_func(s, ci);
  free_strings(o->oldtmp, &o->noldtmp);
  o->nold = 0;
  uint32_t need = 0;
  for (uint32_t k = 0; k < f->nensures; k++)
    need += f->ensures[k].nold;
  if (!need) return;
  if (need > o->oldcap) {
    oval *p = realloc(o->old, need * sizeof *p);
    if (!p) return;
    o->old = p;
    o->oldcap = need;
  }
  o->nold = need;
  uint32_t base = 0;
  for (uint32_t k = 0; k < f->nensures; k++) {
    eval_env env = {x, s, ci, NULL, f, 0, NULL, o->old + base, NULL};
    capture_old(&env, f->ensures[k].expr);
    base += f->ensures[k].nold;
  }
  free_strings(o->tmp, &o->ntmp);
}

/* Check one contract; report it when it is known to be false. */
static void check_contract(eval_env *env, const sf_contract *c, const char *kind, const char *func,
                           const char *which) {
  struct sf_oracle *o = env->x->oracle;
  bool known;
  oval r = eval(env, c->expr);
  bool holds = truth(&r, &known);
  free_strings(o->tmp, &o->ntmp);
  if (!known || holds) return;
  /* Again, noting the values, for the report. */
  sf_buf notes = {0}, rep = {0};
  env->notes = &notes;
  eval(env, c->expr);
  env->notes = NULL;
  free_strings(o->tmp, &o->ntmp);
  report_head(&rep, kind, func, which);
  sf_buf_printf(&rep, "%s\n    after [%u] ", c->text, env->ci + 1);
  sf_seq_print_call(env->s, env->ci, &rep);
  if (env->o && env->o->made && env->f && env->f->ret.kind != SF_VOID) {
    oval rv = eval(&(eval_env){env->x, env->s, env->ci, env->o, env->f, 0, NULL, NULL, NULL},
                   &(sf_expr){.op = SF_E_RET});
    sf_buf_printf(&rep, " -> ");
    print_val(&rep, &rv);
  }
  if (notes.len) sf_buf_printf(&rep, "\n    %.*s", (int)notes.len - 2, (const char *)notes.data);
  if (o->in_twin && env->x->api->diff)
    sf_buf_printf(&rep, "\n    in the second implementation (%s)", env->x->api->diff->name);
  sf_buf_printf(&rep, "\n");
  report_tail(&rep, kind, func, which);
  sf_buf_free(&notes);
  report(env->x, &rep);
}

void sf_oracle_apply_sets(sf_exec *x, const sf_seq *s, const sf_call_outcome *o) {
  struct sf_oracle *orc = oracle_get(x);
  const sf_func *f = sf_seq_func(s, o->call);
  const sf_arg *a = sf_seq_args(s, o->call);
  int64_t value[64];
  if (!orc) return;
  /* Every value first, from the states before the call; then the stores. */
  for (uint32_t k = 0; k < f->nsets && k < 64; k++) {
    eval_env env = {x, s, o->call, o, f, 0, NULL, NULL, NULL};
    oval r = eval(&env, f->sets[k].value.expr);
    bool known;
    bool t = truth(&r, &known);
    value[k] = r.t == V_INT ? r.i : known ? t : 0; /* unknown: 0 */
  }
  for (uint32_t k = 0; k < f->nsets && k < 64; k++) {
    uint64_t vid = a[f->sets[k].param].bits;
    if (f->params[f->sets[k].param].flags & SF_P_OUT) continue; /* not made yet */
    if (vid != SF_NULL_REF && vid < x->life.n)
      x->states[vid * x->api->nstates + f->sets[k].state] = value[k];
  }
  free_strings(orc->tmp, &orc->ntmp);
}

bool sf_oracle_requires_hold(sf_exec *x, const sf_seq *s, uint32_t ci) {
  struct sf_oracle *o = oracle_get(x);
  if (!o) return false;
  const sf_func *f = sf_seq_func(s, ci);
  bool holds = true;
  for (uint32_t k = 0; k < f->nrequires && holds; k++) {
    eval_env env = {x, s, ci, NULL, f, 0, NULL, NULL, NULL};
    bool known;
    oval r = eval(&env, f->requires[k].expr);
    holds = truth(&r, &known) && known;
  }
  free_strings(o->tmp, &o->ntmp);
  return holds;
}

static void check_invariants(sf_exec *x, const sf_seq *s, uint32_t ci, uint32_t vid,
                             const char *func) {
  if (vid >= x->life.n || !x->life.alive[vid] || !x->ptrs[vid]) return;
  for (uint32_t i = 0; i < x->api->ninvariants; i++) {
    const sf_invariant *inv = &x->api->invariants[i];
    if (inv->handle != x->life.htype[vid]) continue;
    char which[96];
    snprintf(which, sizeof which, "invariant %u of %s", i + 1, x->api->handles[inv->handle].name);
    eval_env env = {x, s, ci, NULL, NULL, vid, inv->var, NULL, NULL};
    check_contract(&env, &inv->contract, "invariant-violation", func, which);
  }
}

static void check_contracts(sf_exec *x, const sf_seq *s, const sf_call_outcome *oc) {
  const sf_func *f = sf_seq_func(s, oc->call);
  struct sf_oracle *o = x->oracle;
  uint32_t base = 0;
  for (uint32_t k = 0; k < f->nensures; k++) {
    char which[32];
    snprintf(which, sizeof which, "ensures %u", k + 1);
    eval_env env = {x, s, oc->call, oc, f, 0, NULL, o->nold ? o->old + base : NULL, NULL};
    check_contract(&env, &f->ensures[k], "contract-violation", f->name, which);
    base += f->ensures[k].nold;
  }
  free_strings(o->oldtmp, &o->noldtmp);
  o->nold = 0;
  if (!x->api->ninvariants || oc->failed) return;
  const sf_arg *a = sf_seq_args(s, oc->call);
  for (uint32_t j = 0; j < f->nparams; j++)
    if (f->params[j].kind == SF_HANDLE && !(f->params[j].flags & SF_P_OUT) &&
        a[j].bits != SF_NULL_REF)
      check_invariants(x, s, oc->call, (uint32_t)a[j].bits, f->name);
  uint32_t v0 = s->calls[oc->call].val0;
  for (uint32_t v = v0; v < v0 + f->nproduced; v++)
    check_invariants(x, s, oc->call, v, f->name);
}

/* ---- recording runs: differential and repeat checks ---------------------- */

static void add_fact(record *rec, uint32_t call, uint8_t aspect, uint32_t index, uint32_t vid,
                     const oval *v) {
  if (rec->n == rec->cap) {
    uint32_t c = rec->cap ? rec->cap * 2 : 64;
    fact *p = realloc(rec->facts, c * sizeof *p);
    if (!p) return;
    rec->facts = p;
    rec->cap = c;
  }
  fact *f = &rec->facts[rec->n++];
  memset(f, 0, sizeof *f);
  f->call = call;
  f->aspect = aspect;
  f->index = index;
  f->vid = vid;
  f->t = v->t;
  f->i = v->t == V_PTR ? v->p != NULL : v->i;
  f->d = v->d;
  if (v->t == V_STR) {
    f->i = v->s != NULL;
    f->soff = (uint32_t)rec->text.len;
    f->slen = (uint32_t)(v->n > (1u << 20) ? 1u << 20 : v->n);
    if (v->s) sf_buf_append(&rec->text, v->s, f->slen);
  }
}

/* The value of every state observer of vid. */
static void record_observers(sf_exec *x, record *rec, uint32_t call, uint32_t vid) {
  if (vid >= x->life.n || !x->life.alive[vid] || !x->ptrs[vid]) return;
  uint32_t h = x->life.htype[vid];
  uint64_t arg = (uint64_t)(uintptr_t)x->ptrs[vid];
  for (uint32_t k = 0; k < x->nobservers[h]; k++) {
    uint32_t fi = x->observers[h][k];
    if (!sf_func_compared(x->api, fi)) continue;
    oval v = from_raw(x->api, &x->api->funcs[fi].ret, sf_exec_call_raw(x, fi, &arg));
    add_fact(rec, call, A_OBSERVER, fi, vid, &v);
    if (v.t == V_STR && v.s && x->funcs[fi].release) x->funcs[fi].release((void *)v.s);
  }
}

static void record_call(sf_exec *x, const sf_seq *s, const sf_call_outcome *oc) {
  record *rec = &x->oracle->rec;
  const sf_func *f = sf_seq_func(s, oc->call);
  uint32_t fi = s->calls[oc->call].func;
  oval st = {.t = V_INT, .i = !oc->made ? 2 : oc->failed ? 1 : 0};
  add_fact(rec, oc->call, A_STATUS, 0, 0, &st);
  if (!oc->made || !sf_func_compared(x->api, fi)) return;
  if (f->ret.kind != SF_VOID) {
    oval v = from_raw(x->api, &f->ret, oc->ret);
    if (v.t == V_STR) v.s = oc->str, v.n = oc->str ? strlen(oc->str) : 0;
    if (v.t == V_STR && f->ret.len_param >= 0 && oc->str) v.n = (size_t)oc->outs[f->ret.len_param];
    add_fact(rec, oc->call, A_RESULT, 0, 0, &v);
  }
  if (oc->failed) return;
  for (uint32_t j = 0; j < f->nparams; j++)
    if (f->params[j].flags & SF_P_OUT) {
      oval v = from_raw(x->api, &f->params[j], oc->outs[j]);
      add_fact(rec, oc->call, A_OUT, j, 0, &v);
    }
  const sf_arg *a = sf_seq_args(s, oc->call);
  for (uint32_t j = 0; j < f->nparams; j++)
    if (f->params[j].kind == SF_HANDLE && !(f->params[j].flags & SF_P_OUT) &&
        a[j].bits != SF_NULL_REF)
      record_observers(x, rec, oc->call, (uint32_t)a[j].bits);
  uint32_t v0 = s->calls[oc->call].val0;
  for (uint32_t v = v0; v < v0 + f->nproduced; v++)
    record_observers(x, rec, oc->call, v);
}

void sf_oracle_after_call(sf_exec *x, const sf_seq *s, const sf_call_outcome *oc) {
  struct sf_oracle *o = x->oracle;
  if (o->recording) record_call(x, s, oc);
  if (oc->made && !o->checking) {
    o->checking = true;
    check_contracts(x, s, oc);
    o->checking = false;
  }
}

void sf_oracle_before_cleanup(sf_exec *x, const sf_seq *s) {
  struct sf_oracle *o = x->oracle;
  if (!o->recording) return;
  for (uint32_t v = 0; v < s->nvals && v < x->life.n; v++)
    record_observers(x, &o->rec, UINT32_MAX, v);
}

static bool fact_equal(const record *ra, const fact *a, const record *rb, const fact *b) {
  if (a->call != b->call || a->aspect != b->aspect || a->index != b->index || a->vid != b->vid ||
      a->t != b->t || a->i != b->i)
    return false;
  if (a->t == V_FLT) {
    return a->d == b->d || (isnan(a->d) && isnan(b->d));
  }
  if (a->t == V_STR && a->i)
    return a->slen == b->slen &&
           (a->slen == 0 || /* empty strings may have no text buffer at all */
            memcmp(ra->text.data + a->soff, rb->text.data + b->soff, a->slen) == 0);
  return true;
}

static void print_fact(sf_buf *out, const record *r, const fact *f) {
  if (!f) {
    sf_buf_printf(out, "(nothing: the run ended)");
    return;
  }
  oval v = {.t = f->t, .i = f->i, .d = f->d};
  if (f->t == V_STR) {
    v.s = !f->i ? NULL : f->slen ? (const char *)r->text.data + f->soff : "";
    v.n = f->slen;
  }
  if (f->t == V_PTR) v.p = f->i ? (void *)1 : NULL;
  if (f->aspect == A_STATUS)
    sf_buf_printf(out, "%s",
                  f->i == 0   ? "made"
                  : f->i == 1 ? "failed (error convention)"
                              : "not made (a NULL handle)");
  else
    print_val(out, &v);
}

/* Compare two recorded runs; report the first difference. */
static void compare_records(sf_exec *x, const sf_seq *s, const record *ra, const record *rb,
                            const char *kind, const char *name_a, const char *name_b) {
  const sf_api *api = x->api;
  uint32_t n = ra->n < rb->n ? ra->n : rb->n, i = 0;
  while (i < n) {
    const fact *a = &ra->facts[i], *b = &rb->facts[i];
    bool same = fact_equal(ra, a, rb, b);
    if (!same && a->t == V_FLT && b->t == V_FLT && api->diff && a->call == b->call &&
        a->aspect == b->aspect && a->index == b->index) {
      uint32_t fi = a->aspect == A_OBSERVER ? a->index
                    : a->call < s->ncalls   ? s->calls[a->call].func
                                            : 0;
      double tol = api->diff->tolerance[fi];
      /* relative to the larger, absolute below 1 (0 against 1e-300) */
      same = fabs(a->d - b->d) <= tol * fmax(1, fmax(fabs(a->d), fabs(b->d)));
    }
    if (!same) break;
    i++;
  }
  if (i == n && ra->n == rb->n) return;
  const fact *a = i < ra->n ? &ra->facts[i] : NULL, *b = i < rb->n ? &rb->facts[i] : NULL;
  const fact *f = a ? a : b;
  char which[160];
  const char *func;
  if (f->call == UINT32_MAX || f->aspect == A_OBSERVER)
    func = api->funcs[f->index].name;
  else
    func = api->funcs[s->calls[f->call].func].name;
  if (f->aspect == A_STATUS)
    snprintf(which, sizeof which, "status");
  else if (f->aspect == A_RESULT)
    snprintf(which, sizeof which, "result");
  else if (f->aspect == A_OUT)
    snprintf(which, sizeof which, "out %s",
             api->funcs[s->calls[f->call].func].params[f->index].name);
  else
    snprintf(which, sizeof which, "observer");
  sf_buf rep = {0};
  report_head(&rep, kind, func, which);
  if (f->call == UINT32_MAX) {
    sf_buf_printf(&rep, "after the last call, %s(h%u) differs\n", func, f->vid + 1);
  } else {
    if (f->aspect == A_OBSERVER)
      sf_buf_printf(&rep, "%s(h%u) differs after [%u] ", func, f->vid + 1, f->call + 1);
    else
      sf_buf_printf(&rep, "the %s of [%u] differs: ", which, f->call + 1);
    sf_seq_print_call(s, f->call, &rep);
    sf_buf_printf(&rep, "\n");
  }
  sf_buf_printf(&rep, "    %s: ", name_a);
  print_fact(&rep, ra, a);
  sf_buf_printf(&rep, "\n    %s: ", name_b);
  print_fact(&rep, rb, b);
  sf_buf_printf(&rep, "\n");
  report_tail(&rep, kind, func, which);
  report(x, &rep);
}

static void record_reset(record *r) {
  r->n = 0;
  sf_buf_reset(&r->text);
}

void sf_oracle_after_run(sf_exec *x, const sf_seq *s) {
  struct sf_oracle *o = x->oracle;
  if (!o->twin || o->in_twin || o->checking) return;
  struct sf_oracle *t = o->twin->oracle;
  /* The same known bugs: the second implementation stops where the first
   * did, and makes no call that completes one. */
  o->twin->known = x->known;
  record_reset(&t->rec);
  t->recording = true;
  sf_run_result r;
  sf_exec_run(o->twin, s, NULL, &r);
  t->recording = false;
  char second[160];
  snprintf(second, sizeof second, "%s", x->api->diff ? x->api->diff->name : "second");
  compare_records(x, s, &o->rec, &t->rec, "divergence", x->api->name, second);
  record_reset(&o->rec);
  record_reset(&t->rec);
}

void sf_exec_check_repeat(sf_exec *x, const sf_seq *s) {
  struct sf_oracle *o = oracle_get(x);
  if (!o || o->checking || o->generic_off) return;
  double began = sf_seconds_now();
  sf_exec *twin = o->twin;
  bool was = o->recording;
  o->twin = NULL; /* the differential check is not repeated */
  record first = {0};
  sf_run_result r;
  bool hooks = x->oracle_hooks;
  x->oracle_hooks = true;
  o->recording = true;
  record_reset(&o->rec);
  sf_exec_run(x, s, NULL, &r);
  first = o->rec;
  o->rec = (record){0};
  sf_exec_run(x, s, NULL, &r);
  o->recording = was;
  o->twin = twin;
  x->oracle_hooks = hooks;
  compare_records(x, s, &first, &o->rec, "nondeterminism", "first run", "second run");
  record_reset(&o->rec);
  free(first.facts);
  sf_buf_free(&first.text);
  o->generic_spent += sf_seconds_now() - began;
}

/* ---- generic contracts on one live value --------------------------------- */

typedef struct obs_val {
  oval v;
  char *copy; /* V_STR contents */
} obs_val;

static obs_val observe_once(sf_exec *x, uint32_t fi, void *h) {
  uint64_t arg = (uint64_t)(uintptr_t)h;
  obs_val r = {from_raw(x->api, &x->api->funcs[fi].ret, sf_exec_call_raw(x, fi, &arg)), NULL};
  if (r.v.t == V_STR && r.v.s) {
    r.copy = malloc(r.v.n + 1);
    if (r.copy) memcpy(r.copy, r.v.s, r.v.n + 1);
    if (x->funcs[fi].release) x->funcs[fi].release((void *)r.v.s);
    r.v.s = r.copy;
    if (!r.copy) r.v.t = V_NONE;
  }
  return r;
}

static bool obs_same(const obs_val *a, const obs_val *b) {
  if (a->v.t == V_NONE || b->v.t == V_NONE) return true;
  if (a->v.t == V_FLT && isnan(a->v.d) && isnan(b->v.d)) return true;
  oval r = compare(SF_E_EQ, &a->v, &b->v);
  return r.t == V_INT && r.i;
}

static void impure(sf_exec *x, uint32_t vid, uint32_t culprit, uint32_t victim, const obs_val *a,
                   const obs_val *b) {
  const sf_api *api = x->api;
  char which[160];
  if (culprit == victim)
    snprintf(which, sizeof which, "not deterministic");
  else
    snprintf(which, sizeof which, "changes %s", api->funcs[victim].name);
  sf_buf rep = {0};
  report_head(&rep, "impure-observer", api->funcs[culprit].name, which);
  if (culprit == victim)
    sf_buf_printf(&rep, "two calls of %s(h%u) in a row answer differently\n",
                  api->funcs[culprit].name, vid + 1);
  else
    sf_buf_printf(&rep, "%s(h%u) answers differently after %s(h%u)\n", api->funcs[victim].name,
                  vid + 1, api->funcs[culprit].name, vid + 1);
  sf_buf_printf(&rep, "    before: ");
  print_val(&rep, &a->v);
  sf_buf_printf(&rep, "\n    after: ");
  print_val(&rep, &b->v);
  sf_buf_printf(&rep, "\n");
  report_tail(&rep, "impure-observer", api->funcs[culprit].name, which);
  report(x, &rep);
}

/* Observers answer the same twice, and none changes another's answer.
 * First each is called once as it comes and every one before it again: a
 * side effect that happens once (a lazy flush) shows right after its
 * culprit's first call. Then each alone twice, and each around each other
 * one: an effect every call has. */
static void check_observers_pure(sf_exec *x, uint32_t vid) {
  uint32_t h = x->life.htype[vid], n = x->nobservers[h];
  void *p = x->ptrs[vid];
  if (n == 0 || n > 32) return;
  const uint32_t *obs = x->observers[h];
  obs_val last[32], a, b;
  bool bad = false;
  uint32_t set = 0;
  for (uint32_t j = 0; j < n && !bad; j++) {
    last[j] = observe_once(x, obs[j], p);
    set = j + 1;
    for (uint32_t i = 0; i < j && !bad; i++) {
      obs_val v = observe_once(x, obs[i], p);
      bad = sf_func_compared(x->api, obs[i]) && !obs_same(&last[i], &v);
      if (bad) impure(x, vid, obs[j], obs[i], &last[i], &v);
      free(last[i].copy);
      last[i] = v;
    }
  }
  for (uint32_t k = 0; k < set; k++)
    free(last[k].copy);
  /* Each o_v answers, then again after itself and after each other o_c:
   * every pair of answers compared brackets exactly one call, its culprit. */
  for (uint32_t v = 0; v < n && !bad; v++) {
    a = observe_once(x, obs[v], p);
    for (uint32_t k = 0; k < n && !bad; k++) {
      uint32_t culprit = obs[(v + k) % n]; /* k == 0: o_v itself */
      if (k) free(observe_once(x, culprit, p).copy);
      b = observe_once(x, obs[v], p);
      bad = sf_func_compared(x->api, obs[v]) && !obs_same(&a, &b);
      if (bad) impure(x, vid, culprit, obs[v], &a, &b);
      free(a.copy);
      a = b;
    }
    free(a.copy);
  }
}

static void round_trip_failure(sf_exec *x, uint32_t vid, uint32_t func, const char *which,
                               const char *text, size_t n, const char *text2, size_t n2) {
  const sf_api *api = x->api;
  sf_buf rep = {0};
  report_head(&rep, "round-trip-failure", api->funcs[func].name, which);
  sf_buf_printf(&rep, "on h%u\n    printed: ", vid + 1);
  oval v = {.t = V_STR, .s = text, .n = n};
  print_val(&rep, &v);
  if (text2) {
    sf_buf_printf(&rep, "\n    printed after parsing it: ");
    oval w = {.t = V_STR, .s = text2, .n = n2};
    print_val(&rep, &w);
  }
  sf_buf_printf(&rep, "\n");
  report_tail(&rep, "round-trip-failure", api->funcs[func].name, which);
  report(x, &rep);
}

/* Did a call of f fail (its error convention; a NULL handle without one)? */
static bool fails(const sf_api *api, const sf_func *f, uint64_t ret) {
  if (f->err_cmp == SF_CMP_NONE) return f->ret.kind == SF_HANDLE && ret == 0;
  return sf_exec_error_matches(api, f, ret);
}

/* print(parse(print(h))) == print(h), and parse accepts print's text. */
static void check_round_trips(sf_exec *x, uint32_t vid) {
  const sf_api *api = x->api;
  uint32_t h = x->life.htype[vid];
  int32_t dtor = api->handles[h].destructor;
  for (uint32_t qi = 0; qi < api->nfuncs; qi++) {
    if (sf_func_round_trip(api, qi) != (int32_t)h) continue;
    const sf_func *q = &api->funcs[qi];
    const sf_func *pf = &api->funcs[q->inverse_of];
    uint64_t arg = (uint64_t)(uintptr_t)x->ptrs[vid];
    uint64_t raw = sf_exec_call_raw(x, (uint32_t)q->inverse_of, &arg);
    const char *s1 = (const char *)(uintptr_t)raw;
    if (!s1 || fails(api, pf, raw)) continue; /* nothing printed */
    size_t n1 = strlen(s1);
    char *c1 = malloc(n1 + 1);
    if (c1) memcpy(c1, s1, n1 + 1);
    void (*rel)(void *) = x->funcs[q->inverse_of].release;
    if (rel) rel((void *)s1);
    if (!c1) continue;
    uint64_t in = (uint64_t)(uintptr_t)c1;
    uint64_t made = sf_exec_call_raw(x, qi, &in);
    if (!made || fails(api, q, made)) {
      round_trip_failure(x, vid, qi, "rejects its printer's output", c1, n1, NULL, 0);
      free(c1);
      continue;
    }
    uint64_t arg2 = made;
    uint64_t raw2 = sf_exec_call_raw(x, (uint32_t)q->inverse_of, &arg2);
    const char *s2 = (const char *)(uintptr_t)raw2;
    if (s2 && !fails(api, pf, raw2) && (strlen(s2) != n1 || memcmp(s2, c1, n1) != 0)) {
      size_t n2 = strlen(s2);
      char *c2 = malloc(n2 + 1);
      if (c2) memcpy(c2, s2, n2 + 1);
      if (rel) rel((void *)s2);
      sf_exec_call_raw(x, (uint32_t)dtor, &arg2);
      if (api->handles[h].is_struct) free((void *)(uintptr_t)arg2); /* its storage */
      if (c2)
        round_trip_failure(x, vid, (uint32_t)q->inverse_of, "prints differently", c1, n1, c2, n2);
      free(c2);
      free(c1);
      continue;
    }
    if (s2 && rel) rel((void *)s2);
    sf_exec_call_raw(x, (uint32_t)dtor, &arg2);
    if (api->handles[h].is_struct) free((void *)(uintptr_t)arg2); /* its storage */
    free(c1);
  }
}

void sf_exec_check_value(sf_exec *x, uint32_t vid) {
  if (vid >= x->life.n || !x->life.alive[vid] || !x->ptrs[vid]) return;
  struct sf_oracle *o = oracle_get(x);
  if (!o || o->checking || o->generic_off) return;
  double began = sf_seconds_now();
  o->checking = true;
  check_observers_pure(x, vid);
  check_round_trips(x, vid);
  o->checking = false;
  o->generic_spent += sf_seconds_now() - began;
}
