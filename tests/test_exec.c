/* The executor against objlib (a library that counts misuse instead of
 * crashing): ownership, error conventions, NULL handles, buffers, cleanup. */
#include "harness/exec.h"
#include "objlib.h"
#include "test_util.h"

typedef struct fixture {
  sf_api *api;
  sf_exec *x;
  sf_seq s;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  f->api = load_api_file(OBJLIB_API);
  char err[256];
  f->x = sf_exec_new(f->api, objlib_resolve, NULL, err, sizeof err);
  assert_non_null(f->x);
  sf_seq_init(&f->s, f->api);
  objlib_reset();
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  sf_seq_free(&f->s);
  sf_exec_free(f->x);
  sf_api_free(f->api);
  free(f);
  return 0;
}

static sf_run_result run_text(fixture *f, const char *text) {
  parse_seq_ok(&f->s, f->api, text);
  sf_run_result r;
  sf_exec_run(f->x, &f->s, NULL, &r);
  return r;
}

static void test_cleanup_destroys_owned_handles(void **state) {
  fixture *f = *state;
  sf_run_result r = run_text(f, "h1 = obj_new(1); h2 = obj_new(2); h3 = obj_new(3); obj_free(h2);");
  assert_int_equal(r.status, SF_RUN_OK);
  assert_int_equal(r.calls_made, 4);
  assert_int_equal(objlib.live, 0);
  assert_int_equal(objlib.freed, 3);
  assert_int_equal(objlib.double_frees, 0);
}

static void test_consumed_handle_is_not_freed_again(void **state) {
  fixture *f = *state;
  sf_run_result r = run_text(f, "h1 = obj_new(1); h2 = obj_new(2); obj_adopt(h1, h2);\n"
                                "h3 = obj_child(h1, 0); obj_sum(h3, \"ab\");");
  assert_int_equal(r.status, SF_RUN_OK);
  assert_int_equal(objlib.live, 0); /* h2 freed by h1's destructor, h3 owned */
  assert_int_equal(objlib.double_frees, 0);
  assert_int_equal(objlib.bad_uses, 0);
}

static void test_failed_consume_keeps_ownership(void **state) {
  fixture *f = *state;
  /* The parent has room for two: the third adopt fails and consumes nothing. */
  sf_run_result r =
      run_text(f, "h1 = obj_new(1); h2 = obj_new(2); h3 = obj_new(3); h4 = obj_new(4);\n"
                  "obj_adopt(h1, h2); obj_adopt(h1, h3); obj_adopt(h1, h4); obj_new(5);");
  assert_int_equal(r.status, SF_RUN_ERROR_RESULT);
  assert_int_equal(r.stop_call, 6);
  assert_int_equal(r.calls_made, 7);
  assert_int_equal(objlib.live, 0); /* h4 still ours: destroyed at the end */
  assert_int_equal(objlib.double_frees, 0);
}

static void test_error_convention_stops(void **state) {
  fixture *f = *state;
  sf_run_result r = run_text(f, "h1 = obj_new(1); obj_fail(h1, 0); obj_fail(h1, -3); obj_new(9);");
  assert_int_equal(r.status, SF_RUN_ERROR_RESULT);
  assert_int_equal(r.stop_call, 2);
  assert_int_equal(objlib.live, 0);
  /* Legal: the library refused an argument; obj_new(9) never ran. */
  assert_true(sf_run_legal(&r));
  assert_int_equal(sf_run_legal_calls(&r, &f->s), 3);
  /* A NULL from a constructor with `error null` produces nothing. */
  objlib_reset();
  r = run_text(f, "h1 = obj_new(-1); obj_sum(h1, \"\");");
  assert_int_equal(r.status, SF_RUN_ERROR_RESULT);
  assert_int_equal(r.stop_call, 0);
  assert_int_equal(objlib.bad_uses, 0);
  assert_true(sf_run_legal(&r));
  assert_int_equal(sf_run_legal_calls(&r, &f->s), 1);
  /* A run to the end: every call. */
  objlib_reset();
  r = run_text(f, "h1 = obj_new(1); obj_fail(h1, 0);");
  assert_int_equal(r.status, SF_RUN_OK);
  assert_true(sf_run_legal(&r));
  assert_int_equal(sf_run_legal_calls(&r, &f->s), 2);
}

