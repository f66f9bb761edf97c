/* The solver: transfer functions fitted from observations, Z3 queries for
 * each kind of relation (with unsat and timeout), and whole attempts against
 * recorded-style traces: a runner that reports the comparisons a target
 * would make, so every relation is exercised deterministically. */
#include "harness/cmp_trace.h"
#include "solver/internal.h"
#include "solver/solver.h"
#include "test_util.h"

static const sf_var U32 = {.size = 4, .lo = 0, .hi = UINT32_MAX};
static const sf_var U64 = {.size = 8, .lo = 0, .hi = UINT64_MAX};

static void test_fit_affine(void **state) {
  (void)state;
  uint64_t x[4] = {1000, 1001, 77, 123456789}, y[4];
  for (int i = 0; i < 4; i++)
    y[i] = (uint32_t)(x[i] * 13 + 5);
  sf_fit f;
  assert_true(sf_fit_single(0, &U32, x, y, 4, 4, &f));
  assert_int_equal(f.kind, SF_FIT_LINEAR);
  assert_int_equal(f.coef[0], 13);
  assert_int_equal(f.base, 5);
  /* A wrong observation is not explained by anything simple. */
  y[3] ^= 0x5a5a;
  assert_false(sf_fit_single(0, &U32, x, y, 4, 4, &f) && f.kind == SF_FIT_LINEAR);
}

static void test_fit_shift_and_mask(void **state) {
  (void)state;
  uint64_t x[5] = {0x12345678, 0x12345679, 0x9abcdef0, 0x0f0f0f0f, 0xdeadbeef}, y[5];
  for (int i = 0; i < 5; i++)
    y[i] = (x[i] >> 8) & 0xfff;
  sf_fit f;
  assert_true(sf_fit_single(0, &U64, x, y, 5, 8, &f));
  assert_int_equal(f.kind, SF_FIT_SHIFTMASK);
  assert_int_equal(f.shift, 8);
  for (int i = 0; i < 5; i++)
    y[i] = x[i] & 0xff00ff00;
  assert_true(sf_fit_single(0, &U64, x, y, 5, 8, &f));
  assert_int_equal(f.kind, SF_FIT_SHIFTMASK);
  assert_int_equal(f.shift, 0);
  assert_int_equal(f.mask & 0xff00ff00, 0xff00ff00);
  for (int i = 0; i < 5; i++)
    assert_int_equal(sf_fit_eval(&f, &U64, &x[i]), y[i]);
}

static void test_fit_linear_several(void **state) {
  (void)state;
  /* 3a - 2b + c + 9, from the witness and one odd step per variable. */
  uint32_t vars[3] = {0, 1, 2};
  uint64_t x0[3] = {10, 20, 30}, x1[3] = {11, 19, 33}, y1[3];
  uint64_t y0 = (uint32_t)(3 * 10 - 2 * 20 + 30 + 9);
  y1[0] = (uint32_t)(3 * 11 - 2 * 20 + 30 + 9);
  y1[1] = (uint32_t)(3 * 10 - 2 * 19 + 30 + 9);
  y1[2] = (uint32_t)(3 * 10 - 2 * 20 + 33 + 9);
  sf_fit f;
  assert_true(sf_fit_linear_multi(vars, 3, x0, x1, y0, y1, 4, &f));
  assert_int_equal(f.coef[0], 3);
  assert_int_equal(f.coef[1], (uint32_t)-2);
  assert_int_equal(f.coef[2], 1);
  assert_int_equal(f.base, 9);
  /* An even step cannot determine a coefficient mod 2^32. */
  x1[1] = 22;
  assert_false(sf_fit_linear_multi(vars, 3, x0, x1, y0, y1, 4, &f));
}

