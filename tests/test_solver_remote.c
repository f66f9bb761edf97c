/* The solver server and its client (the AFL++ path), end to end with a real
 * tracing build: solverlib_fuzzer serves; the client tells it about the seed
 * and every result, as afl-fuzz's queue would, and asks for steps. The
 * server must flip `a + b == 1000003`, then `a - b == 77` behind it, and
 * hand over the input that crashes the target (its attempt's child crashed,
 * the server did not). */
#include "solver/remote.h"
#include "test_util.h"

static void test_server_flips_both_guards(void **state) {
  (void)state;
  sf_api *api = load_api_file(SOLVERLIB_API);
  sf_solver_client *c = sf_solver_client_start(SOLVERLIB_FUZZER);
  assert_non_null(c);
  sf_seq s;
  sf_seq_init(&s, api);
  parse_seq_ok(&s, api, "h1 = pair_new(); pair_note(h1, 1, 2);");
  sf_buf b = {0};
  assert_int_equal(sf_seq_encode(&s, &b), 0);
  sf_solver_client_observe(c, b.data, b.len);
  bool sum = false, both = false;
  sf_solver_stats st = {0};
  for (int step = 0; step < 200 && !both; step++) {
    sf_buf_reset(&b);
    int rc = sf_solver_client_step(c, &b, &st);
    assert_true(rc >= 0);
    if (rc != 1) continue;
    assert_int_equal(sf_seq_decode(&s, api, b.data, b.len), SF_DECODE_OK);
    assert_valid(&s);
    for (uint32_t i = 0; i < s.ncalls; i++) {
      if (strcmp(sf_seq_func(&s, i)->name, "pair_note")) continue;
      uint32_t x = (uint32_t)sf_seq_args(&s, i)[1].bits, y = (uint32_t)sf_seq_args(&s, i)[2].bits;
      sum |= x + y == 1000003u;
      both |= x + y == 1000003u && x - y == 77u;
    }
    sf_solver_client_observe(c, b.data, b.len); /* as a new queue entry */
  }
  assert_true(sum);
  assert_true(both);
  /* The crashing input came back from an attempt's child; the server lives. */
  assert_true(st.crashes >= 1 || st.flips >= 2);
  sf_buf_reset(&b);
  assert_true(sf_solver_client_step(c, &b, &st) >= 0);
  sf_buf_free(&b);
  sf_seq_free(&s);
  sf_solver_client_free(c);
  sf_api_free(api);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_server_flips_both_guards)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
