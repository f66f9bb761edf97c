/* test_cmp_trace: the answers of mocks and what the target compared them
 * with (harness/cmp_trace.h), driven by calling the wrappers the way a
 * library built with trace-cmp does. No engine here: the wrapped callbacks
 * (__real_*) are this file's, which only count their calls (libc's compare
 * functions: theirs, called by name). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "harness/cmp_trace.h"

static unsigned engine_calls; /* calls that reached the "engine" */

#define NOOP2(name, T)                                                                             \
  void __real___sanitizer_cov_trace_##name(T a, T b);                                              \
  void __real___sanitizer_cov_trace_##name(T a, T b) {                                             \
    (void)a;                                                                                       \
    (void)b;                                                                                       \
    engine_calls++;                                                                                \
  }
NOOP2(cmp1, uint8_t)
NOOP2(cmp2, uint16_t)
NOOP2(cmp4, uint32_t)
NOOP2(cmp8, uint64_t)
NOOP2(const_cmp1, uint8_t)
NOOP2(const_cmp2, uint16_t)
NOOP2(const_cmp4, uint32_t)
NOOP2(const_cmp8, uint64_t)
void __real___sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases);
void __real___sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases) {
  (void)val;
  (void)cases;
  engine_calls++;
}
void __wrap___sanitizer_cov_trace_const_cmp4(uint32_t a, uint32_t b);
void __wrap___sanitizer_cov_trace_const_cmp1(uint8_t a, uint8_t b);
void __wrap___sanitizer_cov_trace_cmp4(uint32_t a, uint32_t b);
void __wrap___sanitizer_cov_trace_cmp8(uint64_t a, uint64_t b);
/* This file is not linked with --wrap: its calls reach libc's directly. */
int __real_memcmp(const void *a, const void *b, size_t n);
int __real_memcmp(const void *a, const void *b, size_t n) {
  return memcmp(a, b, n);
}
int __real_strcmp(const char *a, const char *b);
int __real_strcmp(const char *a, const char *b) {
  return strcmp(a, b);
}
int __real_strncmp(const char *a, const char *b, size_t n);
int __real_strncmp(const char *a, const char *b, size_t n) {
  return strncmp(a, b, n);
}
int __real_strcasecmp(const char *a, const char *b);
int __real_strcasecmp(const char *a, const char *b) {
  return strcasecmp(a, b);
}
int __real_strncasecmp(const char *a, const char *b, size_t n);
int __real_strncasecmp(const char *a, const char *b, size_t n) {
  return strncasecmp(a, b, n);
}
int __wrap_memcmp(const void *a, const void *b, size_t n);
int __wrap_strcmp(const char *a, const char *b);
int __wrap_strncmp(const char *a, const char *b, size_t n);

/* cb_tick's checks of a hook's answer r: r > 100, r == 100, r == 42. */
static uint32_t tick_run(uint64_t answer, uint64_t (*pairs)[2]) {
  uint64_t consts[8];
  sf_cmp_trace_begin();
  sf_cmp_trace_watch_answer(answer);
  __wrap___sanitizer_cov_trace_const_cmp4(100, (uint32_t)answer);
  __wrap___sanitizer_cov_trace_const_cmp4(100, (uint32_t)answer);
  if (answer != 100) __wrap___sanitizer_cov_trace_const_cmp4(42, (uint32_t)answer);
  sf_cmp_trace_end(consts, 8);
  return sf_cmp_trace_answer_cmps(pairs, 16);
}

static bool has_pair(uint64_t (*pairs)[2], uint32_t n, uint64_t answer, uint64_t operand) {
  for (uint32_t k = 0; k < n; k++)
    if (pairs[k][0] == answer && pairs[k][1] == operand) return true;
  return false;
}

/* An answer compared with what it already is notes its neighbours: 100
 * against 100 gives 99 and 101, not 100 (nothing to change). Another
 * answer notes the operands as they are. */
static void test_neighbours(void **state) {
  (void)state;
  uint64_t pairs[16][2];
  uint32_t n = tick_run(100, pairs);
  assert_int_equal(n, 2);
  assert_true(has_pair(pairs, n, 100, 99));
  assert_true(has_pair(pairs, n, 100, 101));
  n = tick_run(17, pairs);
  assert_int_equal(n, 2);
  assert_true(has_pair(pairs, n, 17, 100));
  assert_true(has_pair(pairs, n, 17, 42));
}

