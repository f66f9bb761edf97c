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

/* Does a pattern that takes any key the expression `# match:` gives stop
 * the run that puts `key` (len bytes)? */
static bool match_stops(const char *key, size_t len) {
  static const char text[] = "# any: 1.1 1.2 2.3\n"
                             "# match: 2.2 k(ey)?[0-9]+\n"
                             "h1 = kv_open(1, 0);\n"
                             "kv_put(h1, \"\", \"\");\n";
  sf_api *api = load_api_file(DEMO_API);
  sf_known *k = sf_known_new(api);
  char err[512] = "";
  assert_int_equal(sf_known_add_text(k, text, strlen(text), "m.seq", err, sizeof err), 0);
  sf_seq s;
  sf_seq_init(&s, api);
  parse_seq_ok(&s, api, "h1 = kv_open(3, 0); kv_put(h1, \"x\", \"v\");");
  assert_int_equal(sf_seq_set_bytes(&s, &sf_seq_args(&s, 1)[1], (const uint8_t *)key, len), 0);
  sf_known_begin_run(k);
  bool stops = sf_known_stops(k, &s, 1);
  sf_seq_free(&s);
  sf_known_free(k);
  sf_api_free(api);
  return stops;
}

static void test_match_takes_the_bytes_whole(void **state) {
  (void)state;
  assert_true(match_stops("k7", 2));
  assert_true(match_stops("key2026", 7));
  assert_false(match_stops("k", 1));   /* no digit */
  assert_false(match_stops("k7x", 3)); /* more after the match: whole bytes only */
  assert_false(match_stops("xk7", 3)); /* before it */
  assert_false(match_stops("k7\0"
                           "9",
                           4)); /* a NUL is a byte like any other */
  assert_false(match_stops("k\0"
                           "7",
                           3));
}

/* Does the merge pattern, with `any` (a rule on its source handle or
 * none), stop run `text` at its last call? */
static bool merge_stops(const char *any, const char *text) {
  char pat[512];
  snprintf(pat, sizeof pat,
           "# any: 1.1 1.2 2.1 2.2 %s\n"
           "h1 = kv_open(1, 0); h2 = kv_open(1, 0); kv_merge(h1, h2);\n",
           any);
  sf_api *api = load_api_file(DEMO_API);
  sf_known *k = sf_known_new(api);
  char err[512] = "";
  assert_int_equal(sf_known_add_text(k, pat, strlen(pat), "h.seq", err, sizeof err), 0);
  sf_seq s;
  sf_seq_init(&s, api);
  parse_seq_ok(&s, api, text);
  sf_known_begin_run(k);
  bool stops = false;
  for (uint32_t ci = 0; ci < s.ncalls; ci++)
    stops = sf_known_stops(k, &s, ci);
  sf_seq_free(&s);
  sf_known_free(k);
  sf_api_free(api);
  return stops;
}

static void test_any_handle(void **state) {
  (void)state;
  /* A snapshot merged into its store: both handles have the store's root,
   * one run root for the pattern's two (handles map one to one), unless the
   * source may be any handle. */
  const char *run =
      "h1 = kv_open(2, 0); h2 = kv_snapshot(h1); h3 = kv_open(5, 0); kv_merge(h1, h2);";
  assert_false(merge_stops("", run));
  assert_true(merge_stops("3.2", run));
  assert_true(merge_stops("", "h1 = kv_open(2, 0); h2 = kv_open(3, 0); kv_merge(h2, h1);"));
}

/* Do the patterns in known_dir stop run `text` of the API in api_path at
 * its last call, and not before? */
static bool stops_at_last(const char *api_path, const char *known_dir, const char *text) {
  sf_api *api = load_api_file(api_path);
  char err[2048] = "";
  sf_known *k = sf_known_load(api, known_dir, err, sizeof err);
  assert_non_null(k);
  assert_string_equal(err, "");
  sf_seq s;
  sf_seq_init(&s, api);
  parse_seq_ok(&s, api, text);
  sf_known_begin_run(k);
  bool before = false;
  for (uint32_t ci = 0; ci + 1 < s.ncalls && !before; ci++)
    before = sf_known_stops(k, &s, ci);
  bool last = !before && sf_known_stops(k, &s, s.ncalls - 1);
  sf_seq_free(&s);
  sf_known_free(k);
  sf_api_free(api);
  return last;
}

/* Each of texts[0..n) stops at its last call (want) or runs on (!want). */
static void check_each(const char *api_path, const char *known_dir, const char *const *texts,
                       size_t n, bool want) {
  for (size_t i = 0; i < n; i++)
    assert_true(stops_at_last(api_path, known_dir, texts[i]) == want);
}
#define CHECK_EACH(api, known, texts, want)                                                        \
  check_each(api, known, texts, sizeof texts / sizeof *texts, want)

/* Does bench/known-patterns/pcre2 stop a compile of `pattern` (under
 * `options`, with a compile context or none) at that call? */
static bool pcre2_stops(const char *pattern, const char *options, bool context) {
  char text[512];
  snprintf(text, sizeof text,
           "h1 = pcre2_compile_context_create(NULL); "
           "h2 = pcre2_compile(\"%s\", %s, &_, &_, %s);",
           pattern, options, context ? "h1" : "NULL");
  return stops_at_last(PCRE2_API, PCRE2_KNOWN, text);
}

/* pcre2's limit overread as the bench's pattern states it: the variants
 * that crashed again after `seqfuzz known`'s exact bytes, and not the
 * patterns that end the setting. */
static void test_pcre2_limit_variants(void **state) {
  (void)state;
  assert_true(pcre2_stops("(*LIMIT_MATCH=", "0", false));
  assert_true(pcre2_stops("(*LIMIT_MATCH=10", "PCRE2_UTF|PCRE2_CASELESS", false));
  assert_true(pcre2_stops("(*LIMIT_DEPTH=1", "0", true));
  assert_true(pcre2_stops("(*UTF)(*LIMIT_HEAP=5)(*LIMIT_RECURSION=", "PCRE2_ANCHORED", false));
  assert_false(pcre2_stops("(*LIMIT_MATCH=10)", "0", false));
  assert_false(pcre2_stops("(*LIMIT_MATCH=10)a", "0", false));
  assert_false(pcre2_stops("(*FOO)(*LIMIT_MATCH=1", "0", false)); /* parsing stops at FOO */
  assert_false(pcre2_stops("(*LIMIT_MATCH=1", "PCRE2_LITERAL", false));
}

