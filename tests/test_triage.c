/* Triage's bug-or-misuse rules on hand-written sanitizer reports. */
#include "test_util.h"

#include "simplifier/crash.h"
#include "simplifier/triage.h"

/* A library with a two-handle call that may legally alias (a diff of a tree
 * with itself) and one that may not (attaching a node to itself). */
static const char *API = "api treelib;\n"
                         "handle node;\n"
                         "func node *node_new(int v) error null;\n"
                         "func void node_free(node *n) destructor;\n"
                         "func node *node_diff(node *a, node *b) error null;\n"
                         "func int node_attach(node *parent, node *child) error < 0;\n";

static const char *LEAK_IN_NEW = "==1==ERROR: LeakSanitizer: detected memory leaks\n"
                                 "\n"
                                 "Direct leak of 64 byte(s) in 1 object(s) allocated from:\n"
                                 "    #0 0x1 in malloc\n"
                                 "    #1 0x2 in node_alloc /src/tree.c:10:3\n"
                                 "    #2 0x3 in node_new /src/tree.c:20:3\n"
                                 "    #3 0x4 in ffi_call_unix64\n";

static const char *UAF_IN_ATTACH = "==1==ERROR: AddressSanitizer: heap-use-after-free on address "
                                   "0x602000000010 at pc 0x1\n"
                                   "READ of size 8 at 0x602000000010 thread T0\n"
                                   "    #0 0x1 in link_child /src/tree.c:40:3\n"
                                   "    #1 0x2 in node_attach /src/tree.c:50:3\n"
                                   "    #2 0x3 in ffi_call_unix64\n";

/* Freed and used again inside node_free; the memory came from node_new. */
static const char *UAF_IN_FREE = "==1==ERROR: AddressSanitizer: heap-use-after-free on address "
                                 "0x602000000010 at pc 0x1\n"
                                 "READ of size 8 at 0x602000000010 thread T0\n"
                                 "    #0 0x1 in unlink_all /src/tree.c:60:3\n"
                                 "    #1 0x2 in node_free /src/tree.c:70:3\n"
                                 "    #2 0x3 in ffi_call_unix64\n"
                                 "\n"
                                 "freed by thread T0 here:\n"
                                 "    #0 0x1 in free\n"
                                 "    #1 0x2 in node_free /src/tree.c:68:3\n"
                                 "    #2 0x3 in ffi_call_unix64\n"
                                 "\n"
                                 "previously allocated by thread T0 here:\n"
                                 "    #0 0x1 in malloc\n"
                                 "    #1 0x2 in node_new /src/tree.c:20:3\n"
                                 "    #2 0x3 in ffi_call_unix64\n";

static sf_verdict classify(const char *seq_text, const char *report, char *reason) {
  sf_api *api = parse_api_text(API);
  sf_seq s;
  sf_seq_init(&s, api);
  parse_seq_ok(&s, api, seq_text);
  sf_triage_finding f;
  sf_verdict v = sf_triage_classify(&s, report, NULL, &f);
  snprintf(reason, 256, "%s", f.reason);
  sf_seq_free(&s);
  sf_api_free(api);
  return v;
}

/* An alias in a call the crash does not pass through says nothing. */
static void test_alias_elsewhere_is_not_misuse(void **state) {
  (void)state;
  char reason[256];
  sf_verdict v = classify("a = node_new(1);\nd = node_diff(a, a);\n", LEAK_IN_NEW, reason);
  assert_int_equal(v, SF_LIKELY_BUG);
  assert_non_null(strstr(reason, "node_new"));
}

/* An alias in the call that crashed is the grammar's likely mistake. */
static void test_alias_in_crashing_call_is_misuse(void **state) {
  (void)state;
  char reason[256];
  sf_verdict v = classify("a = node_new(1);\nnode_attach(a, a);\n", UAF_IN_ATTACH, reason);
  assert_int_equal(v, SF_LIKELY_MISUSE);
  assert_non_null(strstr(reason, "same handle as 'parent' and 'child' of node_attach"));
  /* Without the alias the same crash is a bug. */
  v = classify("a = node_new(1);\nb = node_new(2);\nnode_attach(a, b);\n", UAF_IN_ATTACH, reason);
  assert_int_equal(v, SF_LIKELY_BUG);
}

/* A destructor recursing until the stack ran out: too deep for the report
 * to show which call (or the cleanup) freed the node. */