/* With more pairs than room, the ones not handed out before come first: a
 * mock called late in a run gets its pairs through even when an earlier
 * mock's pairs, seen in every run, would fill the room. */
static void test_new_pairs_first(void **state) {
  (void)state;
  uint64_t pairs[16][2], consts[8];
  sf_cmp_trace_begin();
  for (uint32_t a = 1000; a < 1010; a++) { /* ten answers, each compared with 7 and 8 */
    sf_cmp_trace_watch_answer(a);
    __wrap___sanitizer_cov_trace_const_cmp4(7, a);
    __wrap___sanitizer_cov_trace_const_cmp4(8, a);
  }
  sf_cmp_trace_end(consts, 8);
  assert_int_equal(sf_cmp_trace_answer_cmps(pairs, 4), 4); /* 1000 and 1001's */
  assert_true(has_pair(pairs, 4, 1000, 7));
  assert_true(has_pair(pairs, 4, 1001, 8));
  sf_cmp_trace_begin(); /* the same run again, and a new answer at its end */
  for (uint32_t a = 1000; a < 1011; a++) {
    sf_cmp_trace_watch_answer(a);
    __wrap___sanitizer_cov_trace_const_cmp4(7, a);
    __wrap___sanitizer_cov_trace_const_cmp4(8, a);
  }
  sf_cmp_trace_end(consts, 8);
  assert_int_equal(sf_cmp_trace_answer_cmps(pairs, 4), 4);
  assert_false(has_pair(pairs, 4, 1000, 7));
  assert_true(has_pair(pairs, 4, 1002, 7));
  assert_true(has_pair(pairs, 4, 1003, 8));
  /* Once every pair was handed out, the first ones come again. */
  for (int run = 0; run < 8; run++)
    sf_cmp_trace_answer_cmps(pairs, 4);
  assert_int_equal(sf_cmp_trace_answer_cmps(pairs, 4), 4);
  assert_true(has_pair(pairs, 4, 1000, 7));
}

static bool in_set(const uint64_t set[4], uint8_t c) {
  return set[c / 64] >> (c % 64) & 1;
}

/* A byte compared with punctuation or space notes it as a separator (a
 * parser splitting "a,b"); letters, digits and wider comparisons do not,
 * and a new run starts with none. */
static void test_separators(void **state) {
  (void)state;
  uint64_t set[4], consts[8];
  sf_cmp_trace_begin();
  const char *text = "ab,c";
  for (const char *p = text; *p; p++) { /* while (*p && *p != ',' && *p != 'x') */
    __wrap___sanitizer_cov_trace_const_cmp1(',', (uint8_t)*p);
    __wrap___sanitizer_cov_trace_const_cmp1('x', (uint8_t)*p);
  }
  __wrap___sanitizer_cov_trace_const_cmp1('\n', 'a');
  __wrap___sanitizer_cov_trace_const_cmp4(';', 'a');
  sf_cmp_trace_end(consts, 8);
  sf_cmp_trace_separators(set);
  assert_true(in_set(set, ','));
  assert_true(in_set(set, '\n'));
  assert_false(in_set(set, 'x'));
  assert_false(in_set(set, ';'));
  assert_int_equal(__builtin_popcountll(set[0]) + __builtin_popcountll(set[1]) +
                       __builtin_popcountll(set[2]) + __builtin_popcountll(set[3]),
                   2);
  sf_cmp_trace_begin();
  sf_cmp_trace_end(consts, 8);
  sf_cmp_trace_separators(set);
  assert_false(in_set(set, ','));
}

/* Forwarding off (a seqfuzz probe, the solver's server: runs that are not
 * the engine's) keeps every comparison from the engine, in every mode, and
 * still notes the constants; on again, the engine gets them all. */