static bool cjson_stops(const char *text) {
  return stops_at_last(CJSON_API, CJSON_KNOWN, text);
}

/* pcre2's newline overread (bench/known-patterns/pcre2/
 * invalid-utf-newline-any.seq): a match of any pattern compiled multiline under
 * PCRE2_MATCH_INVALID_UTF in a context whose newline was set, its objects
 * made from a general context or not, substitutions too; the variants
 * below are minimized crash files of 10-minute runs. Not without either option,
 * nor with the default newline. */
static void test_pcre2_newline_overread_variants(void **state) {
  (void)state;
#define CC    "h1 = pcre2_compile_context_create(NULL); "
#define MATCH "h4 = pcre2_match_data_create(0, NULL); pcre2_match(h3, x\"8f61\", 0, 0, h4, NULL);"
  assert_true(stops_at_last(
      PCRE2_API, PCRE2_KNOWN,
      CC
      "pcre2_set_newline(h1, PCRE2_NEWLINE_ANY); "
      "pcre2_set_compile_extra_options(h1, PCRE2_EXTRA_MATCH_LINE); "
      "h3 = pcre2_compile(\"\", PCRE2_EXTENDED|PCRE2_MULTILINE|PCRE2_UTF|PCRE2_MATCH_INVALID_UTF, "
      "&_, &_, h1); " MATCH));
  assert_true(stops_at_last(PCRE2_API, PCRE2_KNOWN,
                            CC
                            "pcre2_set_newline(h1, PCRE2_NEWLINE_ANYCRLF); "
                            "h3 = pcre2_compile(\"^a\", PCRE2_MULTILINE|PCRE2_MATCH_INVALID_UTF, "
                            "&_, &_, h1); h4 = pcre2_match_data_create_from_pattern(h3, NULL); "
                            "pcre2_match(h3, x\"f761\", 0, 0, h4, NULL);"));
  assert_true(stops_at_last(
      PCRE2_API, PCRE2_KNOWN,
      "h1 = pcre2_general_context_create(); h2 = pcre2_compile_context_create(h1); "
      "pcre2_set_newline(h2, PCRE2_NEWLINE_ANYCRLF); "
      "pcre2_set_compile_extra_options(h2, PCRE2_EXTRA_MATCH_LINE); "
      "h3 = pcre2_match_context_create(h1); "
      "h4 = pcre2_compile(\"\", PCRE2_DOTALL|PCRE2_MULTILINE|PCRE2_UCP|PCRE2_MATCH_INVALID_UTF, "
      "&_, &_, h2); h5 = pcre2_match_data_create(0, h1); pcre2_match(h4, x\"e461\", 0, 0, h5, "
      "h3);"));
  assert_true(stops_at_last(PCRE2_API, PCRE2_KNOWN,
                            CC "pcre2_set_newline(h1, PCRE2_NEWLINE_ANYCRLF); "
                               "h3 = pcre2_compile(\"\", PCRE2_MULTILINE|PCRE2_MATCH_INVALID_UTF, "
                               "&_, &_, h1); "
                               "pcre2_substitute(h3, x\"f061\", 0, 0, NULL, NULL, \"\", 0);"));
  /* Without PCRE2_MULTILINE: a pattern starting with `.*` (its implicit
   * start-of-line anchor; invalid-utf-dotstar-newline.seq), not under
   * DOTALL, which anchors it at the start instead. */
  assert_true(stops_at_last(PCRE2_API, PCRE2_KNOWN,
                            CC
                            "pcre2_set_newline(h1, PCRE2_NEWLINE_ANY); "
                            "h3 = pcre2_compile(\"(.*)b\", PCRE2_CASELESS|PCRE2_MATCH_INVALID_UTF, "
                            "&_, &_, h1); " MATCH));
  assert_false(stops_at_last(PCRE2_API, PCRE2_KNOWN,
                             CC "pcre2_set_newline(h1, PCRE2_NEWLINE_ANY); "
                                "h3 = pcre2_compile(\".*a\", PCRE2_DOTALL|PCRE2_MATCH_INVALID_UTF, "
                                "&_, &_, h1); " MATCH));
  assert_false(stops_at_last(PCRE2_API, PCRE2_KNOWN,
                             CC "pcre2_set_newline(h1, PCRE2_NEWLINE_ANY); "
                                "h3 = pcre2_compile(\"^$\", PCRE2_MULTILINE, &_, &_, h1); " MATCH));
  assert_false(
      stops_at_last(PCRE2_API, PCRE2_KNOWN,
                    CC "pcre2_set_newline(h1, PCRE2_NEWLINE_ANY); "
                       "h3 = pcre2_compile(\"^$\", PCRE2_MATCH_INVALID_UTF, &_, &_, h1); " MATCH));
  assert_false(stops_at_last(PCRE2_API, PCRE2_KNOWN,
                             CC
                             "h3 = pcre2_compile(\"^$\", PCRE2_MULTILINE|PCRE2_MATCH_INVALID_UTF, "
                             "&_, &_, h1); " MATCH));
#undef CC
#undef MATCH
}

/* pcre2-jit's known bugs (bench/known-patterns/pcre2-jit; five of them its
 * glue worked around before): each bug file's sequence and its variants stop
 * at the match, and the runs next to them (valid UTF-8, a start offset at a
 * character, no MATCH_INVALID_UTF, no partial option) go on. */
static bool pj_stops(const char *text) {
  return stops_at_last(PCRE2_JIT_API, PCRE2_JIT_KNOWN, text);
}

/* A run that compiles `pattern` under `options` (no context), makes match
 * data, and matches `subject` (seq text) from `start` with `match_options`. */
static bool pj_match_stops(const char *pattern, const char *options, const char *subject,
                           unsigned start, const char *match_options) {
  char text[1024];
  snprintf(text, sizeof text,
           "h1 = pj_compile(\"%s\", %s, NULL, &_, &_); "
           "h2 = pj_match_data_create_from_pattern(h1); "
           "pj_match(h1, %s, %u, %s, h2, NULL);",
           pattern, options, subject, start, match_options);
  return pj_stops(text);
}

