/* Run records: observers give abstract states, records are validated before
 * use, the shared-memory channel carries them between processes, and edges
 * reached for the first time are counted from the engine's counters. */
#include <sys/wait.h>
#include <unistd.h>

#include "harness/edges.h"
#include "harness/exec.h"
#include "harness/feedback.h"
#include "objlib.h"
#include "test_util.h"

/* States: equal observations give equal states, different ones differ, a
 * dead value and a type without observers give 0. */
static void test_states(void **state) {
  (void)state;
  sf_api *api = load_api_file(OBJLIB_API);
  char err[256];
  sf_exec *x = sf_exec_new(api, objlib_resolve, NULL, err, sizeof err);
  assert_non_null(x);
  sf_seq s;
  sf_seq_init(&s, api);
  objlib_reset();
  parse_seq_ok(&s, api,
               "h1 = obj_new(1); obj_keep(h1, \"abc\");\n"
               "h2 = obj_new(2); obj_keep(h2, \"xyz\");\n"
               "h3 = obj_new(3); obj_keep(h3, \"abcd\");\n"
               "h4 = obj_new(4); obj_free(h4);\n"
               "h5 = tok_open(false);\n");
  sf_feedback fb;
  assert_int_equal(sf_feedback_run(x, &s, 42, &fb), SF_RUN_OK);
  assert_true(sf_feedback_valid(&fb, 42));
  assert_int_equal(fb.nvalues, 5);
  assert_int_equal(fb.stop_call, s.ncalls);
  assert_int_not_equal(fb.state[0], 0);
  assert_int_equal(fb.state[0], fb.state[1]); /* both kept strings of length 3 */
  assert_int_not_equal(fb.state[0], fb.state[2]);
  assert_int_equal(fb.state[3], 0); /* destroyed */
  assert_int_equal(fb.state[4], 0); /* tok has no observer */
  assert_int_equal(objlib.live, 0);
  /* A run that stops records where. */
  parse_seq_ok(&s, api, "h1 = obj_new(1); obj_fail(h1, -1); obj_new(2);");
  assert_int_equal(sf_feedback_run(x, &s, 7, &fb), SF_RUN_ERROR_RESULT);
  /* The failed call ran legally; the one after it never ran. */
  assert_int_equal(fb.stop_call, 2);
  assert_true(sf_feedback_valid(&fb, 7));
  assert_true(sf_feedback_fails_last(&fb));
  /* A NULL handle is a precondition failure: only the calls before count. */
  parse_seq_ok(&s, api, "h1 = obj_maybe(0); obj_sum(h1, \"x\");");
  assert_int_equal(sf_feedback_run(x, &s, 8, &fb), SF_RUN_NULL_HANDLE);
  assert_int_equal(fb.stop_call, 1);
  assert_false(sf_feedback_fails_last(&fb));
  /* Observing every call takes time, counted for the probes' budget; a run
   * observing only at the end adds nothing to it. */
  double observed = sf_feedback_call_observation_seconds();
  parse_seq_ok(&s, api, "h1 = obj_new(1); obj_keep(h1, \"abc\"); obj_keep(h1, \"d\");");
  assert_int_equal(sf_feedback_run(x, &s, 9, &fb), SF_RUN_OK);
  assert_true(sf_feedback_call_observation_seconds() == observed);
  assert_int_equal(sf_feedback_run_calls(x, &s, 9, &fb), SF_RUN_OK);
  assert_true(fb.nobs > 0);
  assert_true(sf_feedback_call_observation_seconds() > observed);
  sf_seq_free(&s);
  sf_exec_free(x);
  sf_api_free(api);
}

