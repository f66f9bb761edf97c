/* internal.h: what the solver's files share (not a public interface; the
 * tests include it to check fitting and solving on recorded observations).
 *
 * An attempt on a frontier goes: witness sequence -> variables (its integer
 * arguments and buffer elements) -> perturbed runs -> per operand, the
 * variables that influence it and a fitted transfer function (fit.c) -> a Z3
 * query (smt.c) -> values written back into the sequence (solver.c). */
#ifndef SF_SOLVER_INTERNAL_H
#define SF_SOLVER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/sf_buf.h"
#include "../grammar/api.h"

#define SF_VAR_LENGTH (-2) /* elem: a buffer's length */
#define SF_VAR_SCRIPT (-3) /* elem: a field of a mock's script (record, field, byte) */

/* The fields of a script's record (sf_var.field; >= 0: the callback's out
 * number parameter of that index). */
enum {
  SF_FIELD_CHUNK_LEN = -1,
  SF_FIELD_CHUNK_BYTE = -2,
  SF_FIELD_ANSWER = -3,
  SF_FIELD_ALLOC = -4
};

/* A primitive of the witness the solver may change. */
typedef struct sf_var {
  uint32_t call, param;
  int32_t elem;    /* element of a buffer/array argument; -1: the argument itself */
  uint16_t record; /* SF_VAR_SCRIPT: the record (the mock's call), */
  int16_t field;   /* its field, */
  uint16_t byte;   /* and the chunk's byte (SF_FIELD_CHUNK_BYTE); */
  uint8_t member;  /* of a vtable argument: its member + 1 (0: a callback argument) */
  uint8_t size;    /* bytes: 1, 2, 4, 8 */
  bool is_signed;  /* values are sign-extended to 64 bits when signed */
  uint64_t lo, hi; /* legal range, compared with the var's signedness */
  uint64_t excluded[4];
  uint32_t nexcluded;
  uint64_t value; /* in the witness */
} sf_var;

/* How an operand of a comparison depends on variables, mod 2^(8*width). */
typedef enum sf_fit_kind {
  SF_FIT_CONST,     /* y = base (no variable influences it) */
  SF_FIT_LINEAR,    /* y = base + sum coef[i] * x[i] */
  SF_FIT_SHIFTMASK, /* y = ((x[0] >> shift) & mask) + base  (x at its own size, */
  SF_FIT_SHLMASK,   /* y = ((x[0] << shift) & mask) + base   unsigned; any mask) */
  SF_FIT_TERMS,     /* y = base + sum coef[i] * T_i(x[i]), T_i one of the above or x */
} sf_fit_kind;

/* The transform of a term of SF_FIT_TERMS. */
enum { SF_TERM_VALUE = 0, SF_TERM_SHR = 1, SF_TERM_SHL = 2 };

#define SF_FIT_MAX_VARS 64

typedef struct sf_fit {
  sf_fit_kind kind;
  uint8_t width; /* bytes of the comparison operand */
  uint32_t nvars;
  uint32_t var[SF_FIT_MAX_VARS]; /* indexes into the attempt's variables */
  uint64_t coef[SF_FIT_MAX_VARS];
  uint64_t base;
  uint32_t shift;
  uint64_t mask;
  /* SF_FIT_TERMS: per term, SF_TERM_*, its shift and mask. */
  uint8_t tdir[SF_FIT_MAX_VARS], tshift[SF_FIT_MAX_VARS];
  uint64_t tmask[SF_FIT_MAX_VARS];
} sf_fit;

static inline uint64_t sf_width_mask(unsigned bytes) {
  return bytes >= 8 ? UINT64_MAX : ((1ull << (8 * bytes)) - 1);
}

/* The value of f for variable values xs (indexed like the attempt's vars),
 * truncated to f->width. */
uint64_t sf_fit_eval(const sf_fit *f, const sf_var *vars, const uint64_t *xs);

/* Fit a one-variable function y = f(x) to n >= 3 observations (x[0], y[0]
 * the witness's; x[1] - x[0] must be odd for the linear form). Tries, in
 * order: affine, then (x >> s) & M, then (x << s) & M, smallest shift first;
 * true when one explains every observation. */
