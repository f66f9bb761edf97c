/* A hand-written libFuzzer harness for blob.h, the usual OSS-Fuzz way: a
 * byte picks each call, the harness keeps a pool of live blobs so that it
 * never misuses the API (no blob used after blob_free, blit only between two
 * different blobs), and every function is reachable. Dimensions and
 * coordinates are 16-bit, the range the API documents. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "blob.h"

typedef struct input {
  const uint8_t *p;
  size_t n;
} input;

static uint8_t byte(input *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static uint16_t u16(input *in) {
  uint16_t lo = byte(in);
  return (uint16_t)(lo | byte(in) << 8);
}

static uint32_t u32(input *in) {
  return u16(in) | (uint32_t)u16(in) << 16;
}

#define MAX_BLOBS 8

static uint8_t out[4096];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  blob_t *pool[MAX_BLOBS] = {0};
  int n = 0;
  while (in.n) {
    uint8_t op = byte(&in) % 11;
    blob_t *b = n ? pool[byte(&in) % n] : NULL;
    if (op != 0 && !b) continue;
    blob_t *made = NULL;
    switch (op) {
    case 0: {
      uint32_t w = u16(&in), h = u16(&in);
      made = blob_new(w, h, (blob_format)(1 + byte(&in) % 4));
      break;
    }
    case 1:
      for (int i = 0; i < n; i++)
        if (pool[i] == b) {
          blob_free(b);
          pool[i] = pool[--n];
          break;
        }
      break;
    case 2:
      blob_width(b), blob_height(b), blob_stride(b), blob_checksum(b);
      break;
    case 3: {
      uint32_t x = u16(&in), y = u16(&in), w = u16(&in), h = u16(&in);
      blob_fill(b, x, y, w, h, u32(&in));
      break;
    }
    case 4: {
      uint32_t x = u16(&in), y = u16(&in);
      blob_get(b, x, y);
      break;
    }
    case 5: {
      uint32_t x = u16(&in), y = u16(&in), w = u16(&in), h = u16(&in);
      made = blob_crop(b, x, y, w, h);
      break;
    }
    case 6:
      made = blob_hconcat(b, pool[byte(&in) % n]);
      break;
    case 7:
      made = blob_vconcat(b, pool[byte(&in) % n]);
      break;
    case 8: {
      blob_t *src = pool[byte(&in) % n];
      int32_t dx = (int16_t)u16(&in), dy = (int16_t)u16(&in);
      if (src != b) blob_blit(b, src, dx, dy);
      break;
    }
    case 9: {
      uint32_t fx = byte(&in) % 18, fy = byte(&in) % 18;
      made = blob_scale(b, fx, fy);
      break;
    }
    case 10:
      blob_export(b, out, u16(&in) % (sizeof out + 1));
      break;
    }
    if (made) {
      if (n < MAX_BLOBS)
        pool[n++] = made;
      else
        blob_free(made);
    }
  }
  for (int i = 0; i < n; i++)
    blob_free(pool[i]);
  return 0;
}