static const char *OVERFLOW_IN_FREE = "==1==ERROR: AddressSanitizer: stack-overflow on address "
                                      "0x7fff00000000 (pc 0x1 bp 0x2 sp 0x3 T0)\n"
                                      "    #0 0x1 in node_free /src/tree.c:70:3\n"
                                      "    #1 0x2 in node_free /src/tree.c:71:5\n"
                                      "    #2 0x2 in node_free /src/tree.c:71:5\n";

/* A node given to itself is a cycle its destructor follows: the alias, not
 * the library. (Whether the crash goes away without the alias, which rules
 * out an alias that is legal, the runner checks: tests/triage.sh.) */
static void test_alias_behind_a_destructor_is_misuse(void **state) {
  (void)state;
  char reason[256];
  sf_verdict v = classify("a = node_new(1);\nnode_attach(a, a);\n", OVERFLOW_IN_FREE, reason);
  assert_int_equal(v, SF_LIKELY_MISUSE);
  assert_non_null(strstr(reason, "same handle as 'parent' and 'child' of node_attach"));
  v = classify("a = node_new(1);\nb = node_new(2);\nnode_attach(a, b);\n", OVERFLOW_IN_FREE,
               reason);
  assert_int_equal(v, SF_LIKELY_BUG);
}

/* With two nodes, one freeing the other means a call took ownership the
 * grammar did not declare; with one node, the destructor broke itself. */
static void test_free_inside_destructor(void **state) {
  (void)state;
  char reason[256];
  sf_verdict v =
      classify("a = node_new(1);\nb = node_new(2);\nnode_attach(a, b);\n", UAF_IN_FREE, reason);
  assert_int_equal(v, SF_LIKELY_MISUSE);
  assert_non_null(strstr(reason, "calls that took one: node_diff, node_attach") ||
                  strstr(reason, "calls that took one: node_attach"));
  v = classify("a = node_new(1);\n", UAF_IN_FREE, reason);
  assert_int_equal(v, SF_LIKELY_BUG);
}

/* One endless loop interrupted at two places: one signature, named by the
 * API call and the function it loops in. */
static void test_timeout_signature_is_where_it_loops(void **state) {
  (void)state;
  static const char *at_check = "==1== ERROR: seqfuzz: timeout after 10 seconds\n"
                                "    #0 0x1 in __sanitizer_print_stack_trace\n"
                                "    #1 0x2 in deflateStateCheck /src/deflate.c:397:27\n"
                                "    #2 0x3 in deflate /src/deflate.c:822:9\n"
                                "    #3 0x4 in gz_comp /src/gzwrite.c:135:15\n"
                                "    #4 0x5 in gzflush /src/gzwrite.c:592:11\n"
                                "    #5 0x6 in ffi_call_unix64\n";
  static const char *at_write = "==1== ERROR: libFuzzer: timeout after 10 seconds\n"
                                "    #0 0x1 in __sanitizer_print_stack_trace\n"
                                "    #1 0x2 in write\n"
                                "    #2 0x3 in gz_comp /src/gzwrite.c:90:15\n"
                                "    #3 0x4 in gzflush /src/gzwrite.c:592:11\n"
                                "    #4 0x5 in ffi_call_unix64\n";
  sf_signature a, b;
  sf_signature_parse(at_check, strlen(at_check), &a);
  sf_signature_parse(at_write, strlen(at_write), &b);
  char text[256];
  sf_signature_format(&a, text, sizeof text);
  assert_string_equal(text, "timeout in gz_comp < gzflush");
  assert_true(sf_signature_equal(&a, &b));
  /* Other kinds keep the innermost frames. */
  static const char *segv = "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x0\n"
                            "    #0 0x1 in deflateStateCheck /src/deflate.c:397:27\n"
                            "    #1 0x2 in deflate /src/deflate.c:822:9\n"
                            "    #2 0x3 in gz_comp /src/gzwrite.c:135:15\n"
                            "    #3 0x4 in gzflush /src/gzwrite.c:592:11\n";
  sf_signature_parse(segv, strlen(segv), &a);
  sf_signature_format(&a, text, sizeof text);
  assert_string_equal(text, "SEGV in deflateStateCheck < deflate < gz_comp");
}

static void format_of(const char *report, char *text, size_t len) {
  sf_signature sig;
  sf_signature_parse(report, strlen(report), &sig);
  sf_signature_format(&sig, text, len);
}

