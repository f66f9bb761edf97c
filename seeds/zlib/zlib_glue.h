/* zlib_glue.h: the calls of zlib 1.2.13 that zlib.api cannot describe
 * directly, each written the way a careful application would make them.
 *
 * Why glue is needed (see zlib.h):
 *  - a deflate or inflate stream's buffers: the application points
 *    next_in/next_out at its own memory and replaces them as the stream
 *    moves on, and zg_pipe hands one stream's output to another; the init
 *    macros run on the wrapper that holds them.
 *  - crc32_combine_op needs an operator made by crc32_combine_gen,
 *    get_crc_table returns a table.
 *  - gzopen takes a path: the fuzzer must not name files, so its "file" is a
 *    private memfd of this process (zg_tmp), opened through /proc/self/fd.
 * Declared directly in zlib.api: caller buffers the library fills, lengths
 * by pointer (compress, uncompress2, gzread, gzgets, *GetDictionary),
 * gzdopen's descriptor, gzprintf's format, int flags, the z_stream fields
 * the application reads (`reads`), inflateBack's callbacks (mocks) and
 * inflateBackInit_'s constants, and the preconditions (requires).
 *
 * A stream handle points at a zg_stream whose first member is the z_stream,
 * so the real functions (deflate, inflate, deflateParams, ...) are called on
 * it directly. The glue owns the stream's current input (a copy) and output
 * buffer, and any gz_header given to deflateSetHeader/inflateGetHeader (zlib
 * keeps the pointer, so it must live as long as the stream and every copy of
 * it: the header is reference counted).
 */
#ifndef ZLIB_GLUE_H
#define ZLIB_GLUE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zlib.h"

/* Output buffer a new stream starts with (zlib's zpipe.c uses 16K chunks). */
#define ZG_DEFAULT_OUT 16384

/* ---- shared helpers (not part of the grammar) ---------------------------- */

typedef struct zg_header {
  gz_header h;                   /* what zlib points to */
  unsigned refs;                 /* streams (a stream and its copies) using it */
  Bytef *extra, *name, *comment; /* glue-owned buffers (inflate may set h.* to Z_NULL) */
} zg_header;

typedef struct zg_stream {
  z_stream strm; /* first member: the handle points here */
  Bytef *in;     /* copy of the current input; next_in points inside */
  Bytef *out;    /* output buffer; next_out points inside */
  unsigned out_size;
  zg_header *head; /* header given to deflateSetHeader/inflateGetHeader */
} zg_stream;

static inline zg_stream *zg__of(z_stream *s) {
  return (zg_stream *)s;
}

static inline void zg__unref(zg_header *h) {
  if (h && --h->refs == 0) {
    free(h->extra);
    free(h->name);
    free(h->comment);
    free(h);
  }
}

static inline Bytef *zg__dup(const void *p, size_t n) {
  Bytef *d = malloc(n ? n : 1);
  if (!d) abort();
  if (n) memcpy(d, p, n);
  return d;
}

/* A new header in w, replacing the one it had, once zlib took it (rc Z_OK). */
static inline int zg__set_head(zg_stream *w, zg_header *h, int rc) {
  if (rc == Z_OK) {
    zg__unref(w->head);
    w->head = h;
  } else {
    zg__unref(h);
  }
  return rc;
}

/* Replace the input with a copy of buf[0..len-1] (the application's input
 * buffer; unconsumed earlier input is dropped, as the caller chose). */
static inline void zg__input(zg_stream *w, const Bytef *buf, unsigned len) {
  Bytef *in = zg__dup(buf, len);
  free(w->in);
  w->in = in;
  w->strm.next_in = in;
  w->strm.avail_in = len;
}

/* Give the stream an empty output buffer of size bytes (the previous output
 * has been consumed). size 0 leaves avail_out == 0 with a valid next_out. */
static inline void zg__output(zg_stream *w, unsigned size) {
  Bytef *out = malloc(size ? size : 1);
  if (!out) abort();
  free(w->out);
  w->out = out;
  w->out_size = size;
  w->strm.next_out = out;
  w->strm.avail_out = size;
}

/* A zeroed stream (zalloc = zfree = opaque = Z_NULL) after the init macro's
 * result rc; NULL, with nothing left, when it failed. */
