/* The binary codec: round trips, canonical form, repair of references, and
 * totality over random and mutated bytes (run under ASan+UBSan in CI). */
#include <dirent.h>

#include "base/sf_rng.h"
#include "test_util.h"

static char *read_text(const char *path) {
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  static char buf[65536];
  size_t n = fread(buf, 1, sizeof buf - 1, fp);
  fclose(fp);
  buf[n] = 0;
  return buf;
}

/* decode(encode(s)) == s and encode is a fixed point, for every seed. */
static void test_seed_round_trips(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  DIR *d = opendir(DEMO_SEEDS);
  assert_non_null(d);
  int nseeds = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strstr(e->d_name, ".seq")) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DEMO_SEEDS, e->d_name);
    sf_seq s, t;
    sf_seq_init(&s, api);
    sf_seq_init(&t, api);
    parse_seq_ok(&s, api, read_text(path));
    assert_true(s.ncalls > 0);
    sf_buf b1 = {0}, b2 = {0};
    assert_int_equal(sf_seq_encode(&s, &b1), 0);
    assert_int_equal(sf_seq_decode(&t, api, b1.data, b1.len), SF_DECODE_OK);
    assert_true(sf_seq_equal(&s, &t));
    assert_int_equal(sf_seq_hash(&s), sf_seq_hash(&t));
    assert_int_equal(sf_seq_encode(&t, &b2), 0);
    assert_memory_equal(b1.data, b2.data, b1.len);
    assert_int_equal(b1.len, b2.len);
    sf_buf_free(&b1);
    sf_buf_free(&b2);
    sf_seq_free(&s);
    sf_seq_free(&t);
    nseeds++;
  }
  closedir(d);
  assert_true(nseeds >= 3);
  sf_api_free(api);
}

static void test_header_rejection(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_seq s;
  sf_seq_init(&s, api);
  sf_buf b = {0};
  sf_seq_encode_header(api, &b);
  assert_int_equal(sf_seq_decode(&s, api, b.data, b.len), SF_DECODE_OK);
  assert_int_equal(s.ncalls, 0);
  assert_int_equal(sf_seq_decode(&s, api, b.data, b.len - 1), SF_DECODE_REJECT);
  b.data[2] ^= 1; /* fingerprint */
  assert_int_equal(sf_seq_decode(&s, api, b.data, b.len), SF_DECODE_REJECT);
  b.data[2] ^= 1;
  b.data[1] = SF_FORMAT_VERSION + 1;
  assert_int_equal(sf_seq_decode(&s, api, b.data, b.len), SF_DECODE_REJECT);
  assert_int_equal(sf_seq_decode(&s, api, NULL, 0), SF_DECODE_REJECT);
  sf_buf_free(&b);
  sf_seq_free(&s);
  sf_api_free(api);
}

/* Hand-made bytes: out-of-range values are mapped into range, references are
 * taken among alive values, calls without a candidate are dropped. */
static void test_repairs(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  int32_t open = sf_api_find_func(api, "kv_open"), close = sf_api_find_func(api, "kv_close"),
          count = sf_api_find_func(api, "kv_count");
  sf_buf b = {0};
  sf_seq_encode_header(api, &b);
  /* kv_count with no kv_t alive: dropped. */
  sf_buf_put_varint(&b, (uint64_t)count);
  sf_buf_put_varint(&b, 0);
  /* kv_open(capacity 0 -> repaired into [1, 64], flags mask 0xff -> 3). */
  sf_buf_put_varint(&b, (uint64_t)open);
  uint8_t zero[4] = {0, 0, 0, 0};
  sf_buf_append(&b, zero, 4);
  sf_buf_put_varint(&b, 0xff);
  /* kv_close(choice 5 -> 5 mod 1 = the only kv_t). */
  sf_buf_put_varint(&b, (uint64_t)close + api->nfuncs * 3); /* index taken modulo nfuncs */
  sf_buf_put_varint(&b, 5);
  /* kv_count after close: no candidate, dropped. */
  sf_buf_put_varint(&b, (uint64_t)count);
  sf_buf_put_varint(&b, 0);
  /* A truncated call at the end is ignored. */
  sf_buf_put_varint(&b, (uint64_t)open);
  sf_buf_putc(&b, 1);
  sf_seq s;
  sf_seq_init(&s, api);
  assert_int_equal(sf_seq_decode(&s, api, b.data, b.len), SF_DECODE_OK);
  assert_valid(&s);
  assert_int_equal(s.ncalls, 2);
  assert_int_equal(s.calls[0].func, open);
  assert_int_equal(sf_seq_args(&s, 0)[0].bits, 64); /* 0 wraps: lo + (0 - lo) mod 64 */
  assert_int_equal(sf_seq_args(&s, 0)[1].bits, 3);
  assert_int_equal(s.calls[1].func, close);
  assert_int_equal(sf_seq_args(&s, 1)[0].bits, 0);
  sf_buf_free(&b);
  sf_seq_free(&s);
  sf_api_free(api);
}

