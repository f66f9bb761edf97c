/* Preconditions over arguments alone (seq.h: sf_call_requires_possible):
 * the part of a `requires` the sequence itself decides (lo <= hi, a != b),
 * evaluated without running anything. Observer calls are unknown here; the
 * executor checks the whole precondition at run time. */
#include <math.h>
#include <string.h>

#include "seq.h"

typedef struct sval {
  char t; /* 'i' integer, 'f' float, 's' bytes, 'h' handle value id, 'z' null, 0 unknown */
  int64_t i;
  double d;
  const uint8_t *s;
  uint32_t n;
  uint64_t h;
} sval;

typedef struct senv {
  const sf_seq *s; /* for the bytes of string and buffer arguments */
  const sf_func *f;
  const sf_arg *args;
} senv;

static sval arg_value(const senv *env, uint32_t j) {
  const sf_api *api = env->s->api;
  const sf_param *p = &env->f->params[j];
  const sf_arg *a = &env->args[j];
  sval v = {0};
  if (p->flags & SF_P_OUT) return v;
  if (p->flags & SF_P_LENGTH) {
    v.t = 'i';
    v.i = (int64_t)(env->args[p->len_of].len / sf_kind_size(env->f->params[p->len_of].elem));
    return v;
  }
  switch (p->kind) {
  case SF_HANDLE:
    v.t = a->bits == SF_NULL_REF ? 'z' : 'h';
    v.h = a->bits;
    return v;
  case SF_STRING:
    if (a->bits) return (sval){.t = 'z'};
    /* fall through */
  case SF_BUFFER:
  case SF_ARRAY:
    v.t = 's';
    v.s = sf_seq_bytes(env->s, a);
    v.n = a->len;
    return v;
  case SF_ENUM:
  case SF_FLAGS: {
    const sf_enum *e = &api->enums[p->type_index];
    v.t = 'i';
    if (p->kind == SF_ENUM) {
      v.i = a->bits < e->nconsts ? e->consts[a->bits].value : 0;
    } else {
      for (uint32_t k = 0; k < e->nconsts; k++)
        if (a->bits >> k & 1) v.i |= e->consts[k].value;
    }
    return v;
  }
  case SF_F32:
  case SF_F64:
    v.t = 'f';
    v.d = sf_float_value(p->kind, a->bits);
    return v;
  default:
    v.t = 'i';
    v.i = (int64_t)a->bits; /* sign-extended already; unsigned 64-bit values above
                             * INT64_MAX compare wrongly, which costs only a retry */
    return v;
  }
}

static double num(const sval *v) {
  return v->t == 'f' ? v->d : (double)v->i;
}

static int cmp_bytes(const sval *a, const sval *b) {
  int c = memcmp(a->s, b->s, a->n < b->n ? a->n : b->n);
  return c ? c : (a->n > b->n) - (a->n < b->n);
}