static void test_fit_separable_fields(void **state) {
  (void)state;
  /* y = (hi & 0xffff) << 16 | (lo & 0xffff): each variable alone is a field
   * plus a constant (the other's half); together, their sum. */
  uint64_t hi0 = 0x1234, lo0 = 0x5678, y0 = (hi0 << 16) | lo0;
  uint64_t xh[5] = {hi0, hi0 + 1, 0xabcdef01, 0x00ff00ff, 0x7777},
           xl[5] = {lo0, lo0 + 1, 0x13572468, 0xffff, 0x8888};
  uint64_t yh[5], yl[5];
  for (int i = 0; i < 5; i++) {
    yh[i] = ((xh[i] & 0xffff) << 16) | lo0;
    yl[i] = (hi0 << 16) | (xl[i] & 0xffff);
  }
  sf_fit singles[2], f;
  assert_true(sf_fit_single(0, &U32, xh, yh, 5, 4, &singles[0]));
  assert_true(sf_fit_single(1, &U32, xl, yl, 5, 4, &singles[1]));
  assert_true(sf_fit_separable(singles, 2, y0, 4, &f));
  sf_var vars[2] = {U32, U32};
  uint64_t xs[2] = {0xdead, 0xbeef};
  assert_int_equal(sf_fit_eval(&f, vars, xs), 0xdeadbeef);
  /* Z3 finds both halves. */
  sf_smt *z = sf_smt_new();
  sf_query q = {.vars = vars, .nvars = 2, .timeout_ms = 2000};
  q.target =
      (sf_query_cmp){f, {.kind = SF_FIT_CONST, .width = 4, .base = 0xcafef00d}, 1u << SF_GOAL_EQ};
  uint64_t v[2];
  assert_int_equal(sf_smt_solve(z, &q, v), SF_SMT_SAT);
  assert_int_equal(((v[0] & 0xffff) << 16) | (v[1] & 0xffff), 0xcafef00d);
  sf_smt_free(z);
}

static void test_goal_outcomes(void **state) {
  (void)state;
  unsigned o = sf_goal_outcomes(1, 0xffffffff, 4);
  assert_true(o & (1u << SF_GOAL_NE));
  assert_true(o & (1u << SF_GOAL_ULT));
  assert_true(o & (1u << SF_GOAL_SGT)); /* -1 < 1 signed */
  assert_int_equal(sf_goal_outcomes(7, 7, 1), 1u << SF_GOAL_EQ);
}

static sf_fit konst(uint64_t v, uint8_t width) {
  return (sf_fit){.kind = SF_FIT_CONST, .width = width, .base = v};
}

static sf_fit lin1(uint32_t var, uint64_t a, uint64_t b, uint8_t width) {
  sf_fit f = {.kind = SF_FIT_LINEAR, .width = width, .nvars = 1, .base = b};
  f.var[0] = var;
  f.coef[0] = a;
  return f;
}

static void test_smt_relations(void **state) {
  (void)state;
  sf_smt *z = sf_smt_new();
  assert_non_null(z);
  uint64_t v[4];
  /* Affine: x * 13 + 5 == 0x2A8F3C91 (32 bits). */
  sf_var vars[4] = {U32, U32, U32, U64};
  sf_query q = {.vars = vars, .nvars = 1, .timeout_ms = 2000};
  q.target = (sf_query_cmp){lin1(0, 13, 5, 4), konst(0x2A8F3C91, 4), 1u << SF_GOAL_EQ};
  assert_int_equal(sf_smt_solve(z, &q, v), SF_SMT_SAT);
  assert_int_equal((uint32_t)(v[0] * 13 + 5), 0x2A8F3C91);
  /* Two variables, a path constraint kept: a + b == 1000003 then a - b == 77. */
  sf_fit sum = {.kind = SF_FIT_LINEAR, .width = 4, .nvars = 2, .var = {0, 1}, .coef = {1, 1}};
  sf_fit diff = sum;
  diff.coef[1] = (uint32_t)-1;
  q.nvars = 2;
  q.target = (sf_query_cmp){diff, konst(77, 4), 1u << SF_GOAL_EQ};
  q.path[0] = (sf_query_cmp){sum, konst(1000003, 4), 1u << SF_GOAL_EQ};
  q.npath = 1;
  assert_int_equal(sf_smt_solve(z, &q, v), SF_SMT_SAT);
  assert_int_equal((uint32_t)(v[0] + v[1]), 1000003);
  assert_int_equal((uint32_t)(v[0] - v[1]), 77);
  /* A field: ((x >> 8) & 0xfff) == 0xabc on a 64-bit variable. */
  sf_fit field = {
      .kind = SF_FIT_SHIFTMASK, .width = 8, .nvars = 1, .var = {3}, .shift = 8, .mask = 0xfff};
  q.nvars = 4;
  q.npath = 0;
  q.target = (sf_query_cmp){field, konst(0xabc, 8), 1u << SF_GOAL_EQ};
  assert_int_equal(sf_smt_solve(z, &q, v), SF_SMT_SAT);
  assert_int_equal((v[3] >> 8) & 0xfff, 0xabc);
  /* Ranges are respected: x in [10, 1000] with x * 3 > 2990 gives 997..1000. */
  vars[0].lo = 10;
  vars[0].hi = 1000;
  q.nvars = 1;
  q.target = (sf_query_cmp){lin1(0, 3, 0, 4), konst(2990, 4), 1u << SF_GOAL_UGT};
  assert_int_equal(sf_smt_solve(z, &q, v), SF_SMT_SAT);
  assert_true(v[0] >= 997 && v[0] <= 1000);
  /* Unsat: 2x == 7 has no solution mod 2^32. */
  q.target = (sf_query_cmp){lin1(0, 2, 0, 4), konst(7, 4), 1u << SF_GOAL_EQ};
  assert_int_equal(sf_smt_solve(z, &q, v), SF_SMT_UNSAT);
  /* A signed variable's model comes back sign-extended. */
  sf_var s8 = {.size = 1, .is_signed = true, .lo = (uint64_t)-128, .hi = 127};
  q.vars = &s8;
  q.target = (sf_query_cmp){lin1(0, 1, 0, 8), konst((uint64_t)-5, 8), 1u << SF_GOAL_EQ};
  assert_int_equal(sf_smt_solve(z, &q, v), SF_SMT_SAT);
  assert_int_equal((int64_t)v[0], -5);
  sf_smt_free(z);
}

