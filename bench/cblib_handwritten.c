/* A hand-written libFuzzer harness for tests/cblib.h, written the usual
 * OSS-Fuzz way: a byte picks each call, and the callbacks read the fuzz
 * input (a comparator's answers, a reader's chunks, an input callback's
 * chunks, a hook's answers, a seek callback's positions, an allocator's
 * failures: a byte each, odd fails). The baseline of bench/callbacks.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cblib.h"

static const uint8_t *in;
static size_t left;

static uint8_t take(void) {
  if (!left) return 0;
  left--;
  return *in++;
}

static int compare(void *ctx, int a, int b) {
  (void)ctx, (void)a, (void)b;
  return (int8_t)take();
}

/* Up to size bytes of the input; the last chunk when none are left. */
static int reader(void *ctx, unsigned char *buf, size_t size, size_t *got) {
  size_t n = take() % (size + 1);
  (void)ctx;
  if (n > left) n = left;
  memcpy(buf, in, n);
  in += n, left -= n;
  *got = n;
  return left ? 1 : 0;
}

static unsigned input(void *ctx, unsigned char **buf) {
  size_t n = take();
  (void)ctx;
  if (n > left) n = left;
  *buf = (unsigned char *)in;
  in += n, left -= n;
  return (unsigned)n;
}

static unsigned char hook(unsigned count) {
  (void)count;
  return take() % 101;
}

static unsigned seek(void *ctx, int whence) {
  unsigned v = 0;
  (void)ctx, (void)whence;
  for (int i = 0; i < 4; i++)
    v |= (unsigned)take() << (8 * i);
  return v;
}

static void *alloc(size_t size) {
  return take() & 1 ? NULL : malloc(size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  in = data, left = size;
  cb_box *b = cb_box_new(CBLIB_VERSION, (int)sizeof(cb_box));
  if (!b) return 0;
  while (left) {
    switch (take() % 7) {
    case 0:
      cb_sort(b, take() % (CB_NVALS + 1), compare, NULL);
      break;
    case 1:
      cb_read(b, reader, NULL);
      break;
    case 2:
      cb_pull(b, input, NULL);
      break;
    case 3:
      cb_set_hook(b, take() & 1 ? hook : NULL);
      break;
    case 4:
      cb_tick(b);
      break;
    case 5:
      cb_seek(b, seek, NULL);
      break;
    default: {
      int n = 1 + take() % 4;
      cb_reserve(b, n, 1 + take(), alloc, free);
      break;
    }
    }
  }
  cb_box_free(b);
  return 0;
}