static void test_pcre2_jit_known_variants(void **state) {
  (void)state;
  const char *inv = "PCRE2_MATCH_INVALID_UTF", *inv_ml = "PCRE2_CASELESS|PCRE2_MATCH_INVALID_UTF";
  /* #224: \\W, \\D, \\S under MATCH_INVALID_UTF; substitutions too. */
  assert_true(pj_match_stops("f\\\\W", inv, "x\"66c3a9\"", 0, "0"));
  assert_true(pj_match_stops("(?:a)\\\\S+", inv_ml, "\"a b\"", 1, "M_NOTBOL"));
  assert_true(pj_stops("h1 = pj_compile(\"\\\\D\", PCRE2_MATCH_INVALID_UTF, NULL, &_, &_); "
                       "pj_substitute(h1, \"1\", 0, 0, NULL, \"\");"));
  assert_false(pj_match_stops("f\\\\w", inv, "x\"66c3a9\"", 0, "0"));
  assert_false(pj_match_stops("f\\\\W", "PCRE2_UTF", "x\"66c3a9\"", 0, "0"));
  /* A continuation byte at the start offset (a NUL after it is any byte). */
  assert_true(pj_match_stops("", inv, "x\"a9\"", 0, "0"));
  assert_true(pj_match_stops("x?", inv_ml, "x\"61a90062\"", 1, "0"));
  assert_true(pj_stops("h1 = pj_compile(\"\\\\K\", PCRE2_MATCH_INVALID_UTF, NULL, &_, &_); "
                       "pj_substitute(h1, x\"7923bc\", 2, S_SUBSTITUTE_EXTENDED, NULL, \"u\");"));
  assert_false(pj_match_stops("x?", inv, "x\"61a9\"", 0, "0"));     /* a character there */
  assert_false(pj_match_stops("x?", inv, "x\"61a9\"", 2, "0"));     /* the end: no byte */
  assert_false(pj_match_stops("x?", inv, "x\"61a9\"", 7, "0"));     /* past the end */
  assert_false(pj_match_stops("", "PCRE2_UTF", "x\"a9\"", 0, "0")); /* a UTF error */
  /* #238: a partial match on a subject that is not valid UTF-8. */
  assert_true(pj_match_stops("(?=a)", inv, "x\"f8\"", 0, "M_PARTIAL_SOFT"));
  assert_true(pj_match_stops(".a", inv_ml, "x\"62b1\"", 0, "M_NOTEOL|M_PARTIAL_HARD"));
  assert_true(pj_match_stops("a", inv, "x\"00eda080\"", 0, "M_PARTIAL_HARD")); /* a surrogate */
  assert_true(pj_match_stops("a", inv, "x\"c0af\"", 0, "M_PARTIAL_SOFT"));     /* overlong */
  assert_true(pj_match_stops("a", inv, "x\"f4908080\"", 0, "M_PARTIAL_SOFT")); /* > U+10FFFF */
  assert_true(pj_match_stops("a", inv, "x\"61e282\"", 0, "M_PARTIAL_SOFT"));   /* cut short */
  assert_false(pj_match_stops("a", inv, "x\"00c3a9f09f9880ed9fbf\"", 0, "M_PARTIAL_SOFT"));
  assert_false(pj_match_stops("a", inv, "x\"f8\"", 0, "0"));
  assert_false(pj_match_stops("a", "PCRE2_UTF", "x\"f8\"", 0, "M_PARTIAL_SOFT"));
  /* The newline overread: set in a context or by the pattern itself. */
  assert_true(pj_stops("h1 = pj_compile_context_create(); pcre2_set_newline(h1, "
                       "PCRE2_NEWLINE_ANYCRLF); h2 = pj_compile(\"^a\", "
                       "PCRE2_MULTILINE|PCRE2_MATCH_INVALID_UTF, h1, &_, &_); "
                       "h3 = pj_match_data_create(1); pj_match(h2, x\"f761\", 0, 0, h3, NULL);"));
  assert_true(pj_match_stops("(*ANYCRLF)^$", "PCRE2_MULTILINE|PCRE2_MATCH_INVALID_UTF", "x\"f761\"",
                             0, "0"));
  assert_false(pj_match_stops("(*ANYCRLF)^$", "PCRE2_MATCH_INVALID_UTF", "x\"61\"", 0, "0"));
  assert_false(
      pj_match_stops("(*CR)^$", "PCRE2_MULTILINE|PCRE2_MATCH_INVALID_UTF", "x\"61\"", 0, "0"));
  /* FIRSTLINE with an offset limit: matches and substitutions in a context
   * whose limit was set; not without FIRSTLINE, nor with no limit set. */
  assert_true(
      pj_stops("h1 = pj_compile(\"(\\\\w)(\\\\d*)|\", PCRE2_FIRSTLINE|PCRE2_NO_START_OPTIMIZE|"
               "PCRE2_USE_OFFSET_LIMIT, NULL, &_, &_); h2 = pj_match_context_create(); "
               "pcre2_set_offset_limit(h2, 0); pj_substitute(h1, \"a1 b22\", 0, "
               "S_SUBSTITUTE_GLOBAL, h2, \"<$2:$1>\");"));
  assert_false(pj_stops("h1 = pj_compile(\"z\", PCRE2_USE_OFFSET_LIMIT, NULL, &_, &_); "
                        "h2 = pj_match_context_create(); pcre2_set_offset_limit(h2, 1); "
                        "h3 = pj_match_data_create(1); pj_match(h1, \"xyz\", 0, 0, h3, h2);"));
  assert_false(pj_stops("h1 = pj_compile(\"z\", PCRE2_FIRSTLINE|PCRE2_USE_OFFSET_LIMIT, NULL, &_, "
                        "&_); h2 = pj_match_context_create(); h3 = pj_match_data_create(1); "
                        "pj_match(h1, \"xyz\", 0, 0, h3, h2);"));
  /* DOLLAR_ENDONLY with a partial match option. */
  assert_true(pj_match_stops("$1", "PCRE2_DOLLAR_ENDONLY|PCRE2_NEVER_UCP", "\"zzABC12\"", 0,
                             "M_PARTIAL_HARD"));
  assert_true(pj_match_stops("$a", "PCRE2_DOLLAR_ENDONLY", "\"\"", 0, "M_NOTEOL|M_PARTIAL_SOFT"));
  assert_false(pj_match_stops("$1", "PCRE2_NEVER_UCP", "\"zzABC12\"", 0, "M_PARTIAL_HARD"));
  assert_false(pj_match_stops("$1", "PCRE2_DOLLAR_ENDONLY", "\"zzABC12\"", 0, "M_NOTEOL"));
  /* Any partial match of the empty subject; not of another. */
  assert_true(pj_match_stops("\\\\b", "PCRE2_CASELESS", "\"\"", 0, "M_NOTBOL|M_PARTIAL_HARD"));
  assert_true(pj_match_stops("(?:)", "0", "\"\"", 0, "M_PARTIAL_SOFT"));
  assert_false(pj_match_stops("\\\\b", "PCRE2_CASELESS", "\"a\"", 0, "M_PARTIAL_HARD"));
  /* FIRSTLINE under NEWLINE_CRLF (not LF), or with a partial option. */
  assert_true(
      pj_stops("h1 = pj_compile_context_create(); pcre2_set_newline(h1, PCRE2_NEWLINE_CRLF); "
               "h2 = pj_compile(\"(?<=a)\", PCRE2_FIRSTLINE, h1, &_, &_); "
               "h3 = pj_match_data_create(1); pj_match(h2, \"a\", 0, 0, h3, NULL);"));
  assert_false(
      pj_stops("h1 = pj_compile_context_create(); pcre2_set_newline(h1, PCRE2_NEWLINE_LF); "
               "h2 = pj_compile(\"(?<=a)\", PCRE2_FIRSTLINE, h1, &_, &_); "
               "h3 = pj_match_data_create(1); pj_match(h2, \"a\", 0, 0, h3, NULL);"));
  assert_true(pj_match_stops("(*CRLF)(?<=a)", "PCRE2_FIRSTLINE", "\"a\"", 0, "0"));
  assert_false(pj_match_stops("(*LF)$", "PCRE2_FIRSTLINE", "\"a\"", 0, "0"));
  assert_true(pj_match_stops("a", "PCRE2_FIRSTLINE", "x\"0d61\"", 0, "M_PARTIAL_HARD"));
  assert_false(pj_match_stops("a", "PCRE2_FIRSTLINE", "x\"0d61\"", 0, "M_NOTBOL"));
  /* The limit overread at the compile itself. */
  assert_true(pj_stops("h1 = pj_compile(\"(*LIMIT_DEPTH=1\", PCRE2_UTF, NULL, &_, &_);"));
}