static void test_forwarding(void **state) {
  (void)state;
  uint64_t consts[8];
  engine_calls = 0;
  __wrap___sanitizer_cov_trace_const_cmp4(1000, 7); /* quiet: straight to the engine */
  assert_int_equal(engine_calls, 1);
  sf_cmp_trace_forward(false);
  __wrap___sanitizer_cov_trace_const_cmp4(1000, 7);
  sf_cmp_trace_begin();
  __wrap___sanitizer_cov_trace_const_cmp4(5000, 7);
  __wrap___sanitizer_cov_trace_const_cmp1(',', 'a');
  assert_int_equal(sf_cmp_trace_end(consts, 8), 1);
  assert_int_equal(consts[0], 5000);
  assert_int_equal(engine_calls, 1);
  sf_cmp_trace_forward(true);
  sf_cmp_trace_begin();
  __wrap___sanitizer_cov_trace_const_cmp4(5000, 7);
  sf_cmp_trace_end(consts, 8);
  __wrap___sanitizer_cov_trace_const_cmp4(1000, 7);
  assert_int_equal(engine_calls, 3);
}

/* A comparison's site is where the library made it, not a place inside
 * the wrappers: one place in a loop is one site, counted by occurrence;
 * another place is another site. (The solver keys its frontiers by site.) */
static void test_sites_are_the_callers(void **state) {
  (void)state;
  sf_cmp_trace_begin_records();
  /* One site: unrolled (-O2), the loop would make two; a bound the
   * compiler cannot know keeps it a loop. */
  volatile uint32_t twice = 2;
  for (uint32_t i = 0; i < twice; i++)
    __wrap___sanitizer_cov_trace_const_cmp4(7, i);
  __wrap___sanitizer_cov_trace_const_cmp4(9, 1);
  const sf_cmp_record *r;
  assert_int_equal(sf_cmp_trace_end_records(&r), 3);
  assert_true(r[0].site == r[1].site);
  assert_int_equal(r[0].occurrence, 0);
  assert_int_equal(r[1].occurrence, 1);
  assert_true(r[2].site != r[0].site);
  assert_int_equal(r[2].occurrence, 0);
  uintptr_t wrapper = (uintptr_t)&__wrap___sanitizer_cov_trace_const_cmp4;
  for (int i = 0; i < 3; i++)
    assert_false(r[i].site >= wrapper && r[i].site < wrapper + 256);
  assert_int_equal(r[2].a, 9);
}

/* Byte comparisons: an unequal one is noted with both sides, its answer
 * unchanged; an equal one, and any outside a noted run, are not; a side is
 * cut at 32 bytes, a string at its NUL or strncmp's n; pairs handed out
 * before come after new ones. */
static bool has_bytes_pair(const sf_bytes_cmp *c, uint32_t n, const char *a, const char *b) {
  for (uint32_t k = 0; k < n; k++)
    if (c[k].len[0] == strlen(a) && c[k].len[1] == strlen(b) &&
        memcmp(c[k].side[0], a, strlen(a)) == 0 && memcmp(c[k].side[1], b, strlen(b)) == 0)
      return true;
  return false;
}

static void test_bytes_compared(void **state) {
  (void)state;
  sf_bytes_cmp c[8];
  uint64_t consts[8];
  assert_true(__wrap_strcmp("bob", "alice") > 0); /* not noting: not noted */
  sf_cmp_trace_begin();
  assert_true(__wrap_strcmp("bob", "alice") > 0);
  assert_int_equal(__wrap_memcmp("REC1xyz", "REC1", 4), 0); /* equal: nothing to flip */
  assert_true(__wrap_memcmp("\x00\x01\x02\x03", "REC1", 4) < 0);
  assert_true(__wrap_strncmp("abcdef", "abcxyz", 4) != 0);
  char longer[64];
  memset(longer, 'x', sizeof longer - 1);
  longer[sizeof longer - 1] = 0;
  assert_true(__wrap_strcmp(longer, "y") < 0);
  sf_cmp_trace_end(consts, 8);
  uint32_t n = sf_cmp_trace_bytes_cmps(c, 8);
  assert_int_equal(n, 4);
  assert_true(has_bytes_pair(c, n, "bob", "alice"));
  assert_true(has_bytes_pair(c, n, "\x00\x01\x02\x03", "REC1") == false); /* strlen stops at NUL */
  assert_true(has_bytes_pair(c, n, "abcd", "abcx"));
  assert_true(has_bytes_pair(c, n, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "y"));
  bool binary = false;
  for (uint32_t k = 0; k < n; k++)
    binary |= c[k].len[0] == 4 && memcmp(c[k].side[0], "\x00\x01\x02\x03", 4) == 0 &&
              c[k].len[1] == 4 && memcmp(c[k].side[1], "REC1", 4) == 0;
  assert_true(binary);
  /* The next run notes the same pairs and a new one: the new one first. */
  sf_cmp_trace_begin();
  assert_true(__wrap_strcmp("bob", "alice") > 0);
  assert_true(__wrap_strcmp("carol", "alice") > 0);
  sf_cmp_trace_end(consts, 8);
  assert_int_equal(sf_cmp_trace_bytes_cmps(c, 1), 1);
  assert_true(has_bytes_pair(c, 1, "carol", "alice"));
}

