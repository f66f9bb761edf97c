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

/* objlib: obj_child is owned_by its parent, obj_adopt consumes its child,
 * obj_free is the destructor. */
static void put_call(sf_buf *b, const sf_api *api, const char *name) {
  int32_t fi = sf_api_find_func(api, name);
  assert_true(fi >= 0);
  sf_buf_put_varint(b, (uint64_t)fi);
}

static void put_i32(sf_buf *b, uint32_t v) {
  uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  sf_buf_append(b, le, 4);
}

/* Decode in: valid, equal to the text `want`, and encoding to `canon` (in
 * without the calls decoding dropped). */
static void assert_decodes_to(const sf_api *api, const sf_buf *in, const char *want,
                              const sf_buf *canon) {
  sf_seq s, w;
  sf_seq_init(&s, api);
  sf_seq_init(&w, api);
  assert_int_equal(sf_seq_decode(&s, api, in->data, in->len), SF_DECODE_OK);
  assert_valid(&s);
  parse_seq_ok(&w, api, want);
  if (!sf_seq_equal(&s, &w)) {
    sf_buf t = {0};
    sf_seq_print(&s, &t);
    fail_msg("decoded:\n%.*swanted:\n%s", (int)t.len, (char *)t.data, want);
  }
  sf_buf e = {0};
  assert_int_equal(sf_seq_encode(&s, &e), 0);
  assert_int_equal(e.len, canon->len);
  assert_memory_equal(e.data, canon->data, e.len);
  sf_buf_free(&e);
  sf_seq_free(&s);
  sf_seq_free(&w);
}

/* Bytes that name an owned value for a consume parameter or a destructor,
 * or hand a call both an owner it consumes and what that owner owns: the
 * call is dropped, like one passing a consumed handle twice. in holds the
 * illegal calls, canon the same without them. */
static void test_decode_ownership(void **state) {
  (void)state;
  sf_api *api = load_api_file(OBJLIB_API);
  sf_buf in = {0}, canon = {0};
  /* (a) destroying an owned value. */
  sf_seq_encode_header(api, &in);
  put_call(&in, api, "obj_new"), put_i32(&in, 1);                              /* h1 */
  put_call(&in, api, "obj_child"), sf_buf_put_varint(&in, 0), put_i32(&in, 0); /* h2 of h1 */
  sf_buf_append(&canon, in.data, in.len);
  put_call(&in, api, "obj_free"), sf_buf_put_varint(&in, 0); /* h2: dropped */
  put_call(&in, api, "obj_free"), sf_buf_put_varint(&in, 1); /* h1 */
  put_call(&canon, api, "obj_free"), sf_buf_put_varint(&canon, 1);
  assert_decodes_to(api, &in, "h1 = obj_new(1);\nh2 = obj_child(h1, 0);\nobj_free(h1);\n", &canon);
  /* (a) consuming an owned value, (b) consuming the owner of another
   * argument, directly and through an owned value in between; the legal
   * adoption after them stays. */
  sf_buf_reset(&in);
  sf_buf_reset(&canon);
  sf_seq_encode_header(api, &in);
  put_call(&in, api, "obj_new"), put_i32(&in, 1);                              /* h1 */
  put_call(&in, api, "obj_new"), put_i32(&in, 2);                              /* h2 */
  put_call(&in, api, "obj_child"), sf_buf_put_varint(&in, 1), put_i32(&in, 0); /* h3 of h1 */
  put_call(&in, api, "obj_child"), sf_buf_put_varint(&in, 0), put_i32(&in, 1); /* h4 of h3 */
  sf_buf_append(&canon, in.data, in.len);
  put_call(&in, api, "obj_adopt"), sf_buf_put_varint(&in, 2),
      sf_buf_put_varint(&in, 1); /* h2, h3 */
  put_call(&in, api, "obj_adopt"), sf_buf_put_varint(&in, 1),
      sf_buf_put_varint(&in, 3); /* h3, h1 */
  put_call(&in, api, "obj_adopt"), sf_buf_put_varint(&in, 0),
      sf_buf_put_varint(&in, 3); /* h4, h1 */
  put_call(&in, api, "obj_adopt"), sf_buf_put_varint(&in, 1),
      sf_buf_put_varint(&in, 2); /* h3, h2 */
  put_call(&canon, api, "obj_adopt"), sf_buf_put_varint(&canon, 1), sf_buf_put_varint(&canon, 2);
  assert_decodes_to(api, &in,
                    "h1 = obj_new(1);\nh2 = obj_new(2);\nh3 = obj_child(h1, 0);\n"
                    "h4 = obj_child(h3, 1);\nobj_adopt(h3, h2);\n",
                    &canon);
  sf_buf_free(&in);
  sf_buf_free(&canon);
  sf_api_free(api);
}

