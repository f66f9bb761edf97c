/* sf_buf: a growable byte buffer, the one used by every module.
 *
 * A zeroed sf_buf is a valid empty buffer. Appends grow the storage
 * geometrically; on allocation failure they return -1 and leave the buffer as
 * it was (the caller can still free it). The data is not NUL-terminated unless
 * the caller appends a 0. */
#ifndef SF_BUF_H
#define SF_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct sf_buf {
  uint8_t *data;
  size_t len;
  size_t cap;
} sf_buf;

/* Make room for at least `extra` more bytes. 0 on success, -1 on OOM.
 * Appends accept data that points into the buffer itself. */
int sf_buf_reserve(sf_buf *b, size_t extra);
int sf_buf_append(sf_buf *b, const void *p, size_t n);
int sf_buf_putc(sf_buf *b, uint8_t c);
/* printf-style append; the result is not counted as NUL-terminated. */
int sf_buf_printf(sf_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* LEB128 unsigned varint, the minimal encoding. */
int sf_buf_put_varint(sf_buf *b, uint64_t v);
/* Append a NUL and return the data as a C string (len excludes the NUL). NULL on OOM. */
char *sf_buf_cstr(sf_buf *b);
void sf_buf_reset(sf_buf *b);
/* memcpy for ranges that do not overlap. A short copy is a loop: in a
 * fuzzer memcpy and memmove are the sanitizer's interceptors, whose checks
 * cost more than copying a few bytes (encoding a sequence copies many). */
void sf_copy_bytes(void *dst, const void *src, size_t n);
void sf_buf_free(sf_buf *b);

#endif