/* zlib's gzungetc right after an open for reading: any character, any
 * file, any mode whose last r, w or a is r; not a mode that writes. Its
 * gzsetparams on a transparent write, and its seek before a write. */
static void test_zlib_gzungetc_after_open(void **state) {
  (void)state;
  assert_true(stops_at_last(ZL_API, ZL_KNOWN, "h1 = gzdopen(\"abc\", \"rb\"); gzungetc(120, h1);"));
  assert_true(
      stops_at_last(ZL_API, ZL_KNOWN, "h1 = gzdopen(\"x\", \"te5w@r@q\"); gzungetc(229, h1);"));
  assert_false(
      stops_at_last(ZL_API, ZL_KNOWN, "h1 = gzdopen(\"abc\", \"rw\"); gzungetc(120, h1);"));
  assert_false(
      stops_at_last(ZL_API, ZL_KNOWN, "h1 = gzdopen(\"abc\", \"r+\"); gzungetc(120, h1);"));
  /* gzsetparams on a file opened for transparent writing: by descriptor or
   * by path, writes before or not; not without T, nor for reading. */
  assert_true(stops_at_last(
      ZL_API, ZL_KNOWN,
      "h1 = gzdopen(\"x\", \"Tab\"); gzwrite(h1, \"y\"); gzsetparams(h1, 2, Z_FIXED);"));
  assert_true(stops_at_last(ZL_API, ZL_KNOWN,
                            "zg_tmp_new(&h1, \"q\"); h2 = zg_gzopen(h1, \"w9T\"); "
                            "gzsetparams(h2, 1, Z_DEFAULT_STRATEGY);"));
  assert_false(
      stops_at_last(ZL_API, ZL_KNOWN, "h1 = gzdopen(\"x\", \"wb\"); gzsetparams(h1, 2, Z_FIXED);"));
  assert_false(stops_at_last(ZL_API, ZL_KNOWN,
                             "h1 = gzdopen(\"x\", \"wTr\"); gzsetparams(h1, 2, Z_FIXED);"));
  /* inflateSync after a prime, on any stream; not without one. */
  assert_true(stops_at_last(ZL_API, ZL_KNOWN,
                            "h1 = zg_inflate_init(); inflatePrime(h1, 10, 0); inflateSync(h1);"));
  assert_false(stops_at_last(ZL_API, ZL_KNOWN, "h1 = zg_inflate_init(); inflateSync(h1);"));
  /* A prime of no bits after an inflate, which can leave 32 bits in the
   * buffer; not a prime of some bits. */
  assert_true(stops_at_last(ZL_API, ZL_KNOWN,
                            "h1 = zg_inflate_init2(IW_RAW_15, x\"\", x\"\"); "
                            "zg_inflate_input(h1, \"aaaa\"); inflate(h1, INF_NO_FLUSH); "
                            "inflatePrime(h1, 0, 7);"));
  assert_false(stops_at_last(ZL_API, ZL_KNOWN,
                             "h1 = zg_inflate_init(); zg_inflate_input(h1, \"aaaa\"); "
                             "inflate(h1, INF_NO_FLUSH); inflatePrime(h1, 1, 0);"));
  /* gzflush's endless loop: a buffer of 0 to 5 bytes on a file open for
   * compressed writing, a sync or full flush; by descriptor or by path. Not
   * a buffer of 6, not transparent, not reading, not Z_FINISH. */
  static const char *const hangs[] = {
      "h1 = gzdopen(\"\", \"wb\"); gzbuffer(h1, 0); gzwrite(h1, \"hi\"); gzflush(h1, "
      "GZ_SYNC_FLUSH);",
      "h1 = gzdopen(\"x\", \"a9\"); gzbuffer(h1, 5); gzflush(h1, GZ_FULL_FLUSH);",
      "zg_tmp_new(&h1, \"q\"); h2 = zg_gzopen(h1, \"rw\"); gzbuffer(h2, 3); gzflush(h2, "
      "GZ_FULL_FLUSH);",
      "zg_tmp_new(&h1, \"q\"); h2 = zg_gzopen(h1, \"w\"); gzbuffer(h2, 4); gzflush(h2, "
      "GZ_SYNC_FLUSH);"};
  CHECK_EACH(ZL_API, ZL_KNOWN, hangs, true);
  static const char *const returns[] = {
      "h1 = gzdopen(\"\", \"wb\"); gzbuffer(h1, 6); gzflush(h1, GZ_SYNC_FLUSH);",
      "h1 = gzdopen(\"\", \"wT\"); gzbuffer(h1, 2); gzflush(h1, GZ_SYNC_FLUSH);",
      "h1 = gzdopen(\"\", \"r\"); gzbuffer(h1, 2); gzflush(h1, GZ_SYNC_FLUSH);",
      "h1 = gzdopen(\"\", \"wb\"); gzbuffer(h1, 2); gzflush(h1, GZ_FINISH);"};
  CHECK_EACH(ZL_API, ZL_KNOWN, returns, false);
  /* A windowBits-0 stream's 1-byte window after inflateSync: any window
   * bits, reset by either call, set off by inflate or a copy; not without
   * the sync or the reset. */
  static const char *const small_window[] = {
      "h1 = zg_inflate_init2(IW_HEADER, x\"\", x\"\"); zg_inflate_input(h1, x\"0000ffff2b61\"); "
      "inflateSync(h1); inflate(h1, INF_NO_FLUSH); inflateReset2(h1, IW_HEADER); "
      "inflate(h1, INF_NO_FLUSH);",
      "h1 = zg_inflate_init2(IW_GZ, x\"\", x\"\"); inflateSync(h1); inflate(h1, INF_BLOCK); "
      "inflateReset(h1); h2 = zg_inflate_copy(h1);"};
  CHECK_EACH(ZL_API, ZL_KNOWN, small_window, true);
  static const char *const no_sync[] = {
      "h1 = zg_inflate_init2(IW_HEADER, x\"\", x\"\"); inflate(h1, INF_NO_FLUSH); "
      "inflateReset2(h1, IW_HEADER); inflate(h1, INF_NO_FLUSH);",
      "h1 = zg_inflate_init2(IW_HEADER, x\"\", x\"\"); inflateSync(h1); inflate(h1, "
      "INF_NO_FLUSH); inflate(h1, INF_NO_FLUSH);"};
  CHECK_EACH(ZL_API, ZL_KNOWN, no_sync, false);
  /* inflateCopy after any inflate (the fixed-distcode UB); not a copy of a
   * stream that never inflated. */
  assert_true(stops_at_last(ZL_API, ZL_KNOWN,
                            "h1 = zg_inflate_init2(IW_AUTO_15, x\"\", x\"\"); "
                            "zg_inflate_input(h1, \"abc\"); inflate(h1, INF_BLOCK); "
                            "h2 = zg_inflate_copy(h1);"));
  assert_true(stops_at_last(ZL_API, ZL_KNOWN,
                            "h1 = zg_inflate_init(); inflate(h1, INF_NO_FLUSH); "
                            "h2 = zg_inflate_copy(h1);"));
  assert_false(
      stops_at_last(ZL_API, ZL_KNOWN, "h1 = zg_inflate_init(); h2 = zg_inflate_copy(h1);"));
  /* The gzseek-before-write bug by the repeat check's signature. */
  sf_api *api = load_api_file(ZL_API);
  char err[2048] = "";
  sf_known *k = sf_known_load(api, ZL_KNOWN, err, sizeof err);
  assert_non_null(k);
  assert_true(sf_known_signature(k, "nondeterminism in gzoffset [observer]"));
  assert_false(sf_known_signature(k, "nondeterminism in gztell [observer]"));
  sf_known_free(k);
  sf_api_free(api);
}

