/* Known bugs (harness/known.h): which runs a pattern stops, and where. The
 * pattern is the demo's use-after-free as `seqfuzz known` generalizes it:
 * any capacity and flags, the same key put and deleted (any key), any
 * value, and the snapshot before or after the delete. */
#include "harness/known.h"
#include "test_util.h"

static const char pattern[] = "# a known bug: heap-use-after-free\n"
                              "# any: 1.1 1.2~3 2.2=2.2 3.2=2.2 2.3\n"
                              "# order: 1 2 4 3\n"
                              "h1 = kv_open(1, 0);\n"
                              "kv_put(h1, \"\", \"\");\n"
                              "kv_del(h1, \"\");\n"
                              "h2 = kv_snapshot(h1);\n"
                              "kv_compact(h1);\n";

/* A known-bug set holding `pattern`. */
static sf_known *known_with_pattern(const sf_api *api) {
  sf_known *k = sf_known_new(api);
  char err[512];
  assert_int_equal(sf_known_add_text(k, pattern, strlen(pattern), "p.seq", err, sizeof err), 0);
  return k;
}

/* The first call of run `text` the pattern stops, or -1. */
static int first_stop(const char *text) {
  sf_api *api = load_api_file(DEMO_API);
  sf_known *k = known_with_pattern(api);
  sf_seq s;
  sf_seq_init(&s, api);
  parse_seq_ok(&s, api, text);
  int at = -1;
  for (uint32_t ci = 0; ci < s.ncalls && at < 0; ci++)
    if (sf_known_stops(k, &s, ci)) at = (int)ci;
  sf_seq_free(&s);
  sf_known_free(k);
  sf_api_free(api);
  return at;
}

static void test_variants_stop_at_the_last_call(void **state) {
  (void)state;
  /* Another key, value, capacity and flags; calls between. */
  assert_int_equal(first_stop("h1 = kv_open(9, KV_NOCOPY); kv_count(h1); kv_put(h1, \"k\", \"v\"); "
                              "kv_del(h1, \"k\"); h2 = kv_snapshot(h1); kv_count(h2); "
                              "kv_compact(h1); kv_count(h1);"),
                   6);
  /* The snapshot before the delete (the other order). */
  assert_int_equal(first_stop("h1 = kv_open(1, 0); kv_put(h1, \"k\", \"v\"); h2 = kv_snapshot(h1); "
                              "kv_del(h1, \"k\"); kv_compact(h1);"),
                   4);
  /* Compacted through a snapshot of the store: the same root. */
  assert_int_equal(first_stop("h1 = kv_open(1, 0); kv_put(h1, \"k\", \"v\"); kv_del(h1, \"k\"); "
                              "h2 = kv_snapshot(h1); h3 = kv_snapshot(h1); kv_compact(h3);"),
                   5);
}

static void test_other_runs_go_on(void **state) {
  (void)state;
  /* Two different keys: not the bug. */
  assert_int_equal(first_stop("h1 = kv_open(1, 0); kv_put(h1, \"k\", \"v\"); kv_del(h1, \"j\"); "
                              "h2 = kv_snapshot(h1); kv_compact(h1);"),
                   -1);
  /* The delete before the put: an order the crash needs not. */
  assert_int_equal(first_stop("h1 = kv_open(1, 0); kv_del(h1, \"k\"); kv_put(h1, \"k\", \"v\"); "
                              "h2 = kv_snapshot(h1); kv_compact(h1);"),
                   -1);
  /* Two stores: the key put in one, deleted in the other. */
  assert_int_equal(first_stop("h1 = kv_open(1, 0); h2 = kv_open(1, 0); kv_put(h1, \"k\", \"v\"); "
                              "kv_del(h2, \"k\"); h3 = kv_snapshot(h1); kv_compact(h1);"),
                   -1);
}

/* One sequence object, run twice with different calls: the second run's
 * roots are its own (sf_known_begin_run), even where its first check comes
 * after every call the first run checked. */
static void test_a_new_run_forgets_the_last(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_known *k = known_with_pattern(api);
  sf_seq s;
  sf_seq_init(&s, api);
  /* h2 is a store of its own: its root is itself. */
  parse_seq_ok(&s, api,
               "h1 = kv_open(1, 0); h2 = kv_open(1, 0); kv_compact(h1); kv_compact(h1); "
               "kv_compact(h1); kv_compact(h2);");
  sf_known_begin_run(k);
  for (uint32_t ci = 0; ci < s.ncalls; ci++)
    assert_false(sf_known_stops(k, &s, ci));
  /* Now h2 is a snapshot of h1: compacting it compacts h1's root. */
  parse_seq_ok(&s, api,
               "h1 = kv_open(1, 0); h2 = kv_snapshot(h1); kv_put(h1, \"k\", \"v\"); "
               "kv_del(h1, \"k\"); h3 = kv_snapshot(h1); kv_compact(h2);");
  sf_known_begin_run(k);
  assert_true(sf_known_stops(k, &s, 5));
  sf_seq_free(&s);
  sf_known_free(k);
  sf_api_free(api);
}

static void test_bad_rules_are_errors(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_known *k = sf_known_new(api);
  char err[512];
  const char *bad[] = {"# any: 9.1\nh1 = kv_open(1, 0);\n", "# any: x\nh1 = kv_open(1, 0);\n",
                       "# order: 1 1\nh1 = kv_open(1, 0); kv_count(h1); kv_close(h1);\n",
                       "h1 = kv_open(1, 0"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    err[0] = 0;
    assert_int_equal(sf_known_add_text(k, bad[i], strlen(bad[i]), "bad.seq", err, sizeof err), -1);
    assert_non_null(strstr(err, "bad.seq:"));
  }
  assert_int_equal(sf_known_count(k), 0);
  sf_known_free(k);
  sf_api_free(api);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_variants_stop_at_the_last_call),
                                     cmocka_unit_test(test_other_runs_go_on),
                                     cmocka_unit_test(test_a_new_run_forgets_the_last),
                                     cmocka_unit_test(test_bad_rules_are_errors)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