static void test_smt_timeout(void **state) {
  (void)state;
  sf_smt *z = sf_smt_new();
  /* a_i * x mod 2^64 < 2^58 for 32 unrelated odd a_i: each holds for one x
   * in 64, and deciding the conjunction means reasoning through 32 64-bit
   * multipliers; 1 ms is far too little. */
  sf_var x = U64;
  sf_query q = {.vars = &x, .nvars = 1, .timeout_ms = 1};
  uint64_t a = 0x9E3779B97F4A7C15ull;
  q.target = (sf_query_cmp){lin1(0, a, 0, 8), konst(1ull << 58, 8), 1u << SF_GOAL_ULT};
  for (uint32_t i = 0; i < SF_QUERY_MAX_PATH; i++) {
    a = a * 6364136223846793005ull + 1442695040888963407ull;
    q.path[i] = (sf_query_cmp){lin1(0, a | 1, i, 8), konst(1ull << 58, 8), 1u << SF_GOAL_ULT};
  }
  q.npath = SF_QUERY_MAX_PATH;
  uint64_t v[1];
  assert_int_equal(sf_smt_solve(z, &q, v), SF_SMT_TIMEOUT);
  /* The context stays usable after a timeout. */
  q.npath = 0;
  q.timeout_ms = 2000;
  q.target = (sf_query_cmp){lin1(0, 3, 0, 8), konst(21, 8), 1u << SF_GOAL_EQ};
  assert_int_equal(sf_smt_solve(z, &q, v), SF_SMT_SAT);
  assert_int_equal(v[0] * 3, 21);
  sf_smt_free(z);
}

/* ---- whole attempts against a target that reports its comparisons ---- */

static const char *API_TEXT = "api fake;\n"
                              "handle h;\n"
                              "func h *h_new(void) error null;\n"
                              "func void h_free(h *x) destructor;\n"
                              "func int f_affine(h *x, i32 v);\n"
                              "func int f_pair(h *x, u32 a, u32 b);\n"
                              "func int f_mask(h *x, u64 v);\n"
                              "func int f_sum(h *x, bytes buf[n], u32 n in [4, 16]);\n"
                              "func int f_range(h *x, u32 v in [10, 1000]);\n";

enum {
  S_AFFINE = 0x10,
  S_PAIR = 0x20,
  S_PAIR2 = 0x30,
  S_FIELD = 0x40,
  S_MASK = 0x41,
  S_SUM = 0x50,
  S_RANGE = 0x60
};

static sf_cmp_record recs[64];

static void rec(uint32_t *n, uint64_t site, uint32_t call, uint64_t k, uint64_t v, uint8_t w) {
  recs[*n] = (sf_cmp_record){
      .site = site, .a = k, .b = v, .call = call, .width = w, .kind = SF_TRACE_CONST};
  (*n)++;
}

/* What the target would report: one comparison per call (two for f_pair
 * when its first guard holds). */
