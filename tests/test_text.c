/* The text form: exact print/parse round trips and exact error positions. */
#include "test_util.h"

static void test_print_parse_exact(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  const char *text = "h1 = kv_open(16, KV_CHECKSUM|KV_NOCOPY);\n"
                     "h2 = kv_open(1, 0);\n"
                     "kv_put(h1, \"a\\n\\\"b\\\\\", x\"00ff\");\n"
                     "kv_put(h2, \"\", \"\");\n"
                     "h3 = kv_iter(h1);\n"
                     "kv_iter_next(h3, &_);\n"
                     "kv_merge(h1, h2);\n"
                     "h4 = kv_snapshot(h1);\n"
                     "kv_close(h4);\n";
  sf_seq s, t;
  sf_seq_init(&s, api);
  sf_seq_init(&t, api);
  parse_seq_ok(&s, api, text);
  assert_int_equal(s.ncalls, 9);
  sf_buf out = {0};
  assert_int_equal(sf_seq_print(&s, &out), 0);
  assert_int_equal(out.len, strlen(text));
  assert_memory_equal(out.data, text, out.len);
  /* Names are free: other names, comments and spacing parse to the same. */
  parse_seq_ok(&t, api,
               "# comment\ndb = kv_open(16, KV_CHECKSUM | KV_NOCOPY); other=kv_open(1,0);\n"
               "kv_put(db, \"a\\n\\\"b\\\\\", x\"00FF\"); kv_put(other, \"\", \"\");\n"
               "it = kv_iter(db); kv_iter_next(it, &n); kv_merge(db, other);\n"
               "snap = kv_snapshot(db); kv_close(snap); // end\n");
  assert_true(sf_seq_equal(&s, &t));
  sf_buf_free(&out);
  sf_seq_free(&s);
  sf_seq_free(&t);
  sf_api_free(api);
}

static const struct {
  const char *text;
  const char *error;
} bad[] = {
    {"h1 = kv_open(0, 0);", "t.seq:1:14: 0 violates the precondition of parameter 'capacity'"},
    {"h1 = kv_open(16, 0);\nkv_nope(h1);", "t.seq:2:1: unknown function 'kv_nope'"},
    {"kv_count(h9);", "t.seq:1:10: 'h9' is not defined"},
    {"h1 = kv_open(16, 0);\nkv_close(h1);\nkv_count(h1);",
     "t.seq:3:10: 'h1' is no longer alive (consumed, destroyed or invalidated)"},
    {"h1 = kv_open(16, 0);\nh2 = kv_iter(h1);\nkv_put(h1, \"k\", \"v\");\nkv_iter_next(h2, &_);",
     "t.seq:4:14: 'h2' is no longer alive (consumed, destroyed or invalidated)"},
    {"h1 = kv_open(16, 0);\nh2 = kv_open(16, 0);\nkv_merge(h1, h2);\nkv_count(h2);",
     "t.seq:4:10: 'h2' is no longer alive (consumed, destroyed or invalidated)"},
    {"h1 = kv_open(16, 0);\nh2 = kv_iter(h1);\nkv_count(h2);",
     "t.seq:3:10: 'h2' is a kv_iter_t, parameter 'db' wants a kv_t"},
    {"h1 = kv_open(16, 0);\nh1 = kv_open(16, 0);", "t.seq:2:1: 'h1' is already bound"},
    {"x = kv_count(h1);", "t.seq:1:1: kv_count does not return a handle"},
    {"h1 = kv_open(16, 0);\nkv_put(h1, \"k\");", "t.seq:2:15: expected ','"},
    {"h1 = kv_open(16, FOO);", "t.seq:1:18: expected a flag of kv_flags"},
    {"h1 = kv_open(5000000000, 0);", "t.seq:1:14: 5000000000 is out of range for u32"},
    {"kv_count(NULL);", "t.seq:1:10: parameter 'db' of kv_count is not nullable"},
    {"h1 = kv_open(16, 0);\nkv_put(h1, \"a\\x00b\", \"\");",
     "t.seq:2:12: a string argument cannot contain NUL"},
    {"h1 = kv_open(16, 0);\nkv_put(h1, \"a\", \"b);", "t.seq:2:17: unterminated string literal"},
    {"h1 = kv_open(16, 0);\nkv_merge(h1, h1);",
     "t.seq:2:1: kv_merge consumes a handle that is also passed as another argument"},
};

