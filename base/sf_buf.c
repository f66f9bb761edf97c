#include "sf_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Not turned back into a call of memcpy by the compiler. */
#if defined(__clang__)
#define NO_MEMCPY __attribute__((no_builtin("memcpy", "memmove")))
#else
#define NO_MEMCPY __attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif

NO_MEMCPY void sf_copy_bytes(void *dst, const void *src, size_t n) {
  if (n > 64) {
    memcpy(dst, src, n);
    return;
  }
  uint8_t *d = dst;
  const uint8_t *s = src;
  for (size_t i = 0; i < n; i++)
    d[i] = s[i];
}

int sf_buf_reserve(sf_buf *b, size_t extra) {
  if (extra <= b->cap - b->len) return 0;
  if (extra > SIZE_MAX / 2 - b->len) return -1;
  size_t cap = b->cap ? b->cap : 64;
  while (cap - b->len < extra)
    cap *= 2;
  uint8_t *p = realloc(b->data, cap);
  if (!p) return -1;
  b->data = p;
  b->cap = cap;
  return 0;
}

int sf_buf_append(sf_buf *b, const void *p, size_t n) {
  if (n == 0) return 0;
  /* p may point into b itself (appending a copy of part of it). */
  const uint8_t *src = p;
  size_t self =
      b->data && src >= b->data && src < b->data + b->len ? (size_t)(src - b->data) : SIZE_MAX;
  if (sf_buf_reserve(b, n)) return -1;
  if (self != SIZE_MAX) src = b->data + self;
  sf_copy_bytes(b->data + b->len, src, n); /* [self, self + n) ends before len */
  b->len += n;
  return 0;
}

int sf_buf_putc(sf_buf *b, uint8_t c) {
  if (sf_buf_reserve(b, 1)) return -1;
  b->data[b->len++] = c;
  return 0;
}

int sf_buf_printf(sf_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || sf_buf_reserve(b, (size_t)n + 1)) return -1;
  va_start(ap, fmt);
  vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return 0;
}

int sf_buf_put_varint(sf_buf *b, uint64_t v) {
  if (sf_buf_reserve(b, 10)) return -1;
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    b->data[b->len++] = byte | (v ? 0x80 : 0);
  } while (v);
  return 0;
}

char *sf_buf_cstr(sf_buf *b) {
  if (sf_buf_reserve(b, 1)) return NULL;
  b->data[b->len] = 0;
  return (char *)b->data;
}

void sf_buf_reset(sf_buf *b) {
  b->len = 0;
}

void sf_buf_free(sf_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}