/* Integer arguments watched while noting: one compared with another value
 * notes that value and its neighbours, one equal to what it was compared
 * with only the neighbours; a comparison site in a loop notes one unequal
 * comparison per argument and run; a negative argument gets values in its
 * own 64-bit representation; 0 and values watched outside a probe are
 * not watched; comparisons of two variables come first. */
static void test_args_compared(void **state) {
  (void)state;
  uint64_t pairs[64][2], consts[8];
  sf_cmp_trace_watch_arg(5); /* not noting */
  sf_cmp_trace_begin();
  __wrap___sanitizer_cov_trace_cmp4(9, 5); /* nothing watched yet */
  sf_cmp_trace_watch_arg(5);
  sf_cmp_trace_watch_arg(0);
  sf_cmp_trace_watch_arg((uint64_t)-3);
  __wrap___sanitizer_cov_trace_cmp4(9, 5); /* 9, 10, 8 */
  __wrap___sanitizer_cov_trace_cmp4(5, 5); /* 6, 4 */
  /* A loop (one site: not unrolled): 100, 101, 99, the first comparison only. */
#pragma clang loop unroll(disable)
  for (uint32_t i = 0; i < 4; i++)
    __wrap___sanitizer_cov_trace_cmp4(5, 100 + i);
  __wrap___sanitizer_cov_trace_const_cmp4(0xfffffff0u, (uint32_t)-3); /* -16, -15, -17 */
  __wrap___sanitizer_cov_trace_cmp8(0, 1000);                         /* no argument */
  sf_cmp_trace_end(consts, 8);
  uint32_t n = sf_cmp_trace_arg_cmps(pairs, 64);
  assert_int_equal(n, 11);
  const uint64_t want[][2] = {{5, 9},
                              {5, 10},
                              {5, 8},
                              {5, 6},
                              {5, 4},
                              {5, 100},
                              {5, 101},
                              {5, 99},
                              {(uint64_t)-3, (uint64_t)-16},
                              {(uint64_t)-3, (uint64_t)-15},
                              {(uint64_t)-3, (uint64_t)-17}};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++)
    assert_true(has_pair(pairs, n, want[k][0], want[k][1]));
  /* With little room, the pairs of two variables come before a constant's. */
  sf_cmp_trace_begin();
  sf_cmp_trace_watch_arg(7);
  __wrap___sanitizer_cov_trace_const_cmp4(1000, 7); /* 1000, 1001, 999 */
  __wrap___sanitizer_cov_trace_cmp4(7, 2000);       /* 2000, 2001, 1999 */
  sf_cmp_trace_end(consts, 8);
  assert_int_equal(sf_cmp_trace_arg_cmps(pairs, 3), 3);
  assert_true(has_pair(pairs, 3, 7, 2000) && has_pair(pairs, 3, 7, 2001) &&
              has_pair(pairs, 3, 7, 1999));
  /* A new run watches anew: 0 arguments, no pairs. */
  sf_cmp_trace_begin();
  __wrap___sanitizer_cov_trace_cmp4(9, 5);
  sf_cmp_trace_end(consts, 8);
  assert_int_equal(sf_cmp_trace_arg_cmps(pairs, 64), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_neighbours),      cmocka_unit_test(test_bytes_compared),
      cmocka_unit_test(test_new_pairs_first), cmocka_unit_test(test_separators),
      cmocka_unit_test(test_forwarding),      cmocka_unit_test(test_sites_are_the_callers),
      cmocka_unit_test(test_args_compared),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