/* One bug that loses nodes made by different constructors (cJSON's sort):
 * one signature, the allocation site; a library's own allocator wrapper
 * (mallocWithAlarm) is its code, not the C library's. */
static void test_leak_signature_is_the_allocation_site(void **state) {
  (void)state;
  static const char *made_by_string = "==1==ERROR: LeakSanitizer: detected memory leaks\n\n"
                                      "Direct leak of 64 byte(s) in 1 object(s) allocated from:\n"
                                      "    #0 0x1 in malloc\n"
                                      "    #1 0x2 in cJSON_New_Item /src/cJSON.c:243:30\n"
                                      "    #2 0x3 in cJSON_CreateString /src/cJSON.c:2441:20\n"
                                      "    #3 0x4 in ffi_call_unix64\n";
  static const char *made_by_parse =
      "==1==ERROR: LeakSanitizer: detected memory leaks\n\n"
      "Direct leak of 64 byte(s) in 1 object(s) allocated from:\n"
      "    #0 0x1 in malloc\n"
      "    #1 0x2 in cJSON_New_Item /src/cJSON.c:243:30\n"
      "    #2 0x3 in parse_array /src/cJSON.c:1500:20\n"
      "    #3 0x4 in parse_value /src/cJSON.c:1400:20\n"
      "    #4 0x5 in cJSON_ParseWithLengthOpts /src/cJSON.c:1100:20\n"
      "    #5 0x6 in ffi_call_unix64\n";
  static const char *wrapper = "==1==ERROR: LeakSanitizer: detected memory leaks\n\n"
                               "Direct leak of 64 byte(s) in 1 object(s) allocated from:\n"
                               "    #0 0x1 in malloc\n"
                               "    #1 0x2 in mallocWithAlarm /src/sqlite3.c:10:3\n"
                               "    #2 0x3 in sqlite3Malloc /src/sqlite3.c:20:3\n";
  char a[256], b[256];
  format_of(made_by_string, a, sizeof a);
  format_of(made_by_parse, b, sizeof b);
  assert_string_equal(a, "leak in cJSON_New_Item");
  assert_string_equal(a, b);
  format_of(wrapper, a, sizeof a);
  assert_string_equal(a, "leak in mallocWithAlarm");
}

/* Without a stack (UBSan's default), two sites are two signatures, named
 * by file:line and the words of the error before its values. */
static void test_ubsan_without_stack_names_its_site(void **state) {
  (void)state;
  static const char *at_add =
      "/src/lib/calc.c:12:5: runtime error: signed integer overflow: 2147483647 + 1 cannot be "
      "represented in type 'int'\n"
      "SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior /src/lib/calc.c:12:5 in\n";
  static const char *at_mul =
      "/src/lib/calc.c:30:9: runtime error: signed integer overflow: 65536 * 65536 cannot be "
      "represented in type 'int'\n"
      "SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior /src/lib/calc.c:30:9 in\n";
  char a[256], b[256];
  format_of(at_add, a, sizeof a);
  format_of(at_mul, b, sizeof b);
  assert_string_equal(a, "ubsan: signed integer overflow at calc.c:12");
  assert_string_equal(b, "ubsan: signed integer overflow at calc.c:30");
  /* With a stack, its function too, but not who called it: one site is
   * one bug. */
  static const char *shift = "/src/inflate.c:266:39: runtime error: shift exponent 32 is too "
                             "large for 32-bit type 'unsigned int'\n"
                             "    #0 0x1 in inflatePrime /src/inflate.c:266:39\n"
                             "    #1 0x2 in zg_prime /src/zlib_glue.h:10:3\n"
                             "    #2 0x3 in ffi_call_unix64\n";
  format_of(shift, a, sizeof a);
  assert_string_equal(a, "ubsan: shift exponent in inflatePrime at inflate.c:266");
}

/* A fuzzing log holds libFuzzer's status lines ("#2 INITED ...") before the
 * report: they are no stack, and a probe's frames in seqfuzz are not the
 * target's. */