static void test_validation(void **state) {
  (void)state;
  sf_feedback fb;
  memset(&fb, 0, sizeof fb);
  fb.version = SF_FB_VERSION;
  fb.input_hash = 99;
  fb.ncalls = 4;
  fb.stop_call = 2;
  fb.nvalues = 3;
  assert_false(sf_feedback_valid(&fb, 99)); /* no magic: torn or never written */
  fb.magic = SF_FB_MAGIC;
  assert_true(sf_feedback_valid(&fb, 99));
  assert_false(sf_feedback_valid(&fb, 98)); /* another input's record */
  assert_false(sf_feedback_valid(NULL, 99));
  fb.version = SF_FB_VERSION + 1;
  assert_false(sf_feedback_valid(&fb, 99));
  fb.version = SF_FB_VERSION;
  fb.nvalues = SF_FB_MAX_VALUES + 1;
  assert_false(sf_feedback_valid(&fb, 99));
  fb.nvalues = 3;
  fb.stop_call = 5; /* past the end */
  assert_false(sf_feedback_valid(&fb, 99));
  fb.stop_call = 2;
  fb.ncalls = SF_SEQ_MAX_CALLS + 1;
  assert_false(sf_feedback_valid(&fb, 99));
}

/* The channel: a child process (like the target under afl-fuzz) attaches by
 * the name in SEQFUZZ_SHM and writes a record the creator reads. */
static void test_channel(void **state) {
  (void)state;
  unsetenv(SF_SHM_ENV);
  assert_null(sf_channel_attach());
  sf_channel *c = sf_channel_create();
  assert_non_null(c);
  const char *name = getenv(SF_SHM_ENV);
  assert_non_null(name);
  pid_t pid = fork();
  if (pid == 0) {
    sf_channel *t = sf_channel_attach();
    if (!t) _exit(2);
    sf_feedback *fb = sf_channel_record(t);
    fb->version = SF_FB_VERSION;
    fb->input_hash = 1234;
    fb->ncalls = 3;
    fb->stop_call = 3;
    fb->nvalues = 1;
    fb->state[0] = 77;
    fb->magic = SF_FB_MAGIC;
    sf_channel_close(t);
    _exit(0);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const sf_feedback *fb = sf_channel_record(c);
  assert_true(sf_feedback_valid(fb, 1234));
  assert_int_equal(fb->state[0], 77);
  char path[128];
  snprintf(path, sizeof path, "/dev/shm%s", name);
  assert_int_equal(access(path, F_OK), 0);
  sf_channel_close(c);
  assert_int_not_equal(access(path, F_OK), 0); /* the creator removed it */
  unsetenv(SF_SHM_ENV);
}

/* Counter tables as the instrumentation registers them (this test binary
 * has no engine: the wrapper only notes them): an edge counts the first
 * time a run shows it, and clearing readies the counters for a run. */
void __wrap___sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop);

static void test_new_edges(void **state) {
  (void)state;
  static uint8_t module_a[21], module_b[3];
  assert_false(sf_edges_available());
  __wrap___sanitizer_cov_8bit_counters_init(module_a, module_a + sizeof module_a);
  __wrap___sanitizer_cov_8bit_counters_init(module_b, module_b + sizeof module_b);
  assert_true(sf_edges_available());
  module_a[0] = 1;
  module_a[9] = 200; /* inside a word of zeros and ones */
  module_a[20] = 3;  /* in the tail that is not a whole word */
  module_b[1] = 1;
  assert_int_equal(sf_edges_new(), 4);
  assert_int_equal(sf_edges_new(), 0); /* seen: no longer new */
  sf_edges_clear();
  for (size_t i = 0; i < sizeof module_a; i++)
    assert_int_equal(module_a[i], 0);
  assert_int_equal(module_b[1], 0);
  module_a[9] = 1; /* seen before */
  assert_false(sf_edges_any_new());
  module_a[10] = 1;
  module_b[2] = 7;
  /* Asked only: nothing counts as seen. */
  assert_true(sf_edges_any_new());
  assert_true(sf_edges_any_new());
  assert_int_equal(sf_edges_new(), 2);
  assert_false(sf_edges_any_new());
  assert_int_equal(sf_edges_seen(), 6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_states),
      cmocka_unit_test(test_validation),
      cmocka_unit_test(test_channel),
      cmocka_unit_test(test_new_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
