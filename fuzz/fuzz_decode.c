/* Self-fuzzing the sequence codec on the demo API: every byte string decodes
 * to a valid sequence (or is rejected for its header), and the canonical
 * encoding is a fixed point; the text form round-trips exactly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grammar/api.h"
#include "sequence/seq.h"

#ifndef DEMO_API
#error "DEMO_API must name the API file"
#endif

static sf_api *api;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  char err[1024];
  api = sf_api_load(DEMO_API, err, sizeof err);
  if (!api) {
    fprintf(stderr, "%s\n", err);
    abort();
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* Let the fuzzer skip the header: prepend the right one to its bytes. */
  sf_buf in = {0};
  sf_seq_encode_header(api, &in);
  sf_buf_append(&in, data, size);
  sf_seq a, b, c;
  sf_seq_init(&a, api);
  sf_seq_init(&b, api);
  sf_seq_init(&c, api);
  char err[512];
  if (sf_seq_decode(&a, api, in.data, in.len) != SF_DECODE_OK) abort();
  if (sf_seq_validate(&a, err, sizeof err)) {
    fprintf(stderr, "invalid after decode: %s\n", err);
    abort();
  }
  sf_buf e1 = {0}, e2 = {0}, text = {0};
  if (sf_seq_encode(&a, &e1)) abort();
  if (sf_seq_decode(&b, api, e1.data, e1.len) != SF_DECODE_OK || !sf_seq_equal(&a, &b)) abort();
  if (sf_seq_encode(&b, &e2) || e1.len != e2.len || memcmp(e1.data, e2.data, e1.len)) abort();
  if (sf_seq_print(&a, &text)) abort();
  if (sf_seq_parse_text(&c, api, (const char *)text.data, text.len, "t", err, sizeof err) ||
      !sf_seq_equal(&a, &c)) {
    fprintf(stderr, "text round trip: %s\n%.*s\n", err, (int)text.len, (char *)text.data);
    abort();
  }
  /* Raw bytes too (mostly rejected by the header). */
  sf_seq_decode(&b, api, data, size);
  sf_buf_free(&in);
  sf_buf_free(&e1);
  sf_buf_free(&e2);
  sf_buf_free(&text);
  sf_seq_free(&a);
  sf_seq_free(&b);
  sf_seq_free(&c);
  return 0;
}
