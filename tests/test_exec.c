/* The executor against objlib (a library that counts misuse instead of
 * crashing): ownership, error conventions, NULL handles, buffers, cleanup.
 * Its oracles (exec.h), reports captured with sf_exec_on_violation:
 * contracts and invariants against objlib, the repeat check and the generic
 * contracts against oraclelib, the differential mode against difflib. */
#include "difflib.h"
#include "harness/exec.h"
#include "harness/known.h"
#include "objlib.h"
#include "oraclelib.h"
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

/* `recoverable`: a refused call does not stop the run. What it would have
 * made is NULL, and a call that needs that is not made (the run stops
 * there, legal up to it); a refused consume keeps ownership. */
static void test_recoverable_error_goes_on(void **state) {
  (void)state;
  sf_api *api = parse_api_text("api objlib;\nheader \"objlib.h\";\nhandle obj;\n"
                               "func obj *obj_new(int id) error null recoverable;\n"
                               "func void obj_free(obj *o) destructor;\n"
                               "func int obj_adopt(obj *parent, consume obj *child) error < 0 "
                               "recoverable;\n"
                               "func int obj_fail(obj *o, int code) error < 0 recoverable;\n"
                               "func long obj_sum(obj *o, bytes data[n], size_t n in [0, 64]);\n");
  assert_true(api->funcs[0].flags & SF_F_RECOVERABLE);
  assert_false(api->funcs[1].flags & SF_F_RECOVERABLE);
  char err[256];
  sf_exec *x = sf_exec_new(api, objlib_resolve, NULL, err, sizeof err);
  assert_non_null(x);
  sf_seq s;
  sf_seq_init(&s, api);
  objlib_reset();
  parse_seq_ok(&s, api,
               "h1 = obj_new(1); obj_fail(h1, -3); h2 = obj_new(2); h3 = obj_new(3);\n"
               "h4 = obj_new(4); obj_adopt(h1, h2); obj_adopt(h1, h3); obj_adopt(h1, h4);\n"
               "obj_fail(h1, 0);");
  sf_run_result r;
  sf_exec_run(x, &s, NULL, &r);
  assert_int_equal(r.status, SF_RUN_OK);
  assert_int_equal(r.calls_made, 9);
  /* The calls refused, the run going on: obj_fail(h1, -3) and the third
   * adopt (a parent holds two children). */
  assert_int_equal(r.refused, 1u << 1 | 1u << 7);
  assert_int_equal(objlib.live, 0); /* h4 still ours after the refused adopt */
  assert_int_equal(objlib.double_frees, 0);
  assert_int_equal(objlib.bad_uses, 0);
  objlib_reset();
  parse_seq_ok(&s, api,
               "h1 = obj_new(-1); h2 = obj_new(2); obj_sum(h2, \"\");\n"
               "obj_sum(h1, \"\"); obj_new(5);");
  sf_exec_run(x, &s, NULL, &r);
  assert_int_equal(r.status, SF_RUN_NULL_HANDLE);
  assert_int_equal(r.stop_call, 3);
  assert_int_equal(r.calls_made, 3);
  assert_int_equal(objlib.bad_uses, 0);
  assert_int_equal(objlib.live, 0);
  sf_seq_free(&s);
  sf_exec_free(x);
  sf_api_free(api);
}