static uint32_t fake_run(void *ctx, const sf_seq *s, const sf_cmp_record **out) {
  (void)ctx;
  uint32_t n = 0;
  for (uint32_t c = 0; c < s->ncalls && n < 60; c++) {
    const char *name = sf_seq_func(s, c)->name;
    const sf_arg *a = sf_seq_args(s, c);
    if (!strcmp(name, "f_affine")) {
      rec(&n, S_AFFINE, c, 0x2A8F3C91, (uint32_t)(a[1].bits * 13 + 5), 4);
    } else if (!strcmp(name, "f_pair")) {
      uint32_t x = (uint32_t)a[1].bits, y = (uint32_t)a[2].bits;
      rec(&n, S_PAIR, c, 1000003, (uint32_t)(x + y), 4);
      if (x + y == 1000003) rec(&n, S_PAIR2, c, 77, (uint32_t)(x - y), 4);
    } else if (!strcmp(name, "f_mask")) {
      rec(&n, S_FIELD, c, 0xabc, (a[1].bits >> 8) & 0xfff, 8);
      rec(&n, S_MASK, c, 0x12003400, a[1].bits & 0xff00ff00, 8);
    } else if (!strcmp(name, "f_sum")) {
      const uint8_t *b = sf_seq_bytes(s, &a[1]);
      uint16_t sum = 0;
      for (uint32_t i = 0; i < a[1].len; i++)
        sum = (uint16_t)(sum + b[i] * (i + 1)); /* a weighted checksum */
      rec(&n, S_SUM, c, 0x0BCD, sum, 2);
    } else if (!strcmp(name, "f_range")) {
      rec(&n, S_RANGE, c, 5000, (uint32_t)(a[1].bits * 3), 4);
    }
  }
  *out = recs;
  return n;
}

/* The outcome bits the records of s show at site (run by `run`). */
static unsigned outcomes_at_with(sf_solver_runner run, const sf_seq *s, uint64_t site) {
  const sf_cmp_record *r;
  uint32_t n = run(NULL, s, &r);
  unsigned bits = 0;
  for (uint32_t i = 0; i < n; i++)
    if (r[i].site == site) bits |= sf_goal_outcomes(r[i].a, r[i].b, r[i].width);
  return bits;
}

static unsigned outcomes_at(const sf_seq *s, uint64_t site) {
  return outcomes_at_with(fake_run, s, site);
}

/* Plays the engine for up to max_steps solver steps from seed s: each result
 * is decoded into out, checked valid, shown to `result`, then run and
 * observed as a kept corpus entry. */
static void play_engine(sf_solver *sv, const sf_api *api, sf_solver_runner run, const sf_seq *s,
                        sf_seq *out, int max_steps, void (*result)(const sf_seq *out, void *ctx),
                        void *ctx) {
  const sf_cmp_record *r;
  uint32_t n = run(NULL, s, &r);
  sf_solver_observe(sv, s, r, n);
  sf_buf b = {0};
  for (int step = 0; step < max_steps && sf_solver_has_work(sv); step++) {
    sf_buf_reset(&b);
    int rc = sf_solver_step(sv, &b);
    assert_true(rc >= 0);
    if (rc != 1) continue;
    assert_int_equal(sf_seq_decode(out, api, b.data, b.len), SF_DECODE_OK);
    assert_valid(out);
    result(out, ctx);
    n = run(NULL, out, &r);
    sf_solver_observe(sv, out, r, n);
  }
  sf_buf_free(&b);
}

/* The sites of fake_run whose equality a result reached (bit i: sites[i]). */
struct relations {
  const sf_seq *seed;
  unsigned eq_reached;
};

static void relations_reached(const sf_seq *out, void *ctx) {
  struct relations *rel = ctx;
  assert_true(out->ncalls >= 2 && out->ncalls <= rel->seed->ncalls); /* the seed or a prefix */
  uint64_t sites[] = {S_AFFINE, S_PAIR, S_PAIR2, S_FIELD, S_MASK, S_SUM};
  for (int i = 0; i < 6; i++)
    if (outcomes_at(out, sites[i]) & (1u << SF_GOAL_EQ)) rel->eq_reached |= 1u << i;
}

