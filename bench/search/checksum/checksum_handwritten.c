/* A hand-written libFuzzer harness for checksum.h, written the usual OSS-Fuzz
 * way: a byte picks each call on one of up to four records, tags come from
 * a small pool (0 included, which the API refuses) so that lookups hit, and
 * every buffer handed to the library is a heap copy of its exact size so
 * that AddressSanitizer sees any overrun. Frames for rec_load come from the
 * fuzz input, and so do their header's length and check word; a round-trip
 * operation also loads one record's encoding into another with the length
 * and check rec_encode gave. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"

typedef struct input {
  const uint8_t *p;
  size_t n;
} input;

static uint8_t byte(input *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static uint64_t num(input *in, int nbytes) {
  uint64_t v = 0;
  for (int i = 0; i < nbytes; i++)
    v |= (uint64_t)byte(in) << (8 * i);
  return v;
}

/* A heap copy of the next len bytes of input (fewer if the input ends). */
static uint8_t *take(input *in, size_t *len) {
  if (*len > in->n) *len = in->n;
  uint8_t *b = malloc(*len ? *len : 1);
  if (b && *len) memcpy(b, in->p, *len);
  in->p += *len;
  in->n -= *len;
  return b;
}

#define MAX_RECS 4
#define NTAGS    16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  rec *recs[MAX_RECS] = {0};
  int nrec = 0;
  while (in.n) {
    uint8_t op = byte(&in) % 12;
    int ri = nrec ? byte(&in) % nrec : 0;
    rec *r = nrec ? recs[ri] : NULL;
    if (op != 0 && !r) continue;
    uint8_t tag = byte(&in) % NTAGS;
    switch (op) {
    case 0:
      if (nrec < MAX_RECS && (recs[nrec] = rec_new())) nrec++;
      break;
    case 1:
      rec_free(r);
      recs[ri] = recs[--nrec];
      break;
    case 2:
      rec_add_int(r, tag, (int64_t)num(&in, 8));
      break;
    case 3: {
      size_t len = num(&in, 2) % (REC_MAX_BYTES + 2);
      uint8_t *b = take(&in, &len);
      if (b) rec_add_bytes(r, tag, b, len);
      free(b);
      break;
    }
    case 4:
      rec_remove(r, tag);
      break;
    case 5: {
      int64_t v;
      rec_get_int(r, tag, &v);
      break;
    }
    case 6: {
      size_t cap = num(&in, 2) % (REC_MAX_BYTES + 2);
      uint8_t *b = malloc(cap ? cap : 1);
      if (b) rec_get_bytes(r, tag, b, cap);
      free(b);
      break;
    }
    case 7:
      rec_count(r);
      break;
    case 8:
      rec_encoded_len(r);
      break;
    case 9: {
      /* Capacities around the encoded length, so both outcomes happen. */
      size_t cap = rec_encoded_len(r) + 2 - byte(&in) % 4;
      uint32_t check;
      uint8_t *b = malloc(cap);
      if (b) rec_encode(r, b, cap, byte(&in) & 1 ? &check : NULL);
      free(b);
      break;
    }
    case 10: {
      uint32_t frame_len = (uint32_t)num(&in, 4);
      uint32_t check = (uint32_t)num(&in, 4);
      size_t cap = num(&in, 2) % 4097;
      uint8_t *b = take(&in, &cap);
      if (b) rec_load(r, b, cap, frame_len, check);
      free(b);
      break;
    }
    case 11: {
      /* Round trip: what one record encodes, another loads. */
      rec *dst = recs[byte(&in) % nrec];
      size_t len = rec_encoded_len(r);
      uint32_t check;
      uint8_t *b = malloc(len);
      if (b && rec_encode(r, b, len, &check) == (long)len)
        rec_load(dst, b, len, (uint32_t)len, check);
      free(b);
      break;
    }
    }
  }
  for (int i = 0; i < nrec; i++)
    rec_free(recs[i]);
  return 0;
}