static void test_fuzzing_log_signature(void **state) {
  (void)state;
  static const char *log =
      "INFO: Seed: 1\n"
      "#2\tINITED cov: 12 ft: 12 corp: 1/9b exec/s: 0 rss: 30Mb\n"
      "==7== ERROR: libFuzzer: deadly signal\n"
      "    #0 0x1 in __sanitizer_print_stack_trace\n"
      "    #1 0x2 in abort stdlib/abort.c:79:7\n"
      "    #2 0x3 in tally_check /src/probelib.c:31:21\n"
      "    #3 0x4 in ffi_call_unix64\n"
      "    #4 0x5 in sf_exec_observe /seqfuzz/harness/exec.c:454:5\n"
      "    #5 0x6 in know_input /seqfuzz/mutator/mutate.c:110:5\n"
      "    #6 0x7 in LLVMFuzzerCustomMutator /seqfuzz/harness/fuzz_target.c:1\n";
  char a[256];
  format_of(log, a, sizeof a);
  assert_string_equal(a, "deadly in tally_check");
  /* A failed assert() is the library's, not the C library's. */
  static const char *assertion = "==7== ERROR: libFuzzer: deadly signal\n"
                                 "    #0 0x1 in __sanitizer_print_stack_trace\n"
                                 "    #1 0x2 in abort stdlib/abort.c:79:7\n"
                                 "    #2 0x3 in __assert_fail_base assert/assert.c:92:3\n"
                                 "    #3 0x4 in __assert_fail assert/assert.c:101:3\n"
                                 "    #4 0x5 in sqlite3VdbeList /src/sqlite3.c:90:3\n";
  format_of(assertion, a, sizeof a);
  assert_string_equal(a, "deadly in sqlite3VdbeList");
}

/* A crash whose innermost frame in the target is in one of the
 * description's headers is the glue's fault. */
static void test_crash_in_glue_is_the_description(void **state) {
  (void)state;
  sf_api *api = parse_api_text("api g;\nheader \"lib.h\";\nheader \"lib_glue.h\";\n"
                               "func void g_set(char *s);\n");
  sf_seq s;
  sf_seq_init(&s, api);
  parse_seq_ok(&s, api, "g_set(\"a\");\n");
  static const char *in_glue = "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address "
                               "0x602000000010 at pc 0x1\n"
                               "READ of size 9 at 0x602000000010 thread T0\n"
                               "    #0 0x1 in __asan_memcpy\n"
                               "    #1 0x2 in g_set /src/seeds/g/lib_glue.h:12:3\n"
                               "    #2 0x3 in ffi_call_unix64\n";
  static const char *in_lib = "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address "
                              "0x602000000010 at pc 0x1\n"
                              "READ of size 9 at 0x602000000010 thread T0\n"
                              "    #0 0x1 in copy_name /src/lib.c:40:3\n"
                              "    #1 0x2 in g_set /src/seeds/g/lib_glue.h:12:3\n"
                              "    #2 0x3 in ffi_call_unix64\n";
  sf_triage_finding f;
  assert_int_equal(sf_triage_classify(&s, in_glue, NULL, &f), SF_LIKELY_MISUSE);
  assert_non_null(strstr(f.reason, "g_set"));
  assert_non_null(strstr(f.reason, "lib_glue.h"));
  assert_string_equal(f.cause, "glue g_set");
  assert_int_equal(sf_triage_classify(&s, in_lib, NULL, &f), SF_LIKELY_BUG);
  assert_string_equal(f.cause, "");
  sf_seq_free(&s);
  sf_api_free(api);
}

/* One bug (uniq drops a node) losing nodes made by any constructor, a
 * result or an out handle, is one root cause; a leak lost by another call
 * (pop) is another. */