/* sqlite3's deserialize under a read transaction, a stepped statement's:
 * any statement, image and schema; not without the step. */
static void test_sqlite3_deserialize_reading(void **state) {
  (void)state;
  assert_true(
      stops_at_last(SQ_API, SQ_KNOWN,
                    "h1 = sqlite3_glue_open(false, false); "
                    "sqlite3_prepare_v3(h1, \"SELECT x FROM v\", 0, &h2, &_); sqlite3_step(h2); "
                    "sqlite3_glue_deserialize(h1, \"main\", \"SQLite format 3\", true, false);"));
  /* Read-only or not. */
  assert_true(
      stops_at_last(SQ_API, SQ_KNOWN,
                    "h1 = sqlite3_glue_open(false, false); "
                    "sqlite3_prepare_v2(h1, \"SELECT x FROM v\", &h2, &_); sqlite3_step(h2); "
                    "sqlite3_glue_deserialize(h1, \"main\", \"\", false, true);"));
  assert_false(stops_at_last(SQ_API, SQ_KNOWN,
                             "h1 = sqlite3_glue_open(false, false); "
                             "sqlite3_prepare_v2(h1, \"SELECT x FROM v\", &h2, &_); "
                             "sqlite3_glue_deserialize(h1, \"main\", \"\", true, false);"));
}

/* sqlite3_close_v2 after a blob was aborted by a failed reopen: any blob
 * and row; not without the reopen (the connection stays a zombie). */
static void test_sqlite3_blob_aborted_close_v2(void **state) {
  (void)state;
  assert_true(stops_at_last(SQ_API, SQ_KNOWN,
                            "h1 = sqlite3_glue_open(false, false); "
                            "sqlite3_blob_open(h1, \"main\", \"t\", \"x\", 7, 1, &h2); "
                            "sqlite3_blob_reopen(h2, 3); sqlite3_close_v2(h1);"));
  assert_false(stops_at_last(SQ_API, SQ_KNOWN,
                             "h1 = sqlite3_glue_open(false, false); "
                             "sqlite3_blob_open(h1, \"main\", \"t\", \"x\", 7, 1, &h2); "
                             "sqlite3_close_v2(h1);"));
}

/* sqlite3_str's empty allocated buffer: an append of nothing (by any of the
 * four ways) to a new string, of any database or none, then any appendf;
 * not an appendf of nothing, an append of something, nor after a reset. */