static void test_error_convention_stops(void **state) {
  fixture *f = *state;
  sf_run_result r = run_text(f, "h1 = obj_new(1); obj_fail(h1, 0); obj_fail(h1, -3); obj_new(9);");
  assert_int_equal(r.status, SF_RUN_ERROR_RESULT);
  assert_int_equal(r.stop_call, 2);
  assert_int_equal(r.refused, 0); /* a failure that stops the run is not one */
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
  sf_exec_hooks hooks = {&ret, last_ret, NULL, NULL};
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
  sf_exec_hooks hooks = {seen, capture, NULL, NULL};
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

/* Each call made is counted and timed for its function, and while a counter
 * is set, the edges it reports after a call of the functions listed are
 * credited to that function (those before such a call to none). */
static uint32_t fake_edges[8], nfake;
static uint32_t fake_new_edges(void) {
  return nfake < 8 ? fake_edges[nfake++] : 0;
}

static void test_call_stats(void **state) {
  fixture *f = *state;
  uint32_t new_fn = (uint32_t)sf_api_find_func(f->api, "obj_new"),
           sum_fn = (uint32_t)sf_api_find_func(f->api, "obj_sum"),
           free_fn = (uint32_t)sf_api_find_func(f->api, "obj_free");
  const sf_call_stats *st = sf_exec_call_stats(f->x);
  run_text(f, "h1 = obj_new(1); obj_sum(h1, \"abc\"); obj_free(h1);");
  assert_int_equal(st[new_fn].calls, 1);
  assert_int_equal(st[sum_fn].calls, 1);
  assert_int_equal(st[free_fn].calls, 1);
  assert_true(st[new_fn].ticks > 0 && st[sum_fn].ticks > 0);
  assert_int_equal(st[new_fn].first_edges + st[sum_fn].first_edges, 0); /* not counted */
  /* Counted around obj_new and obj_free: obj_new reaches 5 new edges,
   * obj_sum (not asked about) 2, obj_new again none, obj_free 7. */
  static const uint32_t edges[] = {0, 5, 2, 0, 0, 7};
  memcpy(fake_edges, edges, sizeof edges);
  nfake = 0;
  bool funcs[64] = {false};
  funcs[new_fn] = funcs[free_fn] = true;
  sf_exec_count_edges(f->x, fake_new_edges, funcs);
  run_text(f, "h1 = obj_new(1); obj_sum(h1, \"abc\"); h2 = obj_new(2); obj_free(h1);");
  assert_int_equal(nfake, 6);
  assert_int_equal(st[new_fn].calls, 3);
  assert_int_equal(st[new_fn].first_edges, 5);
  assert_int_equal(st[sum_fn].first_edges, 0);
  assert_int_equal(st[free_fn].first_edges, 7);
  assert_int_equal(sf_exec_counted_edges(f->x), 14);
  /* Stopped: nothing more is asked or credited; a new counter starts a new
   * total; without a list every call is asked about. */
  sf_exec_count_edges(f->x, NULL, NULL);
  run_text(f, "h1 = obj_new(1);");
  assert_int_equal(nfake, 6);
  assert_int_equal(st[new_fn].first_edges, 5);
  static const uint32_t more[] = {1, 3, 0, 4};
  memcpy(fake_edges, more, sizeof more);
  nfake = 0;
  sf_exec_count_edges(f->x, fake_new_edges, NULL);
  assert_int_equal(sf_exec_counted_edges(f->x), 0);
  run_text(f, "h1 = obj_new(1); obj_sum(h1, \"abc\");");
  assert_int_equal(nfake, 4);
  assert_int_equal(st[sum_fn].first_edges, 4);
  assert_int_equal(sf_exec_counted_edges(f->x), 8);
  sf_exec_count_edges(f->x, NULL, NULL);
  /* One run in 8 is timed: every call counts, the time of one run's. */
  int timed = 0;
  uint64_t calls = st[new_fn].calls;
  for (int i = 0; i < 8; i++) {
    uint64_t ticks = st[new_fn].ticks;
    run_text(f, "h1 = obj_new(1);");
    timed += st[new_fn].ticks > ticks;
  }
  assert_int_equal(timed, 1);
  assert_int_equal(st[new_fn].calls, calls + 8);
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

/* ---- coverage states ------------------------------------------------------ */

static uint64_t joints[16];
static int njoints;

static void note_joint(uint64_t joint) {
  if (njoints < 16) joints[njoints] = joint;
  njoints++;
}

/* The joint values a run of seq hands the sink under objlib's functions,
 * with the `coverage` marks a test gives (on a state nkeeps, which obj_keep
 * counts, and on the observer obj_kept_len). */
static int coverage_joints(const char *state_mark, const char *observer_mark, const char *seq) {
  char text[1024];
  snprintf(text, sizeof text,
           "api o;\nhandle obj;\nstate int nkeeps(obj *o) %s;\n"
           "func obj *obj_new(int id) error null;\n"
           "func void obj_free(obj *o) destructor;\n"
           "func int obj_fail(obj *o, int code) error < 0 recoverable;\n"
           "func void obj_keep(obj *o, keep string s) sets nkeeps(o) = nkeeps(o) + 1;\n"
           "func long obj_kept_len(obj *o) observer %s;\n",
           state_mark, observer_mark);
  sf_api *api = parse_api_text(text);
  char err[256];
  sf_exec *x = sf_exec_new(api, objlib_resolve, NULL, err, sizeof err);
  assert_non_null(x);
  sf_exec_on_coverage_state(x, note_joint);
  sf_seq s;
  sf_seq_init(&s, api);
  objlib_reset();
  parse_seq_ok(&s, api, seq);
  njoints = 0;
  sf_run_result r;
  sf_exec_run(x, &s, NULL, &r);
  assert_int_equal(r.status, SF_RUN_OK);
  assert_int_equal(objlib.bad_uses, 0); /* no observer of a dead handle */
  sf_seq_free(&s);
  sf_exec_free(x);
  sf_api_free(api);
  return njoints;
}

/* After each call made that did not fail, the coverage state of each live
 * handle it took or made: the marked observers' answers and marked states,
 * nothing when nothing is marked. */
static void test_coverage_state(void **state) {
  (void)state;
  const char *seq = "h1 = obj_new(1); obj_keep(h1, \"ab\"); obj_fail(h1, -1); obj_fail(h1, 0);\n"
                    "obj_keep(h1, \"cd\"); obj_keep(h1, \"abc\"); obj_free(h1);";
  /* new, keep, fail(0), keep, keep: the refused call and the destructor
   * hand nothing. */
  assert_int_equal(coverage_joints("coverage", "coverage", seq), 5);
  assert_true(joints[0] != joints[1]);
  assert_true(joints[1] == joints[2]); /* obj_fail(h1, 0) changed nothing */
  assert_true(joints[3] != joints[2]); /* the same length, one more keep */
  assert_true(joints[4] != joints[3] && joints[4] != joints[1]);
  /* The observer alone: "cd" is as long as "ab". */
  assert_int_equal(coverage_joints("", "coverage", seq), 5);
  assert_true(joints[3] == joints[2] && joints[4] != joints[3]);
  /* Values count by class: 0, 1, 2, 3, then 4-7, 8-15, ... */
  assert_int_equal(
      coverage_joints("", "coverage",
                      "h1 = obj_new(1); obj_keep(h1, \"abc\"); obj_keep(h1, \"abcd\");\n"
                      "obj_keep(h1, \"abcdefg\"); obj_keep(h1, \"abcdefgh\");"),
      5);
  assert_true(joints[1] != joints[2] && joints[2] == joints[3] && joints[3] != joints[4]);
  /* The state alone: two keeps are two keeps, whatever their lengths. */
  assert_int_equal(coverage_joints("coverage", "", seq), 5);
  assert_true(joints[0] != joints[1] && joints[3] != joints[2] && joints[4] != joints[3]);
  uint64_t after_two = joints[3];
  assert_int_equal(coverage_joints("coverage", "",
                                   "h1 = obj_new(1); obj_keep(h1, \"x\"); obj_keep(h1, \"yz\");"),
                   3);
  assert_true(joints[2] == after_two);
  /* Nothing marked: no coverage state, no sink call. */
  assert_int_equal(coverage_joints("", "", seq), 0);
}

/* ---- oracles -------------------------------------------------------------- */

/* The reports of a run: how many, and their texts one after the other. */
typedef struct reports {
  int n;
  char text[4096];
  double checks_seconds; /* sf_exec_generic_seconds after the run */
} reports;

static void capture_report(void *ctx, const char *report) {
  reports *r = ctx;
  r->n++;
  size_t len = strlen(r->text);
  snprintf(r->text + len, sizeof r->text - len, "%s", report);
}

/* objlib's functions with the contracts a test gives: attributes of four of
 * them, then statements (invariants). */
#define OBJ_API(obj_fail_attrs, obj_maybe_attrs, obj_name_attrs, obj_keep_attrs, statements)       \
  "api o;\nhandle obj;\n"                                                                          \
  "func obj *obj_new(int id) error null;\n"                                                        \
  "func obj *obj_maybe(int v) " obj_maybe_attrs ";\n"                                              \
  "func void obj_free(obj *o) destructor;\n"                                                       \
  "func int obj_fail(obj *o, int code) error < 0 " obj_fail_attrs ";\n"                            \
  "func void obj_keep(obj *o, keep string s) " obj_keep_attrs ";\n"                                \
  "func long obj_kept_len(obj *o) observer;\n"                                                     \
  "func char *obj_name(obj *o) release obj_str_free " obj_name_attrs ";\n" statements

/* Run seq under the grammar api_text (objlib), its reports into r. */
static sf_run_status run_oracles(const char *api_text, const char *seq, reports *r) {
  sf_api *api = parse_api_text(api_text);
  char err[256];
  sf_exec *x = sf_exec_new(api, objlib_resolve, NULL, err, sizeof err);
  assert_non_null(x);
  memset(r, 0, sizeof *r);
  sf_exec_on_violation(x, capture_report, r);
  sf_seq s;
  sf_seq_init(&s, api);
  objlib_reset();
  parse_seq_ok(&s, api, seq);
  sf_run_result res;
  sf_exec_run(x, &s, NULL, &res);
  sf_seq_free(&s);
  sf_exec_free(x);
  sf_api_free(api);
  return res.status;
}

/* The first line of a report names kind, function and which rule, the last
 * repeats them. */
static void assert_report(const reports *r, const char *head) {
  char want[512];
  snprintf(want, sizeof want, "==ERROR: seqfuzz: %s: ", head);
  if (!strstr(r->text, want)) fprintf(stderr, "no '%s' in:\n%s\n", want, r->text);
  assert_non_null(strstr(r->text, want));
  const char *bracket = strstr(head, " [");
  snprintf(want, sizeof want, "SUMMARY: seqfuzz: %s\n", head);
  assert_non_null(bracket);
  assert_non_null(strstr(r->text, want));
}

static void test_ensures_holds_and_fails(void **state) {
  (void)state;
  reports r;
  /* Holds: on calls that succeed and on a call that fails (checked too). */
  run_oracles(OBJ_API("ensures ret == code", "", "", "", ""),
              "h1 = obj_new(1); obj_fail(h1, 3); obj_fail(h1, 0); obj_fail(h1, -2);", &r);
  assert_int_equal(r.n, 0);
  /* Fails on every call (the run goes on when reports are captured). */
  run_oracles(OBJ_API("ensures ret == code + 1", "", "", "", ""),
              "h1 = obj_new(1); obj_fail(h1, 3); obj_fail(h1, 4);", &r);
  assert_int_equal(r.n, 2);
  assert_report(&r, "contract-violation in obj_fail [ensures 1]");
  assert_non_null(strstr(r.text, "ret == code + 1\n    after [2] obj_fail(h1, 3); -> 3\n"));
  /* A failed call is checked too; the second ensures is "ensures 2". */
  run_oracles(OBJ_API("ensures ret == code ensures ret >= 0", "", "", "", ""),
              "h1 = obj_new(1); obj_fail(h1, 5); obj_fail(h1, -7);", &r);
  assert_int_equal(r.n, 1);
  assert_report(&r, "contract-violation in obj_fail [ensures 2]");
  assert_non_null(strstr(r.text, "after [3] obj_fail(h1, -7); -> -7"));
}

/* An observer of a NULL (or dead) handle, a division by zero: unknown, so
 * the contract says nothing; the same contract on a value it can read fails. */
static void test_unknown_is_not_a_violation(void **state) {
  (void)state;
  reports r;
  const char *api = OBJ_API("ensures 10 / code == 99 && 10 % code == 99",
                            "ensures obj_kept_len(ret) == 5", "", "", "");
  run_oracles(api, "h1 = obj_maybe(0); h2 = obj_new(1); obj_fail(h2, 0);", &r);
  assert_int_equal(r.n, 0);
  run_oracles(api, "h1 = obj_maybe(3);", &r);
  assert_int_equal(r.n, 1);
  assert_report(&r, "contract-violation in obj_maybe [ensures 1]");
  assert_non_null(strstr(r.text, "obj_kept_len(ret) = -1"));
  run_oracles(api, "h1 = obj_new(1); obj_fail(h1, 3);", &r);
  assert_int_equal(r.n, 1);
  assert_report(&r, "contract-violation in obj_fail [ensures 1]");
  /* A handle the call destroyed is dead: its observer is not called. */
  run_oracles("api o; handle obj; func obj *obj_new(int id) error null;\n"
              "func void obj_free(obj *o) destructor ensures obj_kept_len(o) == 99;\n"
              "func long obj_kept_len(obj *o) observer;\n",
              "h1 = obj_new(1); obj_free(h1);", &r);
  assert_int_equal(r.n, 0);
  assert_int_equal(objlib.bad_uses, 0);
}

/* Strings compare by content: a result, a parameter, an observer's value. */
static void test_strings_by_content(void **state) {
  (void)state;
  reports r;
  const char *api = OBJ_API("", "", "ensures ret == \"obj-42\"", "ensures s != \"bad\"", "");
  run_oracles(api, "h1 = obj_new(42); obj_name(h1); obj_keep(h1, \"good\");", &r);
  assert_int_equal(r.n, 0);
  run_oracles(api, "h1 = obj_new(7); obj_name(h1);", &r);
  assert_int_equal(r.n, 1);
  assert_report(&r, "contract-violation in obj_name [ensures 1]");
  assert_non_null(strstr(r.text, "-> \"obj-7\""));
  assert_int_equal(objlib.names_released, 1);
  run_oracles(api, "h1 = obj_new(1); obj_keep(h1, \"bad\");", &r);
  assert_int_equal(r.n, 1);
  assert_report(&r, "contract-violation in obj_keep [ensures 1]");
}

/* old(): the value before the call, noted in the report. */
static void test_old_values(void **state) {
  (void)state;
  reports r;
  const char *api = OBJ_API("", "", "", "ensures obj_kept_len(o) >= old(obj_kept_len(o))", "");
  run_oracles(api, "h1 = obj_new(1); obj_keep(h1, \"ab\"); obj_keep(h1, \"abc\");", &r);
  assert_int_equal(r.n, 0);
  run_oracles(api, "h1 = obj_new(1); obj_keep(h1, \"abc\"); obj_keep(h1, \"a\");", &r);
  assert_int_equal(r.n, 1);
  assert_report(&r, "contract-violation in obj_keep [ensures 1]");
  assert_non_null(strstr(r.text, "obj_kept_len(o) = 1; old(obj_kept_len(o)) = 3"));
}

/* An invariant holds after every call that takes or makes its handle. */
static void test_invariant(void **state) {
  (void)state;
  reports r;
  const char *api = OBJ_API("", "", "", "", "invariant obj o: obj_kept_len(o) < 4;\n");
  run_oracles(api, "h1 = obj_new(1); obj_keep(h1, \"abc\"); h2 = obj_new(2);", &r);
  assert_int_equal(r.n, 0);
  run_oracles(api, "h1 = obj_new(1); obj_keep(h1, \"hello\"); h2 = obj_new(2); obj_fail(h1, 1);",
              &r);
  assert_int_equal(r.n, 2); /* after obj_keep and obj_fail, not after obj_new(2) */
  assert_report(&r, "invariant-violation in obj_keep [invariant 1 of obj]");
  assert_report(&r, "invariant-violation in obj_fail [invariant 1 of obj]");
  assert_non_null(strstr(r.text, "obj_kept_len(o) < 4\n    after [2] obj_keep(h1, \"hello\");\n"
                                 "    obj_kept_len(o) = 5\n"));
}

/* oraclelib's and difflib's functions by name (an sf_resolve_fn). */
#define SYM(f)                                                                                     \
  { #f, (void *)&f }
static const struct {
  const char *name;
  void *addr;
} lib_symbols[] = {
    SYM(os_new),      SYM(os_free),  SYM(os_add),     SYM(os_remove), SYM(os_size),
    SYM(os_contains), SYM(os_check), SYM(os_serial),  SYM(os_reads),  SYM(or_new),
    SYM(or_free),     SYM(or_add),   SYM(or_value),   SYM(or_print),  SYM(or_str_free),
    SYM(or_parse),    SYM(ob_new),   SYM(ob_free),    SYM(ob_put),    SYM(ob_take),
    SYM(ob_digest),   SYM(ob_peek),  SYM(da_new),     SYM(da_free),   SYM(da_put),
    SYM(da_get),      SYM(da_del),   SYM(da_count),   SYM(da_min),    SYM(da_mean),
    SYM(da_capacity), SYM(db_new),   SYM(db_destroy), SYM(db_put),    SYM(db_get),
    SYM(db_del),      SYM(db_count), SYM(db_min),     SYM(db_mean),   SYM(db_capacity),
    SYM(strchr),
};

static void *lib_resolve(void *ctx, const char *name) {
  (void)ctx;
  for (size_t i = 0; i < sizeof lib_symbols / sizeof *lib_symbols; i++)
    if (strcmp(lib_symbols[i].name, name) == 0) return lib_symbols[i].addr;
  return NULL;
}

/* The second implementation: the symbol the differential statement maps. */
static void *twin_resolve(void *ctx, const char *name) {
  const sf_api *api = ctx;
  int32_t fi = sf_api_find_func(api, name);
  char buf[128];
  return lib_resolve(NULL, fi < 0 ? name : sf_diff_symbol(api, (uint32_t)fi, buf, sizeof buf));
}

static void check_values(void *ctx, sf_exec *x, const sf_seq *s) {
  (void)ctx;
  for (uint32_t v = 0; v < s->nvals; v++)
    sf_exec_check_value(x, v);
}

typedef enum { PLAIN, REPEAT, GENERIC, TWIN } oracle_mode;

/* Run seq under api_text against oraclelib and difflib: plainly, then
 * repeated (sf_exec_check_repeat), or with the generic contracts on every
 * value at the end (as a probe does), or with the second implementation. */
static const char *run_known;          /* run_lib: a known bug's text, or NULL */
static sf_run_status run_known_status; /* run_lib: the run's status */

static void run_lib(const char *api_text, const char *seq, oracle_mode mode, reports *r) {
  sf_api *api = parse_api_text(api_text);
  char err[256];
  sf_exec *x = sf_exec_new(api, lib_resolve, NULL, err, sizeof err), *twin = NULL;
  assert_non_null(x);
  sf_known *known = NULL;
  if (run_known) {
    known = sf_known_new(api);
    assert_int_equal(
        sf_known_add_text(known, run_known, strlen(run_known), "k.seq", err, sizeof err), 0);
    sf_exec_set_known(x, known);
  }
  memset(r, 0, sizeof *r);
  sf_exec_on_violation(x, capture_report, r);
  if (mode == TWIN) {
    twin = sf_exec_new(api, twin_resolve, api, err, sizeof err);
    assert_non_null(twin);
    sf_exec_generic_checks(twin, false);
    sf_exec_set_twin(x, twin);
  }
  sf_seq s;
  sf_seq_init(&s, api);
  parse_seq_ok(&s, api, seq);
  sf_exec_hooks hooks = {NULL, NULL, check_values, NULL};
  sf_run_result res;
  sf_exec_run(x, &s, mode == GENERIC ? &hooks : NULL, &res);
  run_known_status = res.status;
  if (mode == REPEAT) sf_exec_check_repeat(x, &s);
  r->checks_seconds = sf_exec_generic_seconds(x);
  sf_seq_free(&s);
  sf_exec_free(x);
  sf_known_free(known);
  sf_exec_free(twin);
  sf_api_free(api);
}

/* One sequence, two runs, two answers: nondeterminism, unless the function
 * says it is nondeterministic. */
static void test_repeat_check(void **state) {
  (void)state;
  reports r;
  const char *seq = "h1 = os_new(2); os_add(h1, 3); os_serial(h1);";
  const char *api = "api t; handle oset; func oset *os_new(int cap in [1, 4]) error null;\n"
                    "func void os_free(oset *s) destructor; func int os_add(oset *s, int v);\n"
                    "func int os_serial(oset *s)%s;\n";
  char text[512];
  snprintf(text, sizeof text, api, "");
  run_lib(text, seq, PLAIN, &r);
  assert_int_equal(r.n, 0);
  assert_true(r.checks_seconds == 0); /* what a budget for the checks counts */
  run_lib(text, seq, REPEAT, &r);
  assert_int_equal(r.n, 1);
  assert_true(r.checks_seconds > 0);
  assert_report(&r, "nondeterminism in os_serial [result]");
  assert_non_null(strstr(r.text, "the result of [3] differs: os_serial(h1);\n    first run: "));
  snprintf(text, sizeof text, api, " nondeterministic");
  run_lib(text, seq, REPEAT, &r);
  assert_int_equal(r.n, 0);
  /* Runs whose only strings are empty record no text at all: they compare
   * equal (a NULL text buffer once made UBSan abort the check). */
  run_lib("api t; func string strchr(string s, int c in [0, 0]);\n", "strchr(\"\", 0);", REPEAT,
          &r);
  assert_int_equal(r.n, 0);
}

/* oraclelib's record, whose printer writes text its parser rejects. */
static const char OREC_API[] =
    "api t; handle orec; func orec *or_new(void) error null;\n"
    "func void or_free(orec *r) destructor; func void or_add(orec *r, int d);\n"
    "func int or_value(orec *r) observer;\n"
    "func char *or_print(orec *r) release or_str_free;\n"
    "func orec *or_parse(string text) error null inverse_of or_print;\n";

/* The generic contracts, on the values alive at the end. */
static void test_generic_contracts(void **state) {
  (void)state;
  reports r;
  const char *rec = OREC_API;
  run_lib(rec, "h1 = or_new(); or_add(h1, 12); h2 = or_parse(\"v=7\");", GENERIC, &r);
  assert_int_equal(r.n, 0);
  run_lib(rec, "h1 = or_new(); or_add(h1, 12); or_add(h1, -13);", PLAIN, &r);
  assert_int_equal(r.n, 0);
  assert_true(r.checks_seconds == 0);
  run_lib(rec, "h1 = or_new(); or_add(h1, 12); or_add(h1, -13);", GENERIC, &r);
  assert_int_equal(r.n, 1);
  assert_true(r.checks_seconds > 0);
  assert_report(&r, "round-trip-failure in or_parse [rejects its printer's output]");
  assert_non_null(strstr(r.text, "on h1\n    printed: \"v=-1\"\n"));
  const char *box =
      "api t; handle obox; func obox *ob_new(void) error null;\n"
      "func void ob_free(obox *b) destructor; func int ob_put(obox *b, int v);\n"
      "func int ob_peek(obox *b) observer; func unsigned ob_digest(obox *b) observer;\n";
  run_lib(box, "h1 = ob_new(); ob_put(h1, 1); ob_put(h1, 2);", GENERIC, &r);
  assert_int_equal(r.n, 0);
  run_lib(box, "h1 = ob_new(); ob_put(h1, 1); ob_put(h1, 2); ob_put(h1, 3);", GENERIC, &r);
  assert_int_equal(r.n, 1);
  assert_report(&r, "impure-observer in ob_peek [changes ob_digest]");
  /* An observer whose every call answers anew, named alone. */
  run_lib("api t; handle oset; func oset *os_new(int cap in [1, 4]) error null;\n"
          "func void os_free(oset *s) destructor; func int os_size(oset *s) observer;\n"
          "func int os_reads(oset *s) observer;\n",
          "h1 = os_new(2);", GENERIC, &r);
  assert_int_equal(r.n, 1);
  assert_report(&r, "impure-observer in os_reads [not deterministic]");
}

/* A finding of the checks whose signature is a known bug's is set aside:
 * no report, and the run ends as a known bug's; other findings still
 * report. */
static void test_known_signature(void **state) {
  (void)state;
  reports r;
  const char *rec = OREC_API;
  const char *bad = "h1 = or_new(); or_add(h1, 12); or_add(h1, -13);";
  run_known = "# a known bug\n# signature: round-trip-failure in or_parse [rejects its printer's "
              "output]\n";
  run_lib(rec, bad, GENERIC, &r);
  assert_int_equal(r.n, 0);
  assert_int_equal(run_known_status, SF_RUN_KNOWN);
  run_lib(rec, "h1 = or_new(); or_add(h1, 12);", GENERIC, &r); /* no finding: a run as any */
  assert_int_equal(run_known_status, SF_RUN_OK);
  run_known = "# signature: round-trip-failure in or_parse [prints differently]\n";
  run_lib(rec, bad, GENERIC, &r);
  assert_int_equal(r.n, 1);
  assert_report(&r, "round-trip-failure in or_parse [rejects its printer's output]");
  assert_int_equal(run_known_status, SF_RUN_OK);
  run_known = NULL;
}

/* Two implementations, compared call by call. */
static void test_differential(void **state) {
  (void)state;
  reports r;
  const char *api = "api d; handle dmap; func dmap *da_new(void) error null;\n"
                    "func void da_free(dmap *m) destructor;\n"
                    "func int da_put(dmap *m, int key in [0, 15], int val) error < 0;\n"
                    "func int da_get(dmap *m, int key in [0, 15], out long *val);\n"
                    "func int da_del(dmap *m, int key in [0, 15]);\n"
                    "func int da_min(dmap *m) observer;\n"
                    "func int da_capacity(dmap *m) observer;\n"
                    "differential b { da_new = db_new; da_free = db_destroy; da_put = db_put;\n"
                    "  da_get = db_get; da_del = db_del; da_min = db_min;\n"
                    "  da_capacity = db_capacity; ignore da_capacity; }\n";
  const char *agree = "h1 = da_new(); da_put(h1, 3, 30); da_put(h1, 1, 10); da_get(h1, 3, &_);\n"
                      "da_get(h1, 2, &_); da_del(h1, 1); da_put(h1, 15, -5); da_del(h1, 9);";
  run_lib(api, agree, TWIN, &r);
  assert_int_equal(r.n, 0);
  const char *wrong = "h1 = da_new(); da_put(h1, 5, 0); da_put(h1, 3, 0); da_put(h1, 9, 0);\n"
                      "da_del(h1, 3); da_get(h1, 5, &_);";
  run_lib(api, wrong, PLAIN, &r);
  assert_int_equal(r.n, 0);
  run_lib(api, wrong, TWIN, &r);
  assert_int_equal(r.n, 1);
  assert_report(&r, "divergence in da_min [observer]");
  assert_non_null(
      strstr(r.text, "da_min(h1) differs after [5] da_del(h1, 3);\n    d: 5\n    b: 9\n"));
  /* A known bug stops the run before the delete: the second implementation
   * makes the same calls, no more, and nothing is reported. */
  run_known = "# any: 2.2\nh1 = da_new();\nda_del(h1, 3);\n";
  run_lib(api, wrong, TWIN, &r);
  run_known = NULL;
  assert_int_equal(run_known_status, SF_RUN_KNOWN);
  assert_int_equal(r.n, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_cleanup_destroys_owned_handles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_consumed_handle_is_not_freed_again, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failed_consume_keeps_ownership, setup, teardown),
      cmocka_unit_test_setup_teardown(test_error_convention_stops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_recoverable_error_goes_on, setup, teardown),
      cmocka_unit_test_setup_teardown(test_null_handle_is_not_passed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_buffers_and_lengths, setup, teardown),
      cmocka_unit_test_setup_teardown(test_kept_string, setup, teardown),
      cmocka_unit_test_setup_teardown(test_released_results, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failed_destructor_still_consumes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deterministic_and_reusable, setup, teardown),
      cmocka_unit_test_setup_teardown(test_call_stats, setup, teardown),
      cmocka_unit_test_setup_teardown(test_missing_symbol, setup, teardown),
      cmocka_unit_test(test_coverage_state),
      cmocka_unit_test(test_ensures_holds_and_fails),
      cmocka_unit_test(test_unknown_is_not_a_violation),
      cmocka_unit_test(test_strings_by_content),
      cmocka_unit_test(test_old_values),
      cmocka_unit_test(test_invariant),
      cmocka_unit_test(test_repeat_check),
      cmocka_unit_test(test_generic_contracts),
      cmocka_unit_test(test_known_signature),
      cmocka_unit_test(test_differential),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
