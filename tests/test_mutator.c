/* The mutator: every output decodes to a valid sequence, respects max_size
 * and max_calls, and the mutations really change and grow sequences. */
#include "base/sf_rng.h"
#include "mutator/mutate.h"
#include "test_util.h"

static void check_output(const sf_api *api, sf_seq *s, const uint8_t *out, size_t n,
                         size_t max_size, uint32_t max_calls) {
  assert_true(n >= SF_HEADER_SIZE);
  assert_true(n <= max_size);
  assert_int_equal(sf_seq_decode(s, api, out, n), SF_DECODE_OK);
  assert_valid(s);
  assert_true(s->ncalls <= max_calls);
  /* The output is canonical: re-encoding gives the same bytes. */
  sf_buf e = {0};
  assert_int_equal(sf_seq_encode(s, &e), 0);
  assert_int_equal(e.len, n);
  assert_memory_equal(e.data, out, n);
  sf_buf_free(&e);
}

static void test_mutations_stay_valid(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_mutator_options opt = {.max_calls = 24};
  sf_mutator *m = sf_mutator_new(api, &opt);
  assert_non_null(m);
  sf_seq s;
  sf_seq_init(&s, api);
  uint8_t cur[4096], out[4096];
  sf_buf hdr = {0};
  sf_seq_encode_header(api, &hdr);
  memcpy(cur, hdr.data, hdr.len);
  size_t n = hdr.len;
  uint32_t longest = 0, changed = 0;
  sf_rng rng;
  sf_rng_seed(&rng, 3);
  for (uint64_t i = 0; i < 20000; i++) {
    size_t max = 64 + sf_rng_below(&rng, sizeof out - 64);
    size_t k = sf_mutator_mutate(m, cur, n, out, max, i);
    check_output(api, &s, out, k, max, opt.max_calls);
    if (k != n || memcmp(out, cur, k)) changed++;
    if (s.ncalls > longest) longest = s.ncalls;
    /* Random walk, restarting now and then; sometimes feed garbage. */
    if (sf_rng_chance(&rng, 1, 50)) {
      n = hdr.len;
    } else if (sf_rng_chance(&rng, 1, 20)) {
      for (size_t b = SF_HEADER_SIZE; b < k; b++)
        if (sf_rng_chance(&rng, 1, 8)) out[b] = (uint8_t)sf_rng_next(&rng);
      memcpy(cur, out, k);
      n = k;
    } else {
      memcpy(cur, out, k);
      n = k;
    }
  }
  assert_int_equal(longest, opt.max_calls); /* sequences grow up to the limit */
  assert_true(changed > 15000);
  /* Inputs that are not ours at all still give a valid output. */
  uint8_t junk[3] = {1, 2, 3};
  size_t k = sf_mutator_mutate(m, junk, sizeof junk, out, sizeof out, 1);
  check_output(api, &s, out, k, sizeof out, opt.max_calls);
  assert_int_equal(sf_mutator_mutate(m, junk, sizeof junk, out, SF_HEADER_SIZE - 1, 1), 0);
  sf_buf_free(&hdr);
  sf_seq_free(&s);
  sf_mutator_free(m);
  sf_api_free(api);
}

static void test_crossover_and_generate(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_mutator *m = sf_mutator_new(api, NULL);
  sf_seq a, b, s;
  sf_seq_init(&a, api);
  sf_seq_init(&b, api);
  sf_seq_init(&s, api);
  sf_buf ea = {0}, eb = {0};
  uint8_t out[8192];
  uint32_t total = 0;
  for (uint64_t i = 0; i < 2000; i++) {
    assert_int_equal(sf_mutator_generate(m, &a, 6, i), 0);
    assert_valid(&a);
    assert_int_equal(sf_mutator_generate(m, &b, 6, i + 100000), 0);
    sf_buf_reset(&ea);
    sf_buf_reset(&eb);
    sf_seq_encode(&a, &ea);
    sf_seq_encode(&b, &eb);
    size_t k = sf_mutator_crossover(m, ea.data, ea.len, eb.data, eb.len, out, sizeof out, i);
    check_output(api, &s, out, k, sizeof out, 64);
    total += a.ncalls;
  }
  assert_true(total > 2000 * 4); /* generation mostly reaches the requested length */
  sf_buf_free(&ea);
  sf_buf_free(&eb);
  sf_seq_free(&a);
  sf_seq_free(&b);
  sf_seq_free(&s);
  sf_mutator_free(m);
  sf_api_free(api);
}

/* The same seed gives the same output. */
static void test_deterministic(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_mutator *m1 = sf_mutator_new(api, NULL), *m2 = sf_mutator_new(api, NULL);
  sf_seq s;
  sf_seq_init(&s, api);
  sf_buf e = {0};
  sf_mutator_generate(m1, &s, 8, 5);
  sf_seq_encode(&s, &e);
  uint8_t o1[4096], o2[4096];
  for (uint64_t seed = 0; seed < 200; seed++) {
    size_t k1 = sf_mutator_mutate(m1, e.data, e.len, o1, sizeof o1, seed);
    size_t k2 = sf_mutator_mutate(m2, e.data, e.len, o2, sizeof o2, seed);
    assert_int_equal(k1, k2);
    assert_memory_equal(o1, o2, k1);
  }
  sf_buf_free(&e);
  sf_seq_free(&s);
  sf_mutator_free(m1);
  sf_mutator_free(m2);
  sf_api_free(api);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mutations_stay_valid),
      cmocka_unit_test(test_crossover_and_generate),
      cmocka_unit_test(test_deterministic),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