static void test_leaks_of_one_root_cause(void **state) {
  (void)state;
  sf_api *api = parse_api_text("api pl;\nhandle plist;\nhandle pnode;\n"
                               "func plist *pl_new(void);\n"
                               "func void pl_free(plist *l) destructor;\n"
                               "func pnode *pn_int(int v);\n"
                               "func int pn_parse(string s, out pnode **n) error != 0;\n"
                               "func void pn_free(pnode *n) destructor;\n"
                               "func void pl_push(plist *l, consume pnode *n);\n"
                               "func void pl_uniq(plist *l);\n"
                               "func void pl_pop(plist *l);\n");
  static const char *by_int = "==1==ERROR: LeakSanitizer: detected memory leaks\n\n"
                              "Direct leak of 16 byte(s) in 1 object(s) allocated from:\n"
                              "    #0 0x1 in malloc\n"
                              "    #1 0x2 in pn_int /src/plist.c:10:3\n"
                              "    #2 0x3 in ffi_call_unix64\n";
  static const char *by_parse = "==1==ERROR: LeakSanitizer: detected memory leaks\n\n"
                                "Direct leak of 16 byte(s) in 1 object(s) allocated from:\n"
                                "    #0 0x1 in malloc\n"
                                "    #1 0x2 in pn_parse /src/plist.c:30:3\n"
                                "    #2 0x3 in ffi_call_unix64\n";
  sf_seq a, b, c;
  sf_seq_init(&a, api);
  sf_seq_init(&b, api);
  sf_seq_init(&c, api);
  parse_seq_ok(&a, api,
               "l = pl_new();\nx = pn_int(1);\ny = pn_int(1);\n"
               "pl_push(l, x);\npl_push(l, y);\npl_uniq(l);\n");
  parse_seq_ok(&b, api,
               "pn_parse(\"i:1\", &x);\nl = pl_new();\npn_parse(\"i:1\", &y);\n"
               "pl_push(l, x);\npl_push(l, y);\npl_pop(l);\npl_uniq(l);\n");
  parse_seq_ok(&c, api, "l = pl_new();\nx = pn_int(1);\npl_push(l, x);\npl_pop(l);\n");
  assert_true(sf_triage_same_root(&a, by_int, &b, by_parse)); /* b calls one more */
  assert_true(sf_triage_same_root(&b, by_parse, &a, by_int));
  assert_false(sf_triage_same_root(&a, by_int, &c, by_int));      /* lost by pop, not uniq */
  assert_false(sf_triage_same_root(&a, by_int, &a, LEAK_IN_NEW)); /* no pnode maker */
  sf_seq_free(&a);
  sf_seq_free(&b);
  sf_seq_free(&c);
  sf_api_free(api);
}

/* A connection freed by its own destructor, then used by the destructor of
 * a blob opened on it: whether a blob may outlive its connection is the
 * library's contract (sqlite3_close_v2 promises to wait); no `consume` is
 * missing, so the reason must not say one is. */
static void test_dependent_used_after_its_parent_is_destroyed(void **state) {
  (void)state;
  sf_api *api = parse_api_text("api db;\nhandle db;\nhandle blob;\n"
                               "func db *db_open(void);\n"
                               "func int db_close(db *d) destructor;\n"
                               "func int blob_open(db *d, out blob **b) error != 0;\n"
                               "func int blob_close(blob *b) destructor;\n");
  sf_seq s;
  sf_seq_init(&s, api);
  parse_seq_ok(&s, api, "d = db_open();\nblob_open(d, &b);\ndb_close(d);\n");
  static const char *uaf = "==1==ERROR: AddressSanitizer: heap-use-after-free on address "
                           "0x602000000010 at pc 0x1\n"
                           "READ of size 8 at 0x602000000010 thread T0\n"
                           "    #0 0x1 in blob_close /src/db.c:60:3\n"
                           "    #1 0x2 in ffi_call_unix64\n"
                           "\n"
                           "freed by thread T0 here:\n"
                           "    #0 0x1 in free\n"
                           "    #1 0x2 in db_close /src/db.c:20:3\n"
                           "    #2 0x3 in ffi_call_unix64\n"
                           "\n"
                           "previously allocated by thread T0 here:\n"
                           "    #0 0x1 in malloc\n"
                           "    #1 0x2 in db_open /src/db.c:10:3\n"
                           "    #2 0x3 in ffi_call_unix64\n";
  sf_triage_finding f;
  assert_int_equal(sf_triage_classify(&s, uaf, NULL, &f), SF_LIKELY_MISUSE);
  assert_null(strstr(f.reason, "consume"));
  assert_non_null(strstr(f.reason, "owned_by"));
  assert_string_equal(f.cause, "outlive db blob_close");
  sf_seq_free(&s);
  sf_api_free(api);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_alias_elsewhere_is_not_misuse),
      cmocka_unit_test(test_alias_in_crashing_call_is_misuse),
      cmocka_unit_test(test_alias_behind_a_destructor_is_misuse),
      cmocka_unit_test(test_free_inside_destructor),
      cmocka_unit_test(test_timeout_signature_is_where_it_loops),
      cmocka_unit_test(test_leak_signature_is_the_allocation_site),
      cmocka_unit_test(test_ubsan_without_stack_names_its_site),
      cmocka_unit_test(test_fuzzing_log_signature),
      cmocka_unit_test(test_crash_in_glue_is_the_description),
      cmocka_unit_test(test_leaks_of_one_root_cause),
      cmocka_unit_test(test_dependent_used_after_its_parent_is_destroyed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