/* Hand-built sequences breaking the ownership rules: the validator rejects
 * them, naming the call and parameter, and repair drops the call. */
static void test_validate_ownership(void **state) {
  (void)state;
  sf_api *api = load_api_file(OBJLIB_API);
  int32_t onew = sf_api_find_func(api, "obj_new"), child = sf_api_find_func(api, "obj_child"),
          ofree = sf_api_find_func(api, "obj_free"), adopt = sf_api_find_func(api, "obj_adopt");
  static const struct {
    uint32_t nnew;      /* obj_new calls first: values 0 .. nnew-1 */
    uint64_t parent[2]; /* then obj_child of these (UINT64_MAX: none) */
    bool destroy;       /* last call: obj_free(x) or obj_adopt(x, y) */
    uint64_t x, y;
    const char *error;
  } cases[] = {
      {1,
       {0, UINT64_MAX},
       true,
       1,
       0,
       "call 3 (obj_free): an owned handle is consumed in parameter o"},
      {2,
       {0, UINT64_MAX},
       false,
       1,
       2,
       "call 4 (obj_adopt): an owned handle is consumed in parameter child"},
      {1, {0, 1}, true, 2, 0, "call 4 (obj_free): an owned handle is consumed in parameter o"},
      {1,
       {0, UINT64_MAX},
       false,
       1,
       0,
       "call 3 (obj_adopt): handle is owned by an argument the call consumes in parameter parent"},
      {1,
       {0, 1},
       false,
       2,
       0,
       "call 4 (obj_adopt): handle is owned by an argument the call consumes in parameter parent"},
  };
  sf_seq s;
  sf_seq_init(&s, api);
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    sf_seq_clear(&s);
    for (uint32_t i = 0; i < cases[k].nnew; i++)
      sf_seq_add_call(&s, (uint32_t)onew)[0].bits = i + 1;
    for (int i = 0; i < 2 && cases[k].parent[i] != UINT64_MAX; i++)
      sf_seq_add_call(&s, (uint32_t)child)[0].bits = cases[k].parent[i];
    assert_valid(&s);
    uint32_t before = s.ncalls;
    if (cases[k].destroy) {
      sf_seq_add_call(&s, (uint32_t)ofree)[0].bits = cases[k].x;
    } else {
      sf_arg *a = sf_seq_add_call(&s, (uint32_t)adopt);
      a[0].bits = cases[k].x;
      a[1].bits = cases[k].y;
    }
    char err[256] = "";
    assert_int_equal(sf_seq_validate(&s, err, sizeof err), -1);
    if (strcmp(err, cases[k].error)) fprintf(stderr, "case %zu: got '%s'\n", k, err);
    assert_string_equal(err, cases[k].error);
    sf_buf enc = {0};
    assert_int_equal(sf_seq_encode_checked(&s, &enc), 1);
    sf_buf_free(&enc);
    s.observed = k % 2; /* repairing keeps the mark */
    assert_int_equal(sf_seq_repair(&s), 1);
    assert_int_equal(s.observed, k % 2);
    assert_valid(&s);
    assert_int_equal(s.ncalls, before);
  }
  sf_seq_free(&s);
  sf_api_free(api);
}

/* in decodes (into s) to a valid sequence whose encoding is a fixed point
 * (t: scratch). */
