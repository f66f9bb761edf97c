/* The solver server and its client (both engines' path), end to end with a real
 * tracing build: solverlib_fuzzer serves; the client tells it about the seed
 * and every result, as afl-fuzz's queue would, and asks for steps. The
 * server must flip `a + b == 1000003`, then `a - b == 77` behind it, and
 * hand over the input that crashes the target (its attempt's child crashed,
 * the server did not). */
#include <sys/stat.h>
#include <unistd.h>

#include "harness/feedback.h"
#include "solver/remote.h"
#include "test_util.h"

/* solverlib's API, solverlib_fuzzer started as a server, s ready for it. */
static sf_solver_client *start_server(sf_api **api, sf_seq *s) {
  *api = load_api_file(SOLVERLIB_API);
  sf_solver_client *c = sf_solver_client_start(SOLVERLIB_FUZZER);
  assert_non_null(c);
  sf_seq_init(s, *api);
  return c;
}

/* The seed the tests show the server, encoded into out: one note whose two
 * guards are unmet. */
static void encode_seed(const sf_api *api, sf_seq *s, sf_buf *out) {
  parse_seq_ok(s, api, "h1 = pair_new(); pair_note(h1, 1, 2);");
  assert_int_equal(sf_seq_encode(s, out), 0);
}

static void test_server_flips_both_guards(void **state) {
  (void)state;
  sf_api *api;
  sf_seq s;
  sf_solver_client *c = start_server(&api, &s);
  sf_buf b = {0};
  encode_seed(api, &s, &b);
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

/* The answers carry what the server saw the target compare with while it
 * observed (the constant 1000003), once: afl-fuzz's mutator learns them
 * so, its own build tracing nothing. */
static void test_answers_carry_hints(void **state) {
  (void)state;
  sf_api *api;
  sf_seq s;
  sf_solver_client *c = start_server(&api, &s);
  sf_solver_hints h;
  assert_false(sf_solver_client_take_hints(c, &h));
  sf_buf b = {0};
  encode_seed(api, &s, &b);
  sf_solver_client_observe(c, b.data, b.len);
  assert_true(sf_solver_client_step(c, &b, NULL) >= 0);
  assert_true(sf_solver_client_take_hints(c, &h));
  bool found = false;
  for (uint32_t i = 0; i < h.nconsts; i++)
    found |= h.consts[i] == 1000003u;
  assert_true(found);
  assert_false(sf_solver_client_take_hints(c, &h)); /* taken */
  sf_buf_free(&b);
  sf_seq_free(&s);
  sf_solver_client_free(c);
  sf_api_free(api);
}

/* And per entry, what its integer arguments were compared with: magiclib's
 * dial compares its number with the lock's combination, a value no
 * constant names. */
static void test_answers_carry_argument_pairs(void **state) {
  (void)state;
  sf_api *api = load_api_file(DIAL_API);
  sf_solver_client *c = sf_solver_client_start(DIAL_FUZZER);
  assert_non_null(c);
  sf_seq s;
  sf_seq_init(&s, api);
  parse_seq_ok(&s, api, "h1 = lock_new(); lock_dial(h1, 5);");
  sf_buf b = {0};
  assert_int_equal(sf_seq_encode(&s, &b), 0);
  uint64_t input = sf_feedback_input_hash(b.data, b.len);
  sf_solver_client_observe(c, b.data, b.len);
  sf_buf out = {0};
  assert_true(sf_solver_client_step(c, &out, NULL) >= 0);
  sf_solver_hints h;
  assert_true(sf_solver_client_take_hints(c, &h));
  bool found = false;
  for (uint32_t i = 0; i < h.nargs; i++)
    found |= h.args[i].input == input && h.args[i].pair[0] == 5 && h.args[i].pair[1] == 0x5EED1234u;
  assert_true(found);
  sf_buf_free(&out);
  sf_buf_free(&b);
  sf_seq_free(&s);
  sf_solver_client_free(c);
  sf_api_free(api);
}

/* The server's learning is solver time: an entry goes to it only while the
 * learning's guessed costs, summed, keep within the share, except the
 * server's own results, which it must see to count them kept. Learning
 * comes first: attempts that spent the share do not refuse it, and wait
 * while its guesses are not paid by an answer. */
static void test_learning_within_budget(void **state) {
  (void)state;
  sf_solver_budget b;
  sf_solver_budget_init(&b, 10);
  b.start -= 10; /* 10 s ago at 10%: 1 s of solver time */
  assert_true(sf_solver_budget_learn(&b, 0.4, 0));
  assert_false(sf_solver_budget_learn(&b, 0.4, 0.3)); /* 0.3 s kept for a start-up */
  assert_true(sf_solver_budget_learn(&b, 0.4, 0));
  assert_false(sf_solver_budget_learn(&b, 0.4, 0)); /* 1.2 s of learning */
  assert_false(sf_solver_budget_affords(&b, 0.3));  /* 0.8 s unpaid */
  /* An answer: the real times, 0.1 s of which 0.05 s learning. */
  sf_solver_budget_spent(&b, 0.1, 0.05, true);
  assert_true(sf_solver_budget_affords(&b, 0.3));
  assert_true(sf_solver_budget_learn(&b, 0.4, 0));  /* 0.45 s */
  assert_true(sf_solver_budget_learn(&b, 0.4, 0));  /* 0.85 s */
  assert_false(sf_solver_budget_learn(&b, 0.4, 0)); /* the learning's own sum */
  /* Learning that cost more than its guesses (0.8 s): the real time counts. */
  sf_solver_budget_spent(&b, 0.9, 0.9, true); /* 0.05 + 0.9 */
  assert_false(sf_solver_budget_learn(&b, 0.1, 0));
  sf_solver_budget_init(&b, 10);
  b.start -= 10;
  b.spent = 5; /* attempts took five times the share */
  assert_false(sf_solver_budget_affords(&b, 0.1));
  assert_true(sf_solver_budget_learn(&b, 0.4, 0));

  sf_api *api;
  sf_seq s;
  sf_solver_client *c = start_server(&api, &s);
  sf_buf in = {0}, out = {0};
  encode_seed(api, &s, &in);
  sf_solver_stats st = {0};
  b.learnt = 1e9; /* no budget left: the seed is not sent */
  sf_solver_client_learn(c, &b, 0.001, in.data, in.len);
  assert_true(sf_solver_client_step(c, &out, &st) >= 0);
  assert_int_equal(st.sites, 0);
  sf_solver_budget_init(&b, 100);
  b.start -= 10;
  sf_solver_client_learn(c, &b, 0.001, in.data, in.len);
  int rc = 0;
  for (int step = 0; step < 200 && rc != 1; step++) {
    sf_buf_reset(&out);
    rc = sf_solver_client_step(c, &out, &st);
    assert_true(rc >= 0);
  }
  assert_int_equal(rc, 1);
  assert_true(st.sites > 0);
  uint64_t confirmed = st.confirmed;
  b.learnt = 1e9; /* a result goes all the same */
  sf_solver_client_learn(c, &b, 0.001, out.data, out.len);
  sf_buf_reset(&out);
  assert_true(sf_solver_client_step(c, &out, &st) >= 0);
  assert_int_equal(st.confirmed, confirmed + 1);
  sf_buf_free(&in);
  sf_buf_free(&out);
  sf_seq_free(&s);
  sf_solver_client_free(c);
  sf_api_free(api);
}

/* The share follows the solver's yield: a fifth once 8 attempts or more,
 * or 10 s of its time, kept fewer than one flip in 16 (none: fewer), the
 * whole again when flips are kept, or kept faster per second than the
 * engine finds entries; earlier processes' counts (a fork-mode campaign)
 * count alike. A stall multiplies only the whole share. */
static void test_share_follows_yield(void **state) {
  (void)state;
  sf_solver_budget b;
  sf_solver_budget_init(&b, 10);
  b.start -= 10; /* 1 s of solver time at the full share */
  b.spent = 0.5;
  sf_solver_budget_yield(&b, 7, 0); /* too few attempts to tell */
  assert_true(sf_solver_budget_affords(&b, 0.4));
  sf_solver_budget_yield(&b, 8, 0);
  assert_false(sf_solver_budget_affords(&b, 0)); /* 0.2 s now */
  sf_solver_budget_yield(&b, 32, 2);             /* one kept in 16 */
  assert_true(sf_solver_budget_affords(&b, 0.4));
  /* Fewer, while the engine finds entries faster (50 just now: 5 a second
   * against the solver's 4). */
  for (int i = 0; i < 50; i++)
    sf_solver_budget_new_input(&b);
  sf_solver_budget_yield(&b, 33, 2);
  assert_false(sf_solver_budget_affords(&b, 0));
  /* 2 kept in 33 attempts, in 1 s of the solver's time, while the engine
   * found nothing lately: the solver pays. */
  sf_solver_budget_init(&b, 10);
  b.start -= 100; /* 10 s at the full share, 2 s at a fifth */
  b.spent = 1;
  sf_solver_budget_yield(&b, 33, 2);
  assert_true(sf_solver_budget_affords(&b, 5));
  /* The engine finds 50 entries just now (5 a second over the 10-s window
   * against the solver's 2): it does not; 20 s later, with no find since,
   * it does again. */
  for (int i = 0; i < 50; i++)
    sf_solver_budget_new_input(&b);
  assert_false(sf_solver_budget_affords(&b, 5));
  assert_true(sf_solver_budget_affords(&b, 0.5));
  b.window_start -= 20;
  assert_true(sf_solver_budget_affords(&b, 5));
  /* Without a kept flip, no engine rate makes it pay. */
  sf_solver_budget_yield(&b, 33, 0);
  assert_false(sf_solver_budget_affords(&b, 1.5));
  /* No attempt at all, 10 s spent learning: a fifth as well. */
  sf_solver_budget_init(&b, 10);
  b.start -= 200; /* 20 s at the full share */
  b.spent = 9;
  assert_true(sf_solver_budget_affords(&b, 0.5));
  b.spent = 10;
  assert_false(sf_solver_budget_affords(&b, 0)); /* 4 s now */
  sf_solver_budget_yield(&b, 1, 1);              /* a kept flip pays */
  assert_true(sf_solver_budget_affords(&b, 5));
  /* The campaign's earlier jobs made 40 attempts and kept nothing: a new
   * job starts at a fifth, and its own first kept flips restore the share. */
  sf_solver_budget_init(&b, 10);
  b.start -= 10;
  sf_solver_budget_past(&b, 40, 0, 3);
  assert_false(sf_solver_budget_affords(&b, 0.3));
  assert_true(sf_solver_budget_affords(&b, 0.1));
  sf_solver_budget_yield(&b, 3, 3);
  assert_true(sf_solver_budget_affords(&b, 0.9));
  sf_solver_budget_init(&b, 10);
  b.start -= 10;
  sf_solver_budget_past(&b, 0, 0, 12); /* their time alone */
  assert_false(sf_solver_budget_affords(&b, 0.3));
  /* Coverage stalls (no new entry for 20 s): four times the share while
   * the solver may pay, but not four times the fifth of one that does not. */
  sf_solver_budget_init(&b, 10);
  b.start -= 20;
  b.last_new -= 20;
  sf_solver_budget_yield(&b, 7, 0);
  assert_true(sf_solver_budget_affords(&b, 7)); /* 8 s: 4 x 10% of 20 s */
  sf_solver_budget_yield(&b, 8, 0);
  assert_false(sf_solver_budget_affords(&b, 0.5)); /* 0.4 s: a fifth, no more */
  assert_true(sf_solver_budget_affords(&b, 0.3));
}

/* An entry the budget could not pay to learn waits, and the server learns
 * it before a later step of the engines' stage, once the budget can pay:
 * the only entry that reaches a guard, met while the budget was spent,
 * still gets its guard flipped, though a hundred more came after it (as at
 * an AFL++ run's start, before the server can start). */
static void test_refused_entries_wait(void **state) {
  (void)state;
  sf_api *api;
  sf_seq s;
  sf_solver_client *c = start_server(&api, &s);
  sf_buf in = {0}, out = {0}, other = {0};
  parse_seq_ok(&s, api, "h1 = pair_new();"); /* reaches no guard */
  assert_int_equal(sf_seq_encode(&s, &other), 0);
  encode_seed(api, &s, &in);
  sf_solver_budget b;
  sf_solver_budget_init(&b, 10);
  b.learnt = 1e9; /* nothing left: the entry is not learnt now */
  sf_solver_client_learn(c, &b, 0.001, in.data, in.len);
  for (int i = 0; i < 100; i++)
    sf_solver_client_learn(c, &b, 0.001, other.data, other.len);
  sf_solver_stats st = {0};
  assert_true(sf_solver_client_step(c, &out, &st) >= 0);
  assert_int_equal(st.sites, 0);
  sf_solver_budget_init(&b, 100);
  b.start -= 10;
  int rc = 0;
  for (int i = 0; i < 200000 && rc != 1; i++) {
    sf_buf_reset(&out);
    rc = sf_solver_client_stage(&c, &b, &out, 1 << 20, &st);
    assert_true(rc >= 0);
    if (i % 16 == 15) usleep(200);
  }
  assert_int_equal(rc, 1); /* without the wait: no site, no result */
  assert_true(st.sites > 0);
  sf_buf_free(&in);
  sf_buf_free(&out);
  sf_buf_free(&other);
  sf_seq_free(&s);
  sf_solver_client_free(c);
  sf_api_free(api);
}

/* The engines' stage: asks for a step when the budget allows and never
 * waits for the answer; a later call takes it and charges the server's CPU
 * time (the server learns between steps, in its own process, while nobody
 * waits for it); a result larger than asked for is not handed over. */
static void test_stage_charges_server_cpu(void **state) {
  (void)state;
  sf_api *api;
  sf_seq s;
  sf_solver_client *c = start_server(&api, &s);
  sf_buf in = {0}, out = {0};
  char text[128];
  for (int i = 0; i < 2000; i++) {
    snprintf(text, sizeof text, "h1 = pair_new(); pair_note(h1, %d, %d);", i, 2 * i + 1);
    parse_seq_ok(&s, api, text);
    sf_buf_reset(&in);
    assert_int_equal(sf_seq_encode(&s, &in), 0);
    sf_solver_client_observe(c, in.data, in.len);
  }
  sf_solver_budget b;
  sf_solver_budget_init(&b, 100);
  sf_solver_stats st = {0};
  /* The server is still learning: the step is asked for, not answered;
   * what the budget counts so far is the learning read from /proc before
   * the step was asked for (none, if the server has not used a tick yet). */
  assert_int_equal(sf_solver_client_stage(&c, &b, &out, 4, &st), 0);
  assert_int_equal(st.attempts, 0);
  assert_true(b.spent == b.learnt);
  /* No input fits in 4 bytes: the step's result is dropped. */
  for (int i = 0; i < 60000 && st.attempts == 0; i++) {
    assert_int_equal(sf_solver_client_stage(&c, &b, &out, 4, &st), 0);
    usleep(1000);
  }
  assert_int_equal(st.attempts, 1);
  assert_int_equal(out.len, 0);
  double cpu = sf_solver_client_cpu(c);
  assert_true(cpu > 0);
  /* All of it: learning, start-up, the attempt. The budget sums the
   * microseconds of each charge as seconds in doubles, which can fall one
   * rounding step short of the total (0.043399999999999994 against 0.0434,
   * one run in 20): equal within a microsecond. */
  assert_true(b.spent >= cpu - 1e-6);
  /* Over budget: no step is asked for. */
  sf_solver_budget_init(&b, 0);
  b.spent = 1;
  for (int i = 0; i < 200; i++) {
    assert_int_equal(sf_solver_client_stage(&c, &b, &out, 1 << 20, &st), 0);
    usleep(1000);
  }
  assert_int_equal(st.attempts, 1);
  sf_buf_free(&in);
  sf_buf_free(&out);
  sf_seq_free(&s);
  sf_solver_client_free(c);
  sf_api_free(api);
}

/* A deferred server starts only once the budget can pay for its start-up;
 * what was observed before reaches it then (here the only input it ever
 * gets, whose guard it must flip). */
static void test_deferred_start_keeps_inputs(void **state) {
  (void)state;
  sf_api *api = load_api_file(SOLVERLIB_API);
  sf_seq s;
  sf_seq_init(&s, api);
  sf_solver_budget b;
  sf_solver_budget_init(&b, 100);
  sf_solver_client *c = sf_solver_client_deferred(SOLVERLIB_FUZZER, 0.3);
  assert_non_null(c);
  sf_buf in = {0}, out = {0};
  encode_seed(api, &s, &in);
  sf_solver_client_observe(c, in.data, in.len);
  sf_solver_stats st = {0};
  assert_int_equal(sf_solver_client_stage(&c, &b, &out, 1 << 20, &st), 0);
  assert_false(sf_solver_client_started(c)); /* 0.3 s of start-up: not affordable yet */
  bool sum = false;
  for (int i = 0; i < 60000 && !sum; i++) {
    sf_buf_reset(&out);
    int rc = sf_solver_client_stage(&c, &b, &out, 1 << 20, &st);
    assert_true(rc >= 0);
    if (rc == 1) {
      assert_int_equal(sf_seq_decode(&s, api, out.data, out.len), SF_DECODE_OK);
      for (uint32_t k = 0; k < s.ncalls; k++)
        if (!strcmp(sf_seq_func(&s, k)->name, "pair_note"))
          sum |= (uint32_t)sf_seq_args(&s, k)[1].bits + (uint32_t)sf_seq_args(&s, k)[2].bits ==
                 1000003u;
    }
    usleep(1000);
  }
  assert_true(sf_solver_client_started(c));
  assert_true(sf_seconds_now() - b.start >= 0.3);
  assert_true(sum);
  sf_buf_free(&in);
  sf_buf_free(&out);
  sf_seq_free(&s);
  sf_solver_client_free(c);
  sf_api_free(api);
}

/* A stand-in server: the shell script `script`, started by a client (the
 * script's path is written to path, to be unlinked by the caller). */
static sf_solver_client *start_script(char *path, const char *script) {
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  size_t n = strlen(script);
  assert_int_equal(write(fd, script, n), (ssize_t)n);
  close(fd);
  assert_int_equal(chmod(path, 0700), 0);
  sf_solver_client *c = sf_solver_client_start(path);
  assert_non_null(c);
  return c;
}

/* Learning's real cost counts before any answer: a server that burns CPU
 * while no step is asked for (here a busy shell loop, reading nothing) is
 * charged from /proc (the loop ends after 15 s of CPU time, should a
 * failed assertion skip the client's end), the guesses (1 ms an entry) replaced by its real
 * time, and learning then stops. With only the guesses, learning at 1%
 * would stop at 20 ms and grow by 10 ms a second, never seeing the
 * server's time. */
static void test_learning_charged_between_answers(void **state) {
  (void)state;
  char path[] = "/tmp/seqfuzz-busy-server-XXXXXX";
  sf_solver_client *c = start_script(path, "#!/bin/sh\nulimit -t 15\nwhile :; do :; done\n");
  sf_solver_budget b;
  sf_solver_budget_init(&b, 1);
  b.start -= 2;
  uint8_t entry[16] = {0};
  /* Within 10 s the guesses alone could reach 0.12 s at most. */
  for (int i = 0; sf_seconds_now() - b.start < 12 && b.learnt < 0.3; i++) {
    entry[0] = (uint8_t)i;
    sf_solver_client_learn(c, &b, 0.001, entry, sizeof entry);
    usleep(10000);
  }
  assert_true(b.learnt >= 0.3);
  assert_true(b.spent >= 0.3);
  assert_false(sf_solver_budget_learn(&b, 0.001, 0));
  sf_solver_client_free(c);
  unlink(path);
}

/* A server of another build (here a script whose answer is well formed
 * but for its version: no result, zero statistics and CPU time) is given up
 * on at its first answer, not restarted over and over, and the stage says
 * so (-1, the client freed). */
#define ANSWER_REST "124" /* u32 length, sf_solver_stats, u64 CPU time */
_Static_assert(4 + sizeof(sf_solver_stats) + 8 == 124, "ANSWER_REST");
static void test_other_protocol_is_given_up(void **state) {
  (void)state;
  char path[] = "/tmp/seqfuzz-old-server-XXXXXX";
  sf_solver_client *c =
      start_script(path, "#!/bin/sh\nhead -c 9 >/dev/null\nprintf SFV1\nhead -c " ANSWER_REST
                         " /dev/zero\nexec sleep 30\n");
  sf_solver_budget b;
  sf_solver_budget_init(&b, 100);
  sf_solver_stats st = {0};
  sf_buf out = {0};
  int rc = 0;
  for (int i = 0; i < 10000 && rc == 0; i++) {
    rc = sf_solver_client_stage(&c, &b, &out, 1 << 20, &st);
    usleep(1000);
  }
  assert_int_equal(rc, -1);
  assert_null(c);
  sf_buf_free(&out);
  unlink(path);
}

/* A server that reads nothing (busy with a long step) never holds the
 * engine up: inputs that do not fit in the pipe are not sent. Were the
 * writes blocking, the alarm would end the test. */
static void test_observe_never_blocks(void **state) {
  (void)state;
  char path[] = "/tmp/seqfuzz-deaf-server-XXXXXX";
  sf_solver_client *c = start_script(path, "#!/bin/sh\nexec sleep 30\n");
  static uint8_t input[10000];
  /* Sizes that fill the pipe's pages worst: a frame (5 bytes more) just over
   * half a page, just over a page. */
  const size_t sizes[] = {1024, 2044, 4092, 10000};
  alarm(20);
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
    for (int i = 0; i < 2000; i++) /* megabytes: more than any pipe holds */
      sf_solver_client_observe(c, input, sizes[k]);
  alarm(0);
  sf_solver_client_free(c);
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_server_flips_both_guards),
                                     cmocka_unit_test(test_answers_carry_hints),
                                     cmocka_unit_test(test_answers_carry_argument_pairs),
                                     cmocka_unit_test(test_stage_charges_server_cpu),
                                     cmocka_unit_test(test_learning_within_budget),
                                     cmocka_unit_test(test_share_follows_yield),
                                     cmocka_unit_test(test_refused_entries_wait),
                                     cmocka_unit_test(test_learning_charged_between_answers),
                                     cmocka_unit_test(test_deferred_start_keeps_inputs),
                                     cmocka_unit_test(test_other_protocol_is_given_up),
                                     cmocka_unit_test(test_observe_never_blocks)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
