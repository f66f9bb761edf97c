/* Allocation failure, SQLite style: fail the n-th allocation for every n and
 * check that the parser, the codec and the text form report the failure and
 * neither crash nor leak (LeakSanitizer checks at exit). The wrappers replace
 * our code's malloc family at link time (-Wl,--wrap=...). */
#include "test_util.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);

static long countdown = -1; /* allocations left before one fails; -1: never */
static long failures;

static int should_fail(void) {
  if (countdown < 0) return 0;
  if (countdown-- == 0) {
    failures++;
    return 1;
  }
  return 0;
}

void *__wrap_malloc(size_t n) {
  return should_fail() ? NULL : __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m) {
  return should_fail() ? NULL : __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n) {
  return should_fail() ? NULL : __real_realloc(p, n);
}
char *__wrap_strdup(const char *s) {
  return should_fail() ? NULL : __real_strdup(s);
}

static char *slurp(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  static char buf[65536];
  *len = fread(buf, 1, sizeof buf, fp);
  fclose(fp);
  return buf;
}

static void test_parser_oom(void **state) {
  (void)state;
  size_t len;
  const char *text = slurp(DEMO_API, &len);
  long n;
  for (n = getenv("OOM_START") ? atol(getenv("OOM_START")) : 0;; n++) {
    char err[512];
    countdown = n;
    failures = 0;
    sf_api *api = sf_api_parse(text, len, "demo.api", err, sizeof err);
    countdown = -1;
    if (failures == 0) { /* every allocation of a whole parse succeeded */
      assert_non_null(api);
      sf_api_free(api);
      break;
    }
    if (api) fprintf(stderr, "allocation %ld failed but the parse succeeded\n", n);
    assert_null(api); /* a failed allocation is never a half-built API */
    assert_non_null(strstr(err, "out of memory"));
  }
  assert_true(n > 50); /* the loop really went through the allocations */
}

static void test_codec_and_text_oom(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  size_t len;
  char text[65536];
  const char *t = slurp(DEMO_SEEDS "/iterate.seq", &len);
  memcpy(text, t, len);
  sf_seq ref;
  sf_seq_init(&ref, api);
  parse_seq_ok(&ref, api, text);
  sf_buf bin = {0};
  assert_int_equal(sf_seq_encode(&ref, &bin), 0);
  long n, done = 0;
  for (n = 0; done < 3; n++) {
    sf_seq s;
    sf_seq_init(&s, api);
    sf_buf out = {0};
    char err[256];
    countdown = n;
    failures = 0;
    sf_decode_status st = sf_seq_decode(&s, api, bin.data, bin.len);
    int prc = sf_seq_parse_text(&s, api, text, len, "t.seq", err, sizeof err);
    int erc = sf_seq_encode(&ref, &out);
    int rrc = sf_seq_repair(&s);
    countdown = -1;
    if (failures == 0) {
      assert_int_equal(st, SF_DECODE_OK);
      assert_int_equal(prc, 0);
      assert_int_equal(erc, 0);
      assert_true(rrc >= 0);
      done++; /* a few clean rounds in a row: past the last allocation */
    } else {
      done = 0;
      /* Whatever failed said so; nothing may crash afterwards. */
      (void)st;
      (void)prc;
      (void)erc;
      (void)rrc;
    }
    sf_seq_free(&s);
    sf_buf_free(&out);
  }
  assert_true(n > 10);
  sf_buf_free(&bin);
  sf_seq_free(&ref);
  sf_api_free(api);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parser_oom),
      cmocka_unit_test(test_codec_and_text_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