static sval eval(const senv *env, const sf_expr *e) {
  sval r = {0}, a = {0}, b = {0};
  /* Observers and states are known only at run time. */
  if (e->op == SF_E_CALL || e->op == SF_E_STATE) return r;
  if (e->nkids > 0 && e->op != SF_E_AND && e->op != SF_E_OR) a = eval(env, e->kids[0]);
  if (e->nkids > 1 && e->op != SF_E_AND && e->op != SF_E_OR) b = eval(env, e->kids[1]);
  switch (e->op) {
  case SF_E_INT:
    return (sval){.t = 'i', .i = e->value};
  case SF_E_FLOAT:
    return (sval){.t = 'f', .d = e->fvalue};
  case SF_E_STR:
    return (sval){.t = 's', .s = (const uint8_t *)e->str, .n = (uint32_t)strlen(e->str)};
  case SF_E_NULL:
    return (sval){.t = 'z'};
  case SF_E_PARAM:
    return arg_value(env, e->index);
  case SF_E_NOT:
    if (a.t == 'i' || a.t == 'f') return (sval){.t = 'i', .i = num(&a) == 0};
    return r;
  case SF_E_NEG:
    if (a.t == 'i') return (sval){.t = 'i', .i = (int64_t)(0 - (uint64_t)a.i)};
    if (a.t == 'f') return (sval){.t = 'f', .d = -a.d};
    return r;
  case SF_E_AND:
  case SF_E_OR: {
    /* Three-valued: a known operand can decide alone. */
    bool is_and = e->op == SF_E_AND;
    sval l = eval(env, e->kids[0]), rr = eval(env, e->kids[1]);
    bool lk = l.t == 'i' || l.t == 'f', rk = rr.t == 'i' || rr.t == 'f';
    bool lv = lk && num(&l) != 0, rv = rk && num(&rr) != 0;
    if (is_and && ((lk && !lv) || (rk && !rv))) return (sval){.t = 'i', .i = 0};
    if (!is_and && ((lk && lv) || (rk && rv))) return (sval){.t = 'i', .i = 1};
    if (lk && rk) return (sval){.t = 'i', .i = is_and ? (lv && rv) : (lv || rv)};
    return r;
  }
  case SF_E_EQ:
  case SF_E_NE:
  case SF_E_LT:
  case SF_E_LE:
  case SF_E_GT:
  case SF_E_GE: {
    int c;
    if ((a.t == 'i' || a.t == 'f') && (b.t == 'i' || b.t == 'f')) {
      if (a.t == 'i' && b.t == 'i')
        c = (a.i > b.i) - (a.i < b.i);
      else if (isnan(num(&a)) || isnan(num(&b)))
        return (sval){.t = 'i', .i = e->op == SF_E_NE};
      else
        c = (num(&a) > num(&b)) - (num(&a) < num(&b));
    } else if (a.t == 's' && b.t == 's') {
      c = cmp_bytes(&a, &b);
    } else if ((a.t == 'h' || a.t == 'z') && (b.t == 'h' || b.t == 'z') &&
               (e->op == SF_E_EQ || e->op == SF_E_NE)) {
      /* Two values may still be one object at run time (an alias, a
       * counted reference): only "the same value" is decided here. */
      bool same = a.t == b.t && (a.t == 'z' || a.h == b.h);
      if (!same && a.t == 'h' && b.t == 'h') return r;
      c = same ? 0 : 1;
    } else if ((a.t == 's' && b.t == 'z') || (a.t == 'z' && b.t == 's')) {
      c = 1;
    } else {
      return r;
    }
    bool t = e->op == SF_E_EQ   ? c == 0
             : e->op == SF_E_NE ? c != 0
             : e->op == SF_E_LT ? c < 0
             : e->op == SF_E_LE ? c <= 0
             : e->op == SF_E_GT ? c > 0
                                : c >= 0;
    return (sval){.t = 'i', .i = t};
  }
  case SF_E_ADD:
  case SF_E_SUB:
  case SF_E_MUL:
  case SF_E_DIV:
  case SF_E_MOD:
    if (a.t == 'i' && b.t == 'i') {
      uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i;
      if ((e->op == SF_E_DIV || e->op == SF_E_MOD) && (b.i == 0 || (a.i == INT64_MIN && b.i == -1)))
        return r;
      int64_t v = e->op == SF_E_ADD   ? (int64_t)(x + y)
                  : e->op == SF_E_SUB ? (int64_t)(x - y)
                  : e->op == SF_E_MUL ? (int64_t)(x * y)
                  : e->op == SF_E_DIV ? a.i / b.i
                                      : a.i % b.i;
      return (sval){.t = 'i', .i = v};
    }
    if ((a.t == 'i' || a.t == 'f') && (b.t == 'i' || b.t == 'f') && e->op != SF_E_MOD) {
      double x = num(&a), y = num(&b);
      return (sval){.t = 'f',
                    .d = e->op == SF_E_ADD   ? x + y
                         : e->op == SF_E_SUB ? x - y
                         : e->op == SF_E_MUL ? x * y
                                             : x / y};
    }
    return r;
  default: /* observer calls, ret, old: unknown before the call */
    return r;
  }
}

int32_t sf_call_requires_failing(const sf_seq *s, uint32_t fi, const sf_arg *args) {
  const sf_func *f = &s->api->funcs[fi];
  senv env = {s, f, args};
  for (uint32_t k = 0; k < f->nrequires; k++) {
    sval v = eval(&env, f->requires[k].expr);
    if ((v.t == 'i' || v.t == 'f') && num(&v) == 0) return (int32_t)k;
  }
  return -1;
}
