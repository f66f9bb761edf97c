/* smt.c: a query as Z3 bit-vectors. Each variable is a bit-vector of its own
 * size, extended to 64 bits the way the target sees it; operands are the
 * fitted functions computed mod 2^64 and cut to the comparison's width; the
 * goal and the kept path comparisons are bit-vector predicates; the
 * grammar's ranges and excluded values constrain the variables. */
#include <stdlib.h>
#include <string.h>
#include <z3.h>

#include "internal.h"

struct sf_smt {
  Z3_context ctx;
  uint32_t queries; /* since the context was made: ASTs live as long as it */
};

static void on_error(Z3_context c, Z3_error_code e) {
  (void)c;
  (void)e; /* reported through the result: Z3_solver_check gives UNDEF */
}

static int reset_context(sf_smt *z) {
  if (z->ctx) Z3_del_context(z->ctx);
  Z3_config cfg = Z3_mk_config();
  if (!cfg) return -1;
  z->ctx = Z3_mk_context(cfg);
  Z3_del_config(cfg);
  if (!z->ctx) return -1;
  Z3_set_error_handler(z->ctx, on_error);
  z->queries = 0;
  return 0;
}

sf_smt *sf_smt_new(void) {
  sf_smt *z = calloc(1, sizeof *z);
  if (!z) return NULL;
  if (reset_context(z)) {
    free(z);
    return NULL;
  }
  return z;
}

void sf_smt_free(sf_smt *z) {
  if (!z) return;
  if (z->ctx) Z3_del_context(z->ctx);
  free(z);
}

static Z3_ast bv64(Z3_context c, uint64_t v) {
  return Z3_mk_unsigned_int64(c, v, Z3_mk_bv_sort(c, 64));
}

/* Variable i at w bytes, as the target would have it: truncated, or
 * extended by its signedness. */
static Z3_ast var_at(Z3_context c, Z3_ast *vars, const sf_var *v, uint32_t i, unsigned w) {
  unsigned bits = 8u * v[i].size, want = 8u * w;
  if (bits == want) return vars[i];
  if (bits > want) return Z3_mk_extract(c, want - 1, 0, vars[i]);
  return v[i].is_signed ? Z3_mk_sign_ext(c, want - bits, vars[i])
                        : Z3_mk_zero_ext(c, want - bits, vars[i]);
}

static Z3_ast operand(Z3_context c, Z3_ast *vars, const sf_var *v, const sf_fit *f) {
  unsigned w = f->width >= 8 ? 8 : f->width;
  Z3_sort sort = Z3_mk_bv_sort(c, 8 * w);
  uint64_t m = sf_width_mask(w);
  switch (f->kind) {
  case SF_FIT_LINEAR: {
    /* Sums and products mod 2^(8w) depend only on the low 8w bits of each
     * term: compute at the comparison's width (small multipliers solve fast). */
    Z3_ast y = Z3_mk_unsigned_int64(c, f->base & m, sort);
    for (uint32_t i = 0; i < f->nvars; i++) {
      Z3_ast x = var_at(c, vars, v, f->var[i], w);
      uint64_t k = f->coef[i] & m;
      if (k == 0) continue;
      y = Z3_mk_bvadd(c, y, k == 1 ? x : Z3_mk_bvmul(c, Z3_mk_unsigned_int64(c, k, sort), x));
    }
    return y;
  }
  case SF_FIT_SHIFTMASK:
  case SF_FIT_SHLMASK: {
    /* x at its own size, zero-extended: the fit worked on the raw bits. */
    unsigned bits = 8u * v[f->var[0]].size;
    Z3_ast x = bits == 64 ? vars[f->var[0]] : Z3_mk_zero_ext(c, 64 - bits, vars[f->var[0]]);
    x = f->kind == SF_FIT_SHIFTMASK ? Z3_mk_bvlshr(c, x, bv64(c, f->shift))
                                    : Z3_mk_bvshl(c, x, bv64(c, f->shift));
    Z3_ast y = Z3_mk_bvadd(c, Z3_mk_bvand(c, x, bv64(c, f->mask)), bv64(c, f->base));
    return w >= 8 ? y : Z3_mk_extract(c, 8 * w - 1, 0, y);
  }
  case SF_FIT_TERMS: {
    Z3_ast y = bv64(c, f->base);
    for (uint32_t i = 0; i < f->nvars; i++) {
      const sf_var *vi = &v[f->var[i]];
      unsigned bits = 8u * vi->size;
      Z3_ast x;
      if (f->tdir[i] == SF_TERM_VALUE) {
        x = bits == 64      ? vars[f->var[i]]
            : vi->is_signed ? Z3_mk_sign_ext(c, 64 - bits, vars[f->var[i]])
                            : Z3_mk_zero_ext(c, 64 - bits, vars[f->var[i]]);
      } else {
        x = bits == 64 ? vars[f->var[i]] : Z3_mk_zero_ext(c, 64 - bits, vars[f->var[i]]);
        x = f->tdir[i] == SF_TERM_SHR ? Z3_mk_bvlshr(c, x, bv64(c, f->tshift[i]))
                                      : Z3_mk_bvshl(c, x, bv64(c, f->tshift[i]));
        x = Z3_mk_bvand(c, x, bv64(c, f->tmask[i]));
      }
      y = Z3_mk_bvadd(c, y, f->coef[i] == 1 ? x : Z3_mk_bvmul(c, bv64(c, f->coef[i]), x));
    }
    return w >= 8 ? y : Z3_mk_extract(c, 8 * w - 1, 0, y);
  }
  default:
    return Z3_mk_unsigned_int64(c, f->base & m, sort);
  }
}