static void test_errors(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_seq s;
  sf_seq_init(&s, api);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char err[512];
    int rc = sf_seq_parse_text(&s, api, bad[i].text, strlen(bad[i].text), "t.seq", err, sizeof err);
    assert_int_equal(rc, -1);
    if (strcmp(err, bad[i].error)) fprintf(stderr, "case %zu: got '%s'\n", i, err);
    assert_string_equal(err, bad[i].error);
  }
  /* A too long buffer (limit 1024 from `vlen in [0, 1024]`). */
  char big[1200];
  char longtext[1400];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = 0;
  snprintf(longtext, sizeof longtext, "h1 = kv_open(16, 0); kv_put(h1, \"k\", \"%s\");", big);
  char err[512];
  assert_int_equal(sf_seq_parse_text(&s, api, longtext, strlen(longtext), "t.seq", err, sizeof err),
                   -1);
  assert_string_equal(err, "t.seq:1:38: 1199 elements; parameter 'val' takes 0 to 1024");
  sf_seq_free(&s);
  sf_api_free(api);
}

/* The consume rule and ownership (objlib: obj_child is owned_by its parent,
 * obj_adopt consumes its child, obj_free is the destructor): an owned value
 * is freed by its owner, so consuming it frees it twice; consuming an owner
 * frees what it owns while the callee is also handed that. */
static const struct {
  const char *text;
  const char *error;
} bad_owned[] = {
    {"h1 = obj_new(1);\nh2 = obj_child(h1, 0);\nobj_free(h2);",
     "t.seq:3:10: 'h2' is owned by 'h1' and cannot be destroyed"},
    {"h1 = obj_new(1);\nh2 = obj_new(2);\nh3 = obj_child(h1, 0);\nobj_adopt(h2, h3);",
     "t.seq:4:15: 'h3' is owned by 'h1' and cannot be consumed"},
    {"h1 = obj_new(1);\nh2 = obj_child(h1, 0);\nh3 = obj_child(h2, 1);\nobj_free(h3);",
     "t.seq:4:10: 'h3' is owned by 'h2' and cannot be destroyed"},
    {"h1 = obj_new(1);\nh2 = obj_child(h1, 1);\nobj_adopt(h2, h1);",
     "t.seq:3:11: 'h2' is owned by 'h1', which obj_adopt consumes"},
    {"h1 = obj_new(1);\nh2 = obj_child(h1, 0);\nh3 = obj_child(h2, 0);\nobj_adopt(h3, h1);",
     "t.seq:4:11: 'h3' is owned by 'h1', which obj_adopt consumes"},
    {"h1 = obj_new(1);\nobj_adopt(h1, h1);",
     "t.seq:2:1: obj_adopt consumes a handle that is also passed as another argument"},
};

static void test_ownership_errors(void **state) {
  (void)state;
  sf_api *api = load_api_file(OBJLIB_API);
  sf_seq s;
  sf_seq_init(&s, api);
  for (size_t i = 0; i < sizeof bad_owned / sizeof *bad_owned; i++) {
    char err[512] = "";
    int rc = sf_seq_parse_text(&s, api, bad_owned[i].text, strlen(bad_owned[i].text), "t.seq", err,
                               sizeof err);
    if (rc != -1 || strcmp(err, bad_owned[i].error))
      fprintf(stderr, "case %zu: rc %d, got '%s'\n", i, rc, err);
    assert_int_equal(rc, -1);
    assert_string_equal(err, bad_owned[i].error);
  }
  /* Legal neighbours: a child of another parent is not the consumed one's,
   * and adopting into an owner's child or destroying the owner is fine. */
  parse_seq_ok(&s, api,
               "h1 = obj_new(1);\nh2 = obj_new(2);\nh3 = obj_child(h1, 0);\n"
               "obj_adopt(h3, h2);\nh4 = obj_new(4);\nobj_adopt(h1, h4);\nobj_free(h1);\n");
  assert_int_equal(s.ncalls, 7);
  sf_seq_free(&s);
  sf_api_free(api);
}

/* A string literal printed and parsed back gives every byte, NULs too; only
 * one literal is accepted. */
static void test_string_literal_round_trip(void **state) {
  (void)state;
  uint8_t all[256];
  for (int i = 0; i < 256; i++)
    all[i] = (uint8_t)i;
  sf_buf lit = {0}, back = {0};
  assert_int_equal(sf_seq_print_string(&lit, all, sizeof all), 0);
  assert_int_equal(sf_seq_parse_string((const char *)lit.data, lit.len, &back), 0);
  assert_int_equal(back.len, sizeof all);
  assert_memory_equal(back.data, all, sizeof all);
  sf_buf_reset(&back);
  assert_int_equal(sf_seq_parse_string(" x\"00ff\" ", 9, &back), 0);
  assert_int_equal(back.len, 2);
  assert_int_equal(back.data[1], 0xff);
  assert_int_equal(sf_seq_parse_string("\"a\" \"b\"", 7, &back), -1);
  assert_int_equal(sf_seq_parse_string("12", 2, &back), -1);
  assert_int_equal(sf_seq_parse_string("\"open", 5, &back), -1);
  sf_buf_free(&lit);
  sf_buf_free(&back);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_print_parse_exact),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_ownership_errors),
      cmocka_unit_test(test_string_literal_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
