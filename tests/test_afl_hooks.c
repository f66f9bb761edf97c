/* The AFL++ custom mutator hooks, driven the way afl-fuzz drives them:
 * init (API from SEQFUZZ_API, shared memory exported), fuzz with and without
 * a second input, queue entries with and without a run record, and the
 * trimming protocol with a stand-in for "the coverage stayed the same". */
#include <unistd.h>

#include "base/sf_hash.h"
#include "harness/feedback.h"
#include "test_util.h"

void *afl_custom_init(void *afl, unsigned int seed);
void afl_custom_deinit(void *data);
size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
                       uint8_t *add_buf, size_t add_buf_size, size_t max_size);
uint8_t afl_custom_queue_new_entry(void *data, const uint8_t *filename_new_queue,
                                   const uint8_t *filename_orig_queue);
int32_t afl_custom_init_trim(void *data, uint8_t *buf, size_t buf_size);
size_t afl_custom_trim(void *data, uint8_t **out_buf);
int32_t afl_custom_post_trim(void *data, uint8_t success);
const char *afl_custom_describe(void *data, size_t max_description_len);

static sf_api *api;

static void encode(const char *text, sf_buf *out) {
  sf_seq s;
  sf_seq_init(&s, api);
  parse_seq_ok(&s, api, text);
  sf_buf_reset(out);
  assert_int_equal(sf_seq_encode(&s, out), 0);
  sf_seq_free(&s);
}

static void test_init_requires_api(void **state) {
  (void)state;
  unsetenv("SEQFUZZ_API");
  assert_null(afl_custom_init(NULL, 1));
  setenv("SEQFUZZ_API", "/nonexistent.api", 1);
  assert_null(afl_custom_init(NULL, 1));
}

static void test_fuzz_and_queue(void **state) {
  (void)state;
  setenv("SEQFUZZ_API", DEMO_API, 1);
  unsetenv(SF_SHM_ENV);
  void *m = afl_custom_init(NULL, 7);
  assert_non_null(m);
  assert_non_null(getenv(SF_SHM_ENV)); /* exported for the target */
  sf_buf a = {0}, b = {0};
  encode("h1 = kv_open(4, 0);\nkv_put(h1, \"k\", \"v\");\n", &a);
  encode("h1 = kv_open(2, KV_CHECKSUM);\nkv_compact(h1);\n", &b);
  /* A queue entry, as afl-fuzz saves it. */
  char path[] = "/tmp/seqfuzz-queue-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, a.data, a.len), (ssize_t)a.len);
  close(fd);
  assert_int_equal(afl_custom_queue_new_entry(m, (const uint8_t *)path, NULL), 0);
  unlink(path);
  sf_seq s;
  sf_seq_init(&s, api);
  /* Every output is valid and new: a repeat is not handed over (0: afl-fuzz
   * runs nothing), so the same two inputs give fewer outputs over time. */
  sf_hashset *seen = sf_hashset_new(4096);
  int emitted = 0, emitted_late = 0;
  for (int i = 0; i < 2000; i++) {
    uint8_t *out = NULL;
    size_t max = 64 + (size_t)i % 512;
    size_t n = afl_custom_fuzz(m, a.data, a.len, &out, i % 3 ? NULL : b.data, b.len, max);
    assert_non_null(out);
    if (n == 0) continue;
    assert_true(n <= max && n >= SF_HEADER_SIZE);
    assert_int_equal(sf_seq_decode(&s, api, out, n), SF_DECODE_OK);
    assert_valid(&s);
    /* The target observes every AFL++ run: so must a replay of it. */
    assert_true(s.observed);
    /* The first output runs the new queue entry again, the target recording
     * calls (the stateful testing stage's probe): a repeat by nature. */
    bool probe = strcmp(afl_custom_describe(m, 64), "seqfuzz-contracts-probe") == 0;
    assert_int_equal(probe, i == 0);
    if (probe) {
      assert_int_equal(s.ncalls, 2);
      continue;
    }
    assert_true(sf_hashset_insert(seen, sf_hash_bytes(out, n, 0)));
    emitted++;
    emitted_late += i >= 1000;
  }
  assert_true(emitted > 500);
  assert_true(emitted_late < emitted - emitted_late);
  sf_hashset_free(seen);
  const char *d = afl_custom_describe(m, 32);
  assert_true(strncmp(d, "seqfuzz-", 8) == 0 && strlen(d) < 32);
  /* Garbage in the queue (another fuzzer's file) is mutated into valid output. */
  uint8_t junk[5] = {1, 2, 3, 4, 5}, *out = NULL;
  size_t n = afl_custom_fuzz(m, junk, sizeof junk, &out, NULL, 0, 256);
  assert_int_equal(sf_seq_decode(&s, api, out, n), SF_DECODE_OK);
  sf_seq_free(&s);
  sf_buf_free(&a);
  sf_buf_free(&b);
  afl_custom_deinit(m);
}

/* Trimming: "coverage stays the same" stands for "kv_compact is still
 * there"; the result keeps the compaction and what it needs, nothing else. */
static void test_trim(void **state) {
  (void)state;
  setenv("SEQFUZZ_API", DEMO_API, 1);
  void *m = afl_custom_init(NULL, 1);
  assert_non_null(m);
  sf_buf in = {0};
  encode("h1 = kv_open(4, 0);\nkv_put(h1, \"k\", \"v\");\nh2 = kv_open(8, 0);\n"
         "kv_count(h2);\nkv_compact(h1);\nkv_count(h1);\n",
         &in);
  int32_t steps = afl_custom_init_trim(m, in.data, in.len);
  assert_int_equal(steps, 6);
  sf_seq s;
  sf_seq_init(&s, api);
  uint8_t kept[4096];
  size_t kept_len = in.len;
  memcpy(kept, in.data, in.len);
  int32_t cur = 0, rounds = 0;
  int32_t compact = sf_api_find_func(api, "kv_compact");
  while (cur < steps && rounds++ < 100) {
    uint8_t *out = NULL;
    size_t n = afl_custom_trim(m, &out);
    assert_true(n <= in.len);
    assert_int_equal(sf_seq_decode(&s, api, out, n), SF_DECODE_OK);
    assert_valid(&s);
    bool has = false;
    for (uint32_t ci = 0; ci < s.ncalls; ci++)
      has |= s.calls[ci].func == (uint32_t)compact;
    if (has) {
      memcpy(kept, out, n);
      kept_len = n;
    }
    cur = afl_custom_post_trim(m, has);
  }
  assert_int_equal(cur, steps); /* the protocol ended */
  assert_int_equal(sf_seq_decode(&s, api, kept, kept_len), SF_DECODE_OK);
  assert_int_equal(s.ncalls, 2); /* kv_open(4, 0); kv_compact(h1); */
  sf_seq_free(&s);
  sf_buf_free(&in);
  afl_custom_deinit(m);
}

int main(void) {
  api = load_api_file(DEMO_API);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_requires_api),
      cmocka_unit_test(test_fuzz_and_queue),
      cmocka_unit_test(test_trim),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  sf_api_free(api);
  return rc;
}