static void test_sqlite3_str_empty_buffer(void **state) {
  (void)state;
  static const char *const armed[] = {
      "h1 = sqlite3_str_new(NULL); sqlite3_str_append(h1, \"\"); sqlite3_str_appendf(h1, \"n\");",
      "h0 = sqlite3_glue_open(false, false); h1 = sqlite3_str_new(h0); "
      "sqlite3_glue_str_appendf_z(h1, \"\"); sqlite3_glue_str_appendf_z(h1, \"y\");",
      "h1 = sqlite3_str_new(NULL); sqlite3_str_appendall(h1, \"\"); sqlite3_str_appendf(h1, "
      "\"a\");",
      "h1 = sqlite3_str_new(NULL); sqlite3_str_appendchar(h1, 0, 65); "
      "sqlite3_str_length(h1); sqlite3_glue_str_appendf_z(h1, \"abc\");"};
  CHECK_EACH(SQ_API, SQ_KNOWN, armed, true);
  static const char *const safe[] = {
      "h1 = sqlite3_str_new(NULL); sqlite3_str_appendf(h1, \"\"); sqlite3_str_appendf(h1, \"a\");",
      "h1 = sqlite3_str_new(NULL); sqlite3_str_append(h1, \"abc\"); sqlite3_str_appendf(h1, "
      "\"a\");",
      "h1 = sqlite3_str_new(NULL); sqlite3_str_appendchar(h1, 3, 65); sqlite3_str_appendf(h1, "
      "\"a\");",
      "h1 = sqlite3_str_new(NULL); sqlite3_glue_str_appendf_z(h1, \"x\"); "
      "sqlite3_str_appendf(h1, \"a\");"};
  CHECK_EACH(SQ_API, SQ_KNOWN, safe, false);
}

/* sqlite3's bugs met by 10-minute runs in one process, each in a shape
 * that stops and one close to it that goes on. */