static inline z_stream *zg__init(zg_stream *w, int rc) {
  if (rc != Z_OK) {
    free(w);
    return NULL;
  }
  zg__output(w, ZG_DEFAULT_OUT);
  return &w->strm;
}

static inline void zg__free(zg_stream *w) {
  free(w->in);
  free(w->out);
  zg__unref(w->head);
  free(w);
}

/* deflateCopy/inflateCopy's result rc into d: the copy's next_in/next_out
 * still point into the source's buffers, so it gets its own copies (same
 * offsets) and shares the header, which zlib copied the pointer of. */
static inline z_stream *zg__copy(zg_stream *d, zg_stream *s, int rc) {
  if (rc != Z_OK) { /* d has no state of its own */
    free(d);
    return NULL;
  }
  d->in = zg__dup(s->strm.next_in, s->strm.avail_in);
  d->out = zg__dup(s->out, s->out_size);
  d->out_size = s->out_size;
  d->strm.next_in = d->in;
  d->strm.next_out = d->out + (s->strm.next_out - s->out);
  d->head = s->head;
  if (d->head) d->head->refs++;
  return &d->strm;
}

static inline zg_stream *zg__new(void) {
  zg_stream *w = calloc(1, sizeof *w);
  if (!w) abort();
  return w;
}

/* ---- deflate streams (handle zdeflate) ----------------------------------- */

static inline z_stream *zg_deflate_init(int level) {
  zg_stream *w = zg__new();
  return zg__init(w, deflateInit(&w->strm, level));
}

/* With the application's allocator and free function (Z_NULL: zlib's). */
static inline z_stream *zg_deflate_init2(int level, int method, int windowBits, int memLevel,
                                         int strategy, alloc_func zalloc, free_func zfree) {
  zg_stream *w = zg__new();
  w->strm.zalloc = zalloc;
  w->strm.zfree = zfree;
  return zg__init(w, deflateInit2(&w->strm, level, method, windowBits, memLevel, strategy));
}

/* deflateEnd (a no-op Z_STREAM_ERROR if the application already ended it),
 * then the z_stream and the glue's buffers are freed. */
static inline void zg_deflate_free(z_stream *s) {
  deflateEnd(s);
  zg__free(zg__of(s));
}

/* Set next_in/avail_in to a copy of buf. */
static inline void zg_deflate_input(z_stream *s, const Bytef *buf, unsigned len) {
  zg__input(zg__of(s), buf, len);
}

/* Consume the output: a fresh next_out/avail_out of size bytes. */
static inline void zg_deflate_output(z_stream *s, unsigned size) {
  zg__output(zg__of(s), size);
}

static inline z_stream *zg_deflate_copy(z_stream *src) {
  zg_stream *d = zg__new();
  return zg__copy(d, zg__of(src), deflateCopy(&d->strm, src));
}

/* deflateSetHeader with a gz_header built from the arguments (NULL name or
 * comment, or an empty extra, leave that field out). zlib reads it while it
 * writes the header, so it lives with the stream. */
static inline int zg_deflate_set_header(z_stream *s, int text, uLong time, int os, const char *name,
                                        const char *comment, const Bytef *extra, unsigned extra_len,
                                        int hcrc) {
  zg_header *h = calloc(1, sizeof *h);
  if (!h) abort();
  h->refs = 1;
  h->h.text = text;
  h->h.time = time;
  h->h.os = os;
  if (extra_len) {
    h->h.extra = h->extra = zg__dup(extra, extra_len);
    h->h.extra_len = extra_len;
  }
  if (name) h->h.name = h->name = zg__dup(name, strlen(name) + 1);
  if (comment) h->h.comment = h->comment = zg__dup(comment, strlen(comment) + 1);
  h->h.hcrc = hcrc;
  return zg__set_head(zg__of(s), h, deflateSetHeader(s, &h->h));
}

/* What zg_pipe would move: the stream's output so far (malloc'd, with a NUL
 * after it as every string result), its length in *len. The printer the
 * simplifier reads to replace a zg_pipe by a zg_inflate_input of these
 * bytes (zlib.api: inverse_of). */
static inline char *zg_deflate_pending(z_stream *s, uint64_t *len) {
  zg_stream *d = zg__of(s);
  size_t have = (size_t)(d->strm.next_out - d->out);
  char *copy = malloc(have + 1);
  if (!copy) abort();
  if (have) memcpy(copy, d->out, have);
  copy[have] = 0;
  *len = have;
  return copy;
}