static void test_attempts_flip_each_relation(void **state) {
  (void)state;
  sf_api *api = parse_api_text(API_TEXT);
  sf_seq s, out;
  sf_seq_init(&s, api);
  sf_seq_init(&out, api);
  parse_seq_ok(&s, api,
               "h1 = h_new(); f_affine(h1, 7); f_pair(h1, 1, 2); f_mask(h1, 99);"
               " f_sum(h1, x\"0102030405\"); f_range(h1, 20);");
  sf_solver_options opt = {.timeout_ms = 2000, .in_process = true, .seed = 1};
  sf_solver *sv = sf_solver_new(api, &opt, fake_run, NULL);
  assert_non_null(sv);
  /* Each site starts with NE seen; equality is the frontier. */
  struct relations seen = {&s, 0};
  play_engine(sv, api, fake_run, &s, &out, 200, relations_reached, &seen);
  unsigned eq_reached = seen.eq_reached;
  /* Every relation flipped, including the second guard of f_pair (solved
   * with the first kept as a path constraint) and the buffer checksum. */
  assert_int_equal(eq_reached, 0x3f);
  sf_solver_stats st;
  sf_solver_get_stats(sv, &st);
  assert_true(st.flips >= 6);
  /* f_range: v * 3 == 5000 has no solution with v in [10, 1000]. */
  assert_true(st.unsat >= 1);
  assert_int_equal(st.errors, 0);
  sf_seq_free(&s);
  sf_seq_free(&out);
  sf_solver_free(sv);
  sf_api_free(api);
}

/* ---- a length behind a check word (input-to-state mending) ---- */

static const char *FRAME_API = "api fake;\n"
                               "handle h;\n"
                               "func h *h_new(void) error null;\n"
                               "func void h_free(h *x) destructor;\n"
                               "func int f_frame(h *x, u32 len, u32 check);\n";

enum { S_CHECK = 0x70, S_LEN = 0x80 };

/* A check word no fit explains (a hash of the length). */
static uint32_t frame_check(uint32_t len) {
  uint32_t h = len * 2654435761u;
  h ^= h >> 15;
  h *= 0x85ebca6bu;
  return h ^ (h >> 13);
}

/* f_frame compares its check word with the length's (two computed values)
 * and, when they agree, the length with 4096. */
static uint32_t frame_run(void *ctx, const sf_seq *s, const sf_cmp_record **out) {
  (void)ctx;
  uint32_t n = 0;
  for (uint32_t c = 0; c < s->ncalls && n < 60; c++) {
    if (strcmp(sf_seq_func(s, c)->name, "f_frame")) continue;
    const sf_arg *a = sf_seq_args(s, c);
    uint32_t len = (uint32_t)a[1].bits, check = (uint32_t)a[2].bits;
    recs[n++] = (sf_cmp_record){.site = S_CHECK,
                                .a = check,
                                .b = frame_check(len),
                                .call = c,
                                .width = 4,
                                .kind = SF_TRACE_VAR};
    if (check == frame_check(len)) rec(&n, S_LEN, c, 4096, len, 4);
  }
  *out = recs;
  return n;
}

/* The outcomes of the length's comparison a result reached (ctx: unsigned). */
static void length_reached(const sf_seq *out, void *ctx) {
  *(unsigned *)ctx |= outcomes_at_with(frame_run, out, S_LEN);
}

/* The length's comparison is only reached with the right check word: a
 * probe of the length alone never reaches it, and a model for the length
 * alone fails its check run. Both are mended (the check word set to what it
 * was compared with), so the solver reaches lengths of 4096 and more, each
 * with its own check word. */
static void test_length_behind_check_word(void **state) {
  (void)state;
  sf_api *api = parse_api_text(FRAME_API);
  sf_seq s, out;
  sf_seq_init(&s, api);
  sf_seq_init(&out, api);
  char text[128];
  snprintf(text, sizeof text, "h1 = h_new(); f_frame(h1, 7, %u);", frame_check(7));
  parse_seq_ok(&s, api, text);
  sf_solver_options opt = {.timeout_ms = 2000, .in_process = true, .seed = 1};
  sf_solver *sv = sf_solver_new(api, &opt, frame_run, NULL);
  assert_non_null(sv);
  unsigned reached = 0;
  play_engine(sv, api, frame_run, &s, &out, 50, length_reached, &reached);
  /* 4096 itself and beyond it (4096 below the length, as unsigned). */
  assert_true(reached & (1u << SF_GOAL_EQ));
  assert_true(reached & (1u << SF_GOAL_ULT));
  sf_seq_free(&s);
  sf_seq_free(&out);
  sf_solver_free(sv);
  sf_api_free(api);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fit_affine),
      cmocka_unit_test(test_fit_shift_and_mask),
      cmocka_unit_test(test_fit_linear_several),
      cmocka_unit_test(test_fit_separable_fields),
      cmocka_unit_test(test_goal_outcomes),
      cmocka_unit_test(test_smt_relations),
      cmocka_unit_test(test_smt_timeout),
      cmocka_unit_test(test_attempts_flip_each_relation),
      cmocka_unit_test(test_length_behind_check_word),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