static void mark_used(const sf_query_cmp *q, bool *used, uint32_t nvars) {
  const sf_fit *fs[2] = {&q->a, &q->b};
  for (int f = 0; f < 2; f++)
    if (fs[f]->kind != SF_FIT_CONST)
      for (uint32_t i = 0; i < fs[f]->nvars; i++)
        if (fs[f]->var[i] < nvars) used[fs[f]->var[i]] = true;
}

static Z3_ast goal_ast(Z3_context c, Z3_ast a, Z3_ast b, sf_goal g) {
  switch (g) {
  case SF_GOAL_EQ:
    return Z3_mk_eq(c, a, b);
  case SF_GOAL_NE:
    return Z3_mk_not(c, Z3_mk_eq(c, a, b));
  case SF_GOAL_ULT:
    return Z3_mk_bvult(c, a, b);
  case SF_GOAL_UGT:
    return Z3_mk_bvugt(c, a, b);
  case SF_GOAL_SLT:
    return Z3_mk_bvslt(c, a, b);
  default:
    return Z3_mk_bvsgt(c, a, b);
  }
}

static void assert_cmp(Z3_context c, Z3_solver s, Z3_ast *vars, const sf_var *v,
                       const sf_query_cmp *q) {
  Z3_ast a = operand(c, vars, v, &q->a), b = operand(c, vars, v, &q->b);
  for (int g = 0; g < SF_GOAL_COUNT; g++)
    if (q->goals & (1u << g)) Z3_solver_assert(c, s, goal_ast(c, a, b, (sf_goal)g));
}

sf_smt_result sf_smt_solve(sf_smt *z, const sf_query *q, uint64_t *values) {
  if (q->nvars == 0 || q->nvars > 4096) return SF_SMT_ERROR;
  if (z->queries >= 256 && reset_context(z)) return SF_SMT_ERROR;
  z->queries++;
  Z3_context c = z->ctx;
  Z3_ast *vars = calloc(q->nvars, sizeof *vars);
  if (!vars) return SF_SMT_ERROR;
  Z3_solver s = Z3_mk_solver_for_logic(c, Z3_mk_string_symbol(c, "QF_BV"));
  Z3_solver_inc_ref(c, s);
  Z3_params p = Z3_mk_params(c);
  Z3_params_inc_ref(c, p);
  Z3_params_set_uint(c, p, Z3_mk_string_symbol(c, "timeout"), q->timeout_ms ? q->timeout_ms : 1);
  Z3_solver_set_params(c, s, p);

  /* Only the variables the comparisons use get constraints: the others
   * keep their values (and the query stays small). */
  bool *used = calloc(q->nvars, sizeof *used);
  if (!used) {
    free(vars);
    return SF_SMT_ERROR;
  }
  mark_used(&q->target, used, q->nvars);
  for (uint32_t i = 0; i < q->npath; i++)
    mark_used(&q->path[i], used, q->nvars);
  for (uint32_t i = 0; i < q->nvars; i++) {
    const sf_var *v = &q->vars[i];
    unsigned bits = 8u * v->size;
    Z3_sort sort = Z3_mk_bv_sort(c, bits);
    vars[i] = Z3_mk_const(c, Z3_mk_int_symbol(c, (int)i), sort);
    if (!used[i]) continue;
    /* The grammar's precondition, at the variable's own size. */
    uint64_t m = sf_width_mask(v->size);
    Z3_ast lo = Z3_mk_unsigned_int64(c, v->lo & m, sort),
           hi = Z3_mk_unsigned_int64(c, v->hi & m, sort);
    Z3_solver_assert(c, s,
                     v->is_signed ? Z3_mk_bvsge(c, vars[i], lo) : Z3_mk_bvuge(c, vars[i], lo));
    Z3_solver_assert(c, s,
                     v->is_signed ? Z3_mk_bvsle(c, vars[i], hi) : Z3_mk_bvule(c, vars[i], hi));
    for (uint32_t e = 0; e < v->nexcluded; e++)
      Z3_solver_assert(
          c, s,
          Z3_mk_not(c, Z3_mk_eq(c, vars[i], Z3_mk_unsigned_int64(c, v->excluded[e] & m, sort))));
  }
  assert_cmp(c, s, vars, q->vars, &q->target);
  for (uint32_t i = 0; i < q->npath; i++)
    assert_cmp(c, s, vars, q->vars, &q->path[i]);

  sf_smt_result r;
  Z3_lbool res = Z3_solver_check(c, s);
  if (res == Z3_L_TRUE) {
    r = SF_SMT_SAT;
    Z3_model model = Z3_solver_get_model(c, s);
    Z3_model_inc_ref(c, model);
    for (uint32_t i = 0; i < q->nvars; i++) {
      Z3_ast out = NULL;
      uint64_t val = 0;
      if (!used[i]) {
        values[i] = q->vars[i].value;
        continue;
      }
      if (!Z3_model_eval(c, model, vars[i], true, &out) || !Z3_get_numeral_uint64(c, out, &val)) {
        r = SF_SMT_ERROR;
        break;
      }
      unsigned bits = 8u * q->vars[i].size;
      if (q->vars[i].is_signed && bits < 64 && (val >> (bits - 1)) & 1) val |= ~0ull << bits;
      values[i] = val;
    }
    Z3_model_dec_ref(c, model);
  } else if (res == Z3_L_FALSE) {
    r = SF_SMT_UNSAT;
  } else {
    const char *why = Z3_solver_get_reason_unknown(c, s);
    r = why && (strstr(why, "timeout") || strstr(why, "canceled")) ? SF_SMT_TIMEOUT : SF_SMT_ERROR;
  }
  Z3_params_dec_ref(c, p);
  Z3_solver_dec_ref(c, s);
  free(vars);
  free(used);
  return r;
}