/* ---- inflate streams (handle zinflate) ----------------------------------- */

/* inflateInit(strm) on a zeroed z_stream (next_in Z_NULL, avail_in 0). */
static inline z_stream *zg_inflate_init(void) {
  zg_stream *w = zg__new();
  return zg__init(w, inflateInit(&w->strm));
}

static inline z_stream *zg_inflate_init2(int windowBits, alloc_func zalloc, free_func zfree) {
  zg_stream *w = zg__new();
  w->strm.zalloc = zalloc;
  w->strm.zfree = zfree;
  return zg__init(w, inflateInit2(&w->strm, windowBits));
}

/* inflateEnd, then free the z_stream and the glue's buffers. */
static inline void zg_inflate_free(z_stream *s) {
  inflateEnd(s);
  zg__free(zg__of(s));
}

static inline void zg_inflate_input(z_stream *s, const Bytef *buf, unsigned len) {
  zg__input(zg__of(s), buf, len);
}

static inline void zg_inflate_output(z_stream *s, unsigned size) {
  zg__output(zg__of(s), size);
}

static inline z_stream *zg_inflate_copy(z_stream *src) {
  zg_stream *d = zg__new();
  return zg__copy(d, zg__of(src), inflateCopy(&d->strm, src));
}

/* inflateGetHeader with a gz_header whose extra/name/comment buffers have
 * exactly extra_max/name_max/comm_max bytes (0: Z_NULL, not stored). */
static inline int zg_inflate_get_header(z_stream *s, unsigned extra_max, unsigned name_max,
                                        unsigned comm_max) {
  zg_header *h = calloc(1, sizeof *h);
  if (!h) abort();
  h->refs = 1;
  if (extra_max) h->h.extra = h->extra = malloc(extra_max);
  if (name_max) h->h.name = h->name = malloc(name_max);
  if (comm_max) h->h.comment = h->comment = malloc(comm_max);
  h->h.extra_max = extra_max;
  h->h.name_max = name_max;
  h->h.comm_max = comm_max;
  return zg__set_head(zg__of(s), h, inflateGetHeader(s, &h->h));
}

/* Hand what the deflate stream produced so far (its output buffer up to
 * next_out) to the inflate stream, after its unconsumed input; the deflate
 * output buffer is then empty again. */
static inline void zg_pipe(z_stream *inf, z_stream *def) {
  zg_stream *i = zg__of(inf), *d = zg__of(def);
  size_t have = (size_t)(d->strm.next_out - d->out), left = i->strm.avail_in;
  Bytef *in = malloc(left + have ? left + have : 1);
  if (!in) abort();
  if (left) memcpy(in, i->strm.next_in, left);
  if (have) memcpy(in + left, d->out, have);
  free(i->in);
  i->in = in;
  i->strm.next_in = in;
  i->strm.avail_in = (uInt)(left + have);
  d->strm.next_out = d->out;
  d->strm.avail_out = d->out_size;
}

/* ---- checksums ------------------------------------------------------------ */

/* crc32_combine_op with the operator crc32_combine_gen(len2) made for it
 * (any other op is meaningless; op 0 never terminates). */
static inline uLong zg_crc32_combine_op(uLong crc1, uLong crc2, z_off_t len2) {
  return crc32_combine_op(crc1, crc2, crc32_combine_gen(len2));
}

/* One entry of the table get_crc_table() returns (256 entries). */
static inline unsigned zg_crc_table_entry(unsigned char i) {
  return (unsigned)get_crc_table()[i];
}

/* ---- gzip files (handles ztmp, a struct the harness allocates; gzFile) --- */

/* The private file: the memfd the harness made of the bytes, now ours. */
struct zg_tmp {
  int fd;
};

static inline void zg_tmp_new(struct zg_tmp *t, int fd) {
  t->fd = fd;
}

static inline void zg_tmp_free(struct zg_tmp *t) {
  close(t->fd);
}

/* gzopen("/proc/self/fd/N", mode): a descriptor of its own (offset 0). */
static inline gzFile zg_gzopen(struct zg_tmp *t, const char *mode) {
  char path[32];
  snprintf(path, sizeof path, "/proc/self/fd/%d", t->fd);
  return gzopen(path, mode);
}

#endif