static void test_null_handle_is_not_passed(void **state) {
  fixture *f = *state;
  sf_run_result r = run_text(f, "h1 = obj_maybe(0); obj_sum(h1, \"x\"); obj_new(3);");
  assert_int_equal(r.status, SF_RUN_NULL_HANDLE);
  assert_int_equal(r.stop_call, 1);
  assert_int_equal(r.calls_made, 1);
  assert_false(sf_run_legal(&r)); /* a precondition failed */
  assert_int_equal(sf_run_legal_calls(&r, &f->s), 1);
  assert_int_equal(objlib.bad_uses, 0);
  assert_int_equal(objlib.double_frees, 0); /* the NULL was never destroyed */
}

static void test_buffers_and_lengths(void **state) {
  fixture *f = *state;
  sf_run_result r = run_text(f, "h1 = obj_new(1); obj_sum(h1, x\"0102ff\");");
  assert_int_equal(r.status, SF_RUN_OK);
  assert_int_equal(objlib.last_n, 3);
  assert_int_equal(objlib.last_sum, 1 + 2 + 255);
}

static void last_ret(void *ctx, sf_exec *x, const sf_seq *s, const sf_call_outcome *o) {
  (void)x;
  (void)s;
  *(int64_t *)ctx = (int64_t)o->ret;
}

/* A kept string outlives the call that passed it (ASan would see a use after
 * free otherwise). */
static void test_kept_string(void **state) {
  fixture *f = *state;
  parse_seq_ok(&f->s, f->api,
               "h1 = obj_new(1); obj_keep(h1, \"hello\"); obj_new(2); obj_kept_len(h1);");
  int64_t ret = 0;
  sf_exec_hooks hooks = {&ret, last_ret, NULL};
  sf_run_result r;
  assert_int_equal(sf_exec_run(f->x, &f->s, &hooks, &r), SF_RUN_OK);
  assert_int_equal(ret, 5);
}

static void capture(void *ctx, sf_exec *x, const sf_seq *s, const sf_call_outcome *o) {
  (void)x;
  (void)s;
  if (o->str) snprintf(ctx, 64, "%s", o->str);
}

static void test_released_results(void **state) {
  fixture *f = *state;
  parse_seq_ok(&f->s, f->api, "h1 = obj_new(42); obj_name(h1); obj_name(h1);");
  char seen[64] = "";
  sf_exec_hooks hooks = {seen, capture, NULL};
  sf_run_result r;
  assert_int_equal(sf_exec_run(f->x, &f->s, &hooks, &r), SF_RUN_OK);
  assert_string_equal(seen, "obj-42");
  assert_int_equal(objlib.names_released, 2); /* else LeakSanitizer reports a leak */
}

static void test_failed_destructor_still_consumes(void **state) {
  fixture *f = *state;
  sf_run_result r = run_text(f, "h1 = tok_open(true); h2 = tok_open(false); tok_close(h1);");
  assert_int_equal(r.status, SF_RUN_ERROR_RESULT);
  assert_int_equal(objlib.toks_live, 0);
  assert_int_equal(objlib.double_frees, 0);
}

static void test_deterministic_and_reusable(void **state) {
  fixture *f = *state;
  for (int i = 0; i < 3; i++) {
    objlib_reset();
    sf_run_result r =
        run_text(f, "h1 = obj_new(1); obj_sum(h1, \"abc\"); h2 = obj_new(2); obj_adopt(h1, h2);");
    assert_int_equal(r.status, SF_RUN_OK);
    assert_int_equal(objlib.last_sum, 'a' + 'b' + 'c');
    assert_int_equal(objlib.live, 0);
  }
}

static void test_missing_symbol(void **state) {
  fixture *f = *state;
  sf_api *api = parse_api_text("api m; func void not_there(int x);");
  char err[256];
  assert_null(sf_exec_new(api, objlib_resolve, NULL, err, sizeof err));
  assert_string_equal(err, "not_there: symbol not found");
  sf_api_free(api);
  (void)f;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_cleanup_destroys_owned_handles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_consumed_handle_is_not_freed_again, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failed_consume_keeps_ownership, setup, teardown),
      cmocka_unit_test_setup_teardown(test_error_convention_stops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_null_handle_is_not_passed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_buffers_and_lengths, setup, teardown),
      cmocka_unit_test_setup_teardown(test_kept_string, setup, teardown),
      cmocka_unit_test_setup_teardown(test_released_results, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failed_destructor_still_consumes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deterministic_and_reusable, setup, teardown),
      cmocka_unit_test_setup_teardown(test_missing_symbol, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