/* 100,000 random and mutated byte strings: each decodes to a valid sequence
 * whose encoding is a fixed point. Under ASan+UBSan this is the totality test. */
static void test_total_decoding(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_seq s, t;
  sf_seq_init(&s, api);
  sf_seq_init(&t, api);
  /* Start from real inputs so that mutations reach deep structure. */
  sf_buf base = {0};
  parse_seq_ok(&s, api, read_text(DEMO_SEEDS "/iterate.seq"));
  sf_seq_encode(&s, &base);
  sf_rng rng;
  sf_rng_seed(&rng, 12345);
  sf_buf in = {0}, e1 = {0}, e2 = {0};
  long calls = 0;
  for (int iter = 0; iter < 100000; iter++) {
    sf_buf_reset(&in);
    if (iter % 2 == 0) {
      sf_seq_encode_header(api, &in);
      size_t n = sf_rng_below(&rng, 200);
      for (size_t i = 0; i < n; i++)
        sf_buf_putc(&in, (uint8_t)sf_rng_next(&rng));
    } else {
      sf_buf_append(&in, base.data, base.len);
      int edits = 1 + (int)sf_rng_below(&rng, 8);
      for (int k = 0; k < edits; k++) {
        size_t at = SF_HEADER_SIZE + sf_rng_below(&rng, in.len - SF_HEADER_SIZE);
        switch (sf_rng_below(&rng, 3)) {
        case 0:
          in.data[at] = (uint8_t)sf_rng_next(&rng);
          break;
        case 1:
          in.len = at;
          break; /* truncate */
        default:
          sf_buf_putc(&in, (uint8_t)sf_rng_next(&rng));
          break;
        }
        if (in.len <= SF_HEADER_SIZE) break;
      }
    }
    assert_int_equal(sf_seq_decode(&s, api, in.data, in.len), SF_DECODE_OK);
    char err[256];
    if (sf_seq_validate(&s, err, sizeof err)) fail_msg("iteration %d: %s", iter, err);
    calls += s.ncalls;
    sf_buf_reset(&e1);
    sf_buf_reset(&e2);
    assert_int_equal(sf_seq_encode(&s, &e1), 0);
    assert_int_equal(sf_seq_decode(&t, api, e1.data, e1.len), SF_DECODE_OK);
    assert_true(sf_seq_equal(&s, &t));
    assert_int_equal(sf_seq_encode(&t, &e2), 0);
    assert_int_equal(e1.len, e2.len);
    assert_memory_equal(e1.data, e2.data, e1.len);
  }
  assert_true(calls > 100000); /* the bytes really exercised call decoding */
  sf_buf_free(&in);
  sf_buf_free(&e1);
  sf_buf_free(&e2);
  sf_buf_free(&base);
  sf_seq_free(&s);
  sf_seq_free(&t);
  sf_api_free(api);
}

/* Every type the language has, through both encodings. */
static void test_all_types(void **state) {
  (void)state;
  sf_api *api = parse_api_text(
      "api t; handle h; enum e { E0 = 0, E1 = -7 } flags fl { F1 = 1, F2 = 4 }\n"
      "func h *mk(i8 a, i16 b, i32 c, i64 d, u8 e1, u16 f, u32 g, u64 k, bool z, f32 x, f64 y,\n"
      "           e en, fl fs, nullable string s, u8 key[4], i16 v[n], u8 n in [1, 3],\n"
      "           nullable h *other, out h **o2);\n"
      "func void h_free(h *p) destructor;\n");
  const char *text =
      "h1 = mk(-128, -2, 2147483647, -9223372036854775808, 255, 65535, 7, 18446744073709551615, "
      "true, -0.5, nan, E1, F1|F2, NULL, \"ab\\x00c\", {-1, 2}, NULL, &h2);\n"
      "h3 = mk(0, 0, 0, 0, 0, 0, 0, 0, false, inf, 1e+300, E0, 0, \"q\\\"\", x\"00ff10ee\", {7}, "
      "h1, &h4);\n"
      "h_free(h2);\n";
  sf_seq s, t;
  sf_seq_init(&s, api);
  sf_seq_init(&t, api);
  parse_seq_ok(&s, api, text);
  sf_buf txt = {0}, bin = {0};
  sf_seq_print(&s, &txt);
  if (txt.len != strlen(text)) fprintf(stderr, "%.*s", (int)txt.len, (char *)txt.data);
  assert_int_equal(txt.len, strlen(text));
  assert_memory_equal(txt.data, text, txt.len);
  sf_seq_encode(&s, &bin);
  assert_int_equal(sf_seq_decode(&t, api, bin.data, bin.len), SF_DECODE_OK);
  assert_true(sf_seq_equal(&s, &t));
  sf_buf_free(&txt);
  sf_buf_free(&bin);
  sf_seq_free(&s);
  sf_seq_free(&t);
  sf_api_free(api);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_seed_round_trips), cmocka_unit_test(test_header_rejection),
      cmocka_unit_test(test_repairs),          cmocka_unit_test(test_all_types),
      cmocka_unit_test(test_total_decoding),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
