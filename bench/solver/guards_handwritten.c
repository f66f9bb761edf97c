/* A hand-written fuzz harness for the guards library, written the usual
 * OSS-Fuzz way: a selector byte picks the function, the bytes after it are
 * its arguments (integers little-endian, a buffer as a length byte and its
 * bytes; missing bytes read as 0), and the loop runs until the input ends.
 * The baseline of bench/solver.sh, under libFuzzer and AFL++. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "guards.h"

typedef struct input {
  const uint8_t *p;
  size_t n;
} input;

static uint8_t u8(input *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static uint64_t le(input *in, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++)
    v |= (uint64_t)u8(in) << (8 * i);
  return v;
}

static uint32_t u32(input *in) { return (uint32_t)le(in, 4); }
static uint64_t u64(input *in) { return le(in, 8); }

#define MAX_BUF 32 /* as guards.api */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  gctx *ctx = gctx_new();
  if (!ctx) return 0;
  uint8_t buf[MAX_BUF];
  while (in.n) {
    uint8_t op = u8(&in) % 16;
    switch (op) {
    case 0: g_affine32(u32(&in)); break;
    case 1: g_affine64(u64(&in)); break;
    case 2: g_affine_signed((int32_t)u32(&in)); break;
    case 3: {
      uint32_t a = u32(&in), b = u32(&in);
      g_linear3(a, b, u32(&in));
      break;
    }
    case 4: {
      int32_t a = (int32_t)u32(&in);
      g_linear_pair(a, (int32_t)u32(&in));
      break;
    }
    case 5: {
      int64_t a = (int64_t)u64(&in);
      g_linear64(a, (int64_t)u64(&in));
      break;
    }
    case 6: g_field(u32(&in)); break;
    case 7: g_masks(u32(&in)); break;
    case 8: g_high(u64(&in)); break;
    case 9: {
      uint32_t hi = u32(&in);
      g_pack(hi, u32(&in));
      break;
    }
    case 10:
    case 11: {
      size_t len = u8(&in) % (MAX_BUF + 1);
      for (size_t i = 0; i < len; i++)
        buf[i] = u8(&in);
      if (op == 10)
        g_sum16(buf, len);
      else
        g_hash31(buf, len);
      break;
    }
    case 12: {
      uint32_t seed = u32(&in);
      g_derived(seed, u32(&in));
      break;
    }
    case 13: gctx_seed(ctx, u32(&in)); break;
    case 14: g_seeded(ctx, u32(&in)); break;
    case 15: g_global(u64(&in)); break;
    }
  }
  gctx_free(ctx);
  return 0;
}