bool sf_fit_single(uint32_t var, const sf_var *v, const uint64_t *x, const uint64_t *y, uint32_t n,
                   uint8_t width, sf_fit *out);

/* Several variables that each move y on their own, fitted one at a time
 * (singles[j]: y as a function of variable j, the others at the witness):
 * if y is their sum ((hi << 16) | lo, disjoint fields), it is
 * sum (singles[j] - y0) + y0. false if a single fit cannot be a term. */
bool sf_fit_separable(const sf_fit *singles, uint32_t n, uint64_t y0, uint8_t width, sf_fit *out);

/* Fit y = base + sum coef[j] * x[j] over several variables from the witness
 * (x0 per var, y0) and one odd-step observation per variable (x1[j], y1[j]),
 * each taken with the other variables at their witness values. */
bool sf_fit_linear_multi(const uint32_t *vars, uint32_t nvars, const uint64_t *x0,
                         const uint64_t *x1, uint64_t y0, const uint64_t *y1, uint8_t width,
                         sf_fit *out);

/* Fit y = base + sum coef[i] * x[i] to m joint observations (row r:
 * xs[r * nvars + i], ys[r]) around the witness (x0, y0), where several
 * variables change at once (probes that keep earlier guards satisfied).
 * Coefficients the observations cannot separate are set to 0: any solution
 * agrees on the observed subspace. false if one observation is not
 * explained. m <= 64. */
bool sf_fit_linear_system(const uint32_t *vars, uint32_t nvars, const uint64_t *x0, uint64_t y0,
                          const uint64_t *xs, const uint64_t *ys, uint32_t m, uint8_t width,
                          sf_fit *out);

/* ---- mock scripts (script.c) ---- */
/* The variables of a script of callback cb (at most max into out, each a
 * copy of proto with its field set): per record, the chunk's length and
 * first bytes, the out numbers, the answer (as the mock answers it: an
 * answer out of range is the default) or an allocator's fail bit; records
 * past the script's end too. */
uint32_t sf_script_vars(const sf_callback *cb, const uint8_t *s, uint32_t len, const sf_var *proto,
                        sf_var *out, uint32_t max);
/* The script with variable v set to x, into out (records up to v's written
 * out in full: the mock reads them as before). -1 if it would be too long. */
int sf_script_set(const sf_callback *cb, const uint8_t *s, uint32_t len, const sf_var *v,
                  uint64_t x, sf_buf *out);

/* ---- Z3 ---- */
/* The outcome a query asks for: comparison results, as seen by both
 * signednesses (the trace does not say which the target used). */
typedef enum sf_goal {
  SF_GOAL_EQ,
  SF_GOAL_NE,
  SF_GOAL_ULT,
  SF_GOAL_UGT,
  SF_GOAL_SLT,
  SF_GOAL_SGT,
  SF_GOAL_COUNT
} sf_goal;

/* The outcome bits (1 << goal) that operands a and b of a width-byte
 * comparison satisfy. */
unsigned sf_goal_outcomes(uint64_t a, uint64_t b, unsigned width);

typedef struct sf_query_cmp {
  sf_fit a, b;
  uint32_t goals; /* 1 << sf_goal bits that must all hold */
} sf_query_cmp;

#define SF_QUERY_MAX_PATH 32

typedef struct sf_query {
  const sf_var *vars;
  uint32_t nvars;
  sf_query_cmp target;
  sf_query_cmp path[SF_QUERY_MAX_PATH]; /* comparisons to keep as they were */
  uint32_t npath;
  uint32_t timeout_ms;
} sf_query;

typedef enum sf_smt_result { SF_SMT_SAT, SF_SMT_UNSAT, SF_SMT_TIMEOUT, SF_SMT_ERROR } sf_smt_result;

typedef struct sf_smt sf_smt;
sf_smt *sf_smt_new(void);
void sf_smt_free(sf_smt *z);
/* Solve q; on SAT, values[i] is the new value of q->vars[i] (sign-extended
 * when signed; within its range, never an excluded value); variables no
 * comparison uses keep their value. */
sf_smt_result sf_smt_solve(sf_smt *z, const sf_query *q, uint64_t *values);

#endif