static void decodes_to_fixed_point(const sf_api *api, const sf_buf *in, sf_seq *s, sf_seq *t,
                                   int iter) {
  assert_int_equal(sf_seq_decode(s, api, in->data, in->len), SF_DECODE_OK);
  char err[256];
  if (sf_seq_validate(s, err, sizeof err)) fail_msg("iteration %d: %s", iter, err);
  sf_buf e1 = {0}, e2 = {0};
  assert_int_equal(sf_seq_encode(s, &e1), 0);
  assert_int_equal(sf_seq_decode(t, api, e1.data, e1.len), SF_DECODE_OK);
  assert_true(sf_seq_equal(s, t));
  assert_int_equal(sf_seq_encode(t, &e2), 0);
  assert_int_equal(e1.len, e2.len);
  assert_memory_equal(e1.data, e2.data, e1.len);
  /* Checked and encoded in one pass: the same bytes. */
  sf_buf e3 = {0};
  assert_int_equal(sf_seq_encode_checked(s, &e3), 0);
  assert_int_equal(e1.len, e3.len);
  assert_memory_equal(e1.data, e3.data, e1.len);
  sf_buf_free(&e1);
  sf_buf_free(&e2);
  sf_buf_free(&e3);
}

/* Random bytes over objlib (owned values, consume parameters, a destructor)
 * decode to valid sequences whose encoding is a fixed point. */
static void test_total_decoding_owned(void **state) {
  (void)state;
  sf_api *api = load_api_file(OBJLIB_API);
  sf_seq s, t;
  sf_seq_init(&s, api);
  sf_seq_init(&t, api);
  sf_rng rng;
  sf_rng_seed(&rng, 777);
  sf_buf in = {0};
  for (int iter = 0; iter < 20000; iter++) {
    sf_buf_reset(&in);
    sf_seq_encode_header(api, &in);
    /* Small bytes: function indexes and handle choices hit often. */
    size_t n = sf_rng_below(&rng, 120);
    for (size_t i = 0; i < n; i++)
      sf_buf_putc(&in, (uint8_t)sf_rng_below(&rng, sf_rng_chance(&rng, 1, 2) ? 4 : 256));
    decodes_to_fixed_point(api, &in, &s, &t, iter);
  }
  sf_buf_free(&in);
  sf_seq_free(&s);
  sf_seq_free(&t);
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
  sf_buf in = {0};
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
    decodes_to_fixed_point(api, &in, &s, &t, iter);
    calls += s.ncalls;
  }
  assert_true(calls > 100000); /* the bytes really exercised call decoding */
  sf_buf_free(&in);
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

/* The `observed` mark (replays observe as the run that found the input did)
 * survives both encodings, and unmarked inputs encode as before. */
static void test_observed_mark(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  sf_seq s, back;
  sf_seq_init(&s, api);
  sf_seq_init(&back, api);
  parse_seq_ok(&s, api, "observe_at_end;\nh1 = kv_open(16, 0);\n");
  assert_true(s.observed);
  sf_buf enc = {0}, text = {0};
  assert_int_equal(sf_seq_encode(&s, &enc), 0);
  assert_int_equal(enc.data[1], SF_FORMAT_VERSION | SF_HEADER_OBSERVED);
  assert_int_equal(sf_seq_decode(&back, api, enc.data, enc.len), SF_DECODE_OK);
  assert_true(back.observed);
  assert_true(sf_seq_equal(&s, &back));
  assert_int_equal(sf_seq_print(&back, &text), 0);
  sf_buf_putc(&text, 0);
  assert_non_null(strstr((const char *)text.data, "observe_at_end;\n"));
  /* Unmarked: the version byte alone, and no mark in the text. */
  back.observed = false;
  assert_false(sf_seq_equal(&s, &back));
  sf_buf_reset(&enc);
  sf_buf_reset(&text);
  assert_int_equal(sf_seq_encode(&back, &enc), 0);
  assert_int_equal(enc.data[1], SF_FORMAT_VERSION);
  assert_int_equal(sf_seq_print(&back, &text), 0);
  sf_buf_putc(&text, 0);
  assert_null(strstr((const char *)text.data, "observe_at_end"));
  sf_buf_free(&enc);
  sf_buf_free(&text);
  sf_seq_free(&s);
  sf_seq_free(&back);
  sf_api_free(api);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_seed_round_trips),
      cmocka_unit_test(test_header_rejection),
      cmocka_unit_test(test_observed_mark),
      cmocka_unit_test(test_repairs),
      cmocka_unit_test(test_all_types),
      cmocka_unit_test(test_total_decoding),
      cmocka_unit_test(test_decode_ownership),
      cmocka_unit_test(test_validate_ownership),
      cmocka_unit_test(test_total_decoding_owned),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