static void test_sqlite3_shapes_in_one_process(void **state) {
  (void)state;
  static const struct {
    bool stops;
    const char *text;
  } cases[] = {
      /* A close, which fails, of a connection with an fts5 table and a
       * prepared statement; not without the statement. */
      {true, "h1 = sqlite3_glue_open(false, false); sqlite3_exec(h1, \"create virtual table t "
             "using fts5(x)\", x\"\"); sqlite3_prepare(h1, \"select 1\", &h2, &_); "
             "sqlite3_close(h1);"},
      {false, "h1 = sqlite3_glue_open(false, false); sqlite3_exec(h1, \"create virtual table t "
              "using fts5(x)\", x\"\"); sqlite3_close(h1);"},
      /* A function redefined under an active statement and a heap limit;
       * not without the statement stepped. */
      {true, "h1 = sqlite3_glue_open(false, false); sqlite3_glue_create_function(h1, \"g\", 1, 0, "
             "true); sqlite3_prepare_v3(h1, \"SELECT 2\", 0, &h2, &_); sqlite3_step(h2); "
             "sqlite3_hard_heap_limit64(4096); sqlite3_glue_create_function(h1, \"g\", 1, 0, "
             "false);"},
      {false, "h1 = sqlite3_glue_open(false, false); sqlite3_glue_create_function(h1, \"g\", 1, "
              "0, true); sqlite3_prepare_v3(h1, \"SELECT 2\", 0, &h2, &_); "
              "sqlite3_hard_heap_limit64(4096); sqlite3_glue_create_function(h1, \"g\", 1, 0, "
              "false);"},
      /* A deserialize of the schema an open blob reads; not of another one. */
      {true, "h1 = sqlite3_glue_open(false, false); sqlite3_blob_open(h1, \"aux\", \"t\", "
             "\"c\", 3, 1, &h2); sqlite3_blob_bytes(h2); sqlite3_glue_deserialize(h1, \"aux\", "
             "\"\", false, true);"},
      {false, "h1 = sqlite3_glue_open(false, false); sqlite3_blob_open(h1, \"aux\", \"t\", "
              "\"c\", 3, 1, &h2); sqlite3_glue_deserialize(h1, \"main\", \"\", false, true);"},
      /* Profile tracing ended under a stepped statement, whichever prepare
       * made it before or after the trace began; not an unstepped one. */
      {true, "h1 = sqlite3_glue_open(false, false); sqlite3_prepare_v3(h1, \"SELECT 2\", 0, &h2, "
             "&_); sqlite3_trace_v2(h1, SQLITE_TRACE_PROFILE, x\"62\"); sqlite3_step(h2); "
             "sqlite3_trace_v2(h1, 0, x\"\");"},
      {false, "h1 = sqlite3_glue_open(false, false); sqlite3_prepare_v3(h1, \"SELECT 2\", 0, &h2, "
              "&_); sqlite3_trace_v2(h1, SQLITE_TRACE_PROFILE, x\"62\"); "
              "sqlite3_trace_v2(h1, 0, x\"\");"},
      /* A deserialize of a backup's source schema; not of another schema,
       * nor without a backup. */
      {true, "h1 = sqlite3_glue_open(false, true); h2 = sqlite3_glue_open(true, false); h3 = "
             "sqlite3_backup_init(h2, \"temp\", h1, \"aux\"); sqlite3_glue_deserialize(h1, "
             "\"aux\", \"x\", true, true);"},
      {false, "h1 = sqlite3_glue_open(false, true); h2 = sqlite3_glue_open(true, false); h3 = "
              "sqlite3_backup_init(h2, \"main\", h1, \"main\"); sqlite3_glue_deserialize(h1, "
              "\"aux\", \"x\", true, true);"},
      {false, "h1 = sqlite3_glue_open(false, true); sqlite3_glue_deserialize(h1, \"main\", "
              "\"x\", true, true);"},
      /* Modules dropped after an fts5 table was made; not after another
       * table. */
      {true, "h1 = sqlite3_glue_open(true, false); sqlite3_exec(h1, \"create virtual table t "
             "using\\tFTS5(x); select 1\", x\"\"); sqlite3_glue_drop_modules(h1, \"rtree\");"},
      {false, "h1 = sqlite3_glue_open(false, false); sqlite3_exec(h1, \"CREATE TABLE t(fts5)\", "
              "x\"\"); sqlite3_glue_drop_modules(h1, NULL);"},
      /* The same, the table made by a prepared statement stepped; not one
       * only prepared. */
      {true, "h1 = sqlite3_glue_open(false, false); sqlite3_prepare_v3(h1, \"create virtual table "
             "t using fts5(a)\", 0, &h2, &_); sqlite3_step(h2); sqlite3_glue_drop_modules(h1, "
             "\"x\");"},
      {false, "h1 = sqlite3_glue_open(false, false); sqlite3_prepare_v3(h1, \"create virtual "
              "table t using fts5(a)\", 0, &h2, &_); sqlite3_glue_drop_modules(h1, \"x\");"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    assert_true(stops_at_last(SQ_API, SQ_KNOWN, cases[i].text) == cases[i].stops);
}

/* zlib-libdeflate's uncompress2 bug: one-shot zlib-format decompressions into
 * no room, of bytes or of a buffer; not with room, a decompressor or another
 * format. */
static void test_zlib_libdeflate_destlen_0(void **state) {
  (void)state;
  assert_true(stops_at_last(ZD_API, ZD_KNOWN, "h1 = zd_zlib_decompress(NULL, x\"789c4b04\", 0);"));
  assert_true(stops_at_last(ZD_API, ZD_KNOWN,
                            "h1 = zd_compress(\"abc\", 9, ZD_ZLIB, 9, Z_RLE); "
                            "h2 = zd_decompress_buf(NULL, h1, ZD_ZLIB, 0);"));
  assert_false(stops_at_last(ZD_API, ZD_KNOWN, "h1 = zd_zlib_decompress(NULL, x\"789c\", 1);"));
  assert_false(stops_at_last(ZD_API, ZD_KNOWN,
                             "h1 = zd_dec_new(); h2 = zd_zlib_decompress(h1, x\"789c\", 0);"));
  assert_false(stops_at_last(ZD_API, ZD_KNOWN,
                             "h1 = zd_compress(\"abc\", 9, ZD_RAW, 9, Z_RLE); "
                             "h2 = zd_decompress_buf(NULL, h1, ZD_RAW, 0);"));
}

/* cJSON's NaN cast (a NaN number item) as the bench's patterns state it:
 * any array with a NaN among other numbers, any object a NaN is added to;
 * not the arrays and numbers without one (an infinity is clamped). */
static void test_cjson_nan_variants(void **state) {
  (void)state;
  assert_true(cjson_stops("h1 = cJSON_CreateDoubleArray({1.5, nan, -2.0});"));
  assert_true(cjson_stops("h1 = cJSON_CreateFloatArray({0.5, 0.25, nan});"));
  assert_false(cjson_stops("h1 = cJSON_CreateDoubleArray({1.5, inf, -2.0});"));
  assert_false(cjson_stops("h1 = cJSON_CreateFloatArray({});"));
  assert_true(cjson_stops(
      "h1 = cJSON_Parse(\"{}\"); h2 = cj_item(h1); h3 = cJSON_AddNumberToObject(h2, \"k\", nan);"));
  assert_false(cjson_stops(
      "h1 = cJSON_Parse(\"{}\"); h2 = cj_item(h1); h3 = cJSON_AddNumberToObject(h2, \"k\", 1.5);"));
  assert_true(cjson_stops(
      "h1 = cJSON_CreateObject(); h2 = cj_item(h1); h3 = cJSON_AddNumberToObject(h2, \"\", nan);"));
}

/* cJSON's sort_list bug (bench/known-patterns/cjson/sorted-*.seq): any
 * change of a tree after a sort of it, from or to of a patch generator
 * included; not a change without a sort, nor of another tree. The NaN
 * cast on any item (`# given:` calls that only make it), and the two
 * string reference bugs: a NULL one met by a patch generator, a root
 * reference replaced by ApplyPatches. A sorted object added to another
 * tree, that tree patched: the patch walks into it (not another tree).
 * A patch whose "test" sorts the tree, then a change (not an "add"). */
static void test_cjson_sorted_then_changed(void **state) {
  (void)state;
  const char *tree = "h1 = cJSON_Parse(\"{\\\"b\\\":1,\\\"a\\\":[2]}\"); h2 = cj_item(h1); ";
  char run[1024];
  const char *stop[] = {
      "cJSONUtils_SortObject(h2); h3 = cJSON_AddNullToObject(h2, \"k\");",
      "h3 = cJSON_GetObjectItem(h2, \"a\"); cJSONUtils_SortObjectCaseSensitive(h3); "
      "h4 = cJSON_CreateTrue(); cJSON_AddItemToArray(h1, h4);",
      "h3 = cJSON_CreateObject(); h4 = cj_item(h3); h5 = cJSONUtils_GeneratePatches(h4, h2); "
      "h6 = cJSON_DetachItemFromObject(h1, \"b\");",
      "h3 = cJSON_CreateArray(); h4 = cj_item(h3); h5 = cJSONUtils_GenerateMergePatch(h2, h4); "
      "cJSONUtils_AddPatchToArray(h2, \"add\", \"/x\", NULL);",
      "cJSON_SetNumberHelper(h2, nan);",
      "h3 = cJSON_CreateStringReference(NULL); h4 = cJSON_CreateArray(); "
      "cJSON_AddItemToArray(h4, h3); h5 = cj_item(h4); h6 = cJSONUtils_GenerateMergePatch(h5, h2);",
      "h3 = cJSON_CreateStringReference(\"s\"); cJSONUtils_ApplyPatches(h3, h1);",
      "cJSONUtils_SortObject(h2); h3 = cJSON_CreateObject(); cJSON_AddItemToObject(h3, \"i\", h1); "
      "h4 = cJSON_Parse(\"{}\"); h5 = cJSONUtils_MergePatch(h3, h4);",
      "h3 = cJSON_Parse(\"[{\\\"op\\\": \\\"test\\\",\\\"path\\\":\\\"\\\",\\\"value\\\":{}}]\"); "
      "cJSONUtils_ApplyPatches(h1, h3); h4 = cJSON_CreateNull(); cJSON_AddItemToObject(h1, \"k\", "
      "h4);"};
  for (size_t i = 0; i < sizeof stop / sizeof *stop; i++) {
    snprintf(run, sizeof run, "%s%s", tree, stop[i]);
    assert_true(cjson_stops(run));
  }
  const char *go_on[] = {
      "h3 = cJSON_AddNullToObject(h2, \"k\");",
      "cJSON_SetNumberHelper(h2, 1.5);",
      ("h3 = cJSON_CreateObject(); h4 = cj_item(h3); cJSONUtils_SortObject(h4); "
       "h5 = cJSON_AddNullToObject(h2, \"k\");"),
      "cJSONUtils_SortObject(h2); cJSON_Print(h2);",
      ("h3 = cJSON_Parse(\"[{\\\"op\\\":\\\"add\\\",\\\"path\\\":\\\"/t\\\",\\\"value\\\":{}}]\"); "
       "cJSONUtils_ApplyPatches(h1, h3); h4 = cJSON_CreateNull(); "
       "cJSON_AddItemToObject(h1, \"k\", h4);"),
      ("cJSONUtils_SortObject(h2); h3 = cJSON_CreateObject(); "
       "cJSON_AddItemToObject(h3, \"i\", h1); h4 = cJSON_CreateObject(); "
       "h5 = cJSON_Parse(\"{}\"); h6 = cJSONUtils_MergePatch(h4, h5);"),
      "h3 = cJSON_CreateStringReference(\"s\"); h4 = cj_item(h3); "
      "h5 = cJSONUtils_GeneratePatches(h4, h2);"};
  for (size_t i = 0; i < sizeof go_on / sizeof *go_on; i++) {
    snprintf(run, sizeof run, "%s%s", tree, go_on[i]);
    assert_false(cjson_stops(run));
  }
}

/* `# given:` calls need not be in a run (any handle stands for theirs, one
 * to one as always), and `# instead:` alternatives stand in for any call,
 * on the same handles in order. */
static void test_given_and_instead(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_known *k = sf_known_new(api);
  char err[512] = "";
  const char *text = "# given: 1\n"
                     "# any: 2.2 2.3\n"
                     "# instead: 2 kv_del\n"
                     "h1 = kv_open(1, 0);\n"
                     "kv_put(h1, \"\", \"\");\n"
                     "kv_compact(h1);\n";
  assert_int_equal(sf_known_add_text(k, text, strlen(text), "g.seq", err, sizeof err), 0);
  struct {
    const char *run;
    int stop;
  } cases[] = {
      {"h1 = kv_open(9, 0); h2 = kv_open(7, KV_NOCOPY); kv_put(h2, \"k\", \"v\"); "
       "kv_compact(h2);",
       3},
      {"h1 = kv_open(2, 0); h2 = kv_snapshot(h1); kv_del(h1, \"k\"); kv_compact(h2);", 3},
      {"h1 = kv_open(2, 0); h2 = kv_open(3, 0); kv_put(h1, \"k\", \"v\"); kv_compact(h2);", -1},
      {"h1 = kv_open(2, 0); kv_compact(h1); kv_count(h1);", -1}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    sf_seq s;
    sf_seq_init(&s, api);
    parse_seq_ok(&s, api, cases[i].run);
    sf_known_begin_run(k);
    int at = -1;
    for (uint32_t ci = 0; ci < s.ncalls && at < 0; ci++)
      if (sf_known_stops(k, &s, ci)) at = (int)ci;
    assert_int_equal(at, cases[i].stop);
    sf_seq_free(&s);
  }
  sf_known_free(k);
  sf_api_free(api);
}

/* A file with no calls but a signature: a finding of the checks, by name. */
static void test_signature_files(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_known *k = sf_known_new(api);
  char err[512] = "";
  const char *text =
      "# a known bug: round-trip-failure\n"
      "# signature:  round-trip-failure in kv_load [rejects its printer's output] \n";
  assert_int_equal(sf_known_add_text(k, text, strlen(text), "s.seq", err, sizeof err), 0);
  assert_int_equal(sf_known_count(k), 1);
  assert_true(
      sf_known_signature(k, "round-trip-failure in kv_load [rejects its printer's output]"));
  assert_false(sf_known_signature(k, "round-trip-failure in kv_load [prints differently]"));
  assert_int_equal(sf_known_add_text(k, "# nothing\n", 10, "e.seq", err, sizeof err), -1);
  assert_non_null(strstr(err, "e.seq: no calls"));
  sf_known_free(k);
  sf_api_free(api);
}

static void test_bad_rules_are_errors(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_known *k = sf_known_new(api);
  char err[512];
  const char *bad[] = {"# any: 9.1\nh1 = kv_open(1, 0);\n",
                       "# any: x\nh1 = kv_open(1, 0);\n",
                       "# order: 1 1\nh1 = kv_open(1, 0); kv_count(h1); kv_close(h1);\n",
                       "h1 = kv_open(1, 0",
                       "# match: 2.2 (unclosed\nh1 = kv_open(1, 0); kv_put(h1, \"\", \"\");\n",
                       "# match: 1.1 [0-9]\nh1 = kv_open(1, 0);\n",
                       "# match: 2.2\nh1 = kv_open(1, 0); kv_put(h1, \"\", \"\");\n",
                       "# nomatch: 2.2\nh1 = kv_open(1, 0); kv_put(h1, \"\", \"\");\n",
                       "# match: 2.2 a\\x00\nh1 = kv_open(1, 0); kv_put(h1, \"\", \"\");\n",
                       "# match: 2.2@2.3 a\nh1 = kv_open(1, 0); kv_put(h1, \"\", \"\");\n",
                       "# match: 2.2@1.1 a\nh1 = kv_open(1, 0); kv_put(h1, \"\", \"\");\n",
                       "# match: 2.2@ a\nh1 = kv_open(1, 0); kv_put(h1, \"\", \"\");\n",
                       "# has: 1.1\nh1 = kv_open(1, 0);\n",
                       "# given: 2\nh1 = kv_open(1, 0); kv_count(h1);\n",
                       "# given: 0\nh1 = kv_open(1, 0); kv_count(h1);\n",
                       "# instead: 3 kv_close\nh1 = kv_open(1, 0); kv_count(h1);\n",
                       "# instead: 2 kv_nothing\nh1 = kv_open(1, 0); kv_count(h1);\n",
                       "# last: kv_nothing\nh1 = kv_open(1, 0); kv_count(h1);\n"};
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
                                     cmocka_unit_test(test_match_takes_the_bytes_whole),
                                     cmocka_unit_test(test_any_handle),
                                     cmocka_unit_test(test_pcre2_limit_variants),
                                     cmocka_unit_test(test_pcre2_newline_overread_variants),
                                     cmocka_unit_test(test_pcre2_jit_known_variants),
                                     cmocka_unit_test(test_zlib_gzungetc_after_open),
                                     cmocka_unit_test(test_sqlite3_deserialize_reading),
                                     cmocka_unit_test(test_sqlite3_blob_aborted_close_v2),
                                     cmocka_unit_test(test_sqlite3_str_empty_buffer),
                                     cmocka_unit_test(test_sqlite3_shapes_in_one_process),
                                     cmocka_unit_test(test_zlib_libdeflate_destlen_0),
                                     cmocka_unit_test(test_cjson_nan_variants),
                                     cmocka_unit_test(test_cjson_sorted_then_changed),
                                     cmocka_unit_test(test_given_and_instead),
                                     cmocka_unit_test(test_signature_files),
                                     cmocka_unit_test(test_bad_rules_are_errors)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
