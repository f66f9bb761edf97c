/* zlib_glue.h: the calls of zlib 1.2.13 that zlib.api cannot describe
 * directly, each written the way a careful application would make them.
 *
 * Why glue is needed (see zlib.h):
 *  - z_stream and gz_header are caller-allocated structs whose fields
 *    (next_in/avail_in, next_out/avail_out, total_out, adler, ...) the
 *    application sets and reads; deflateInit*, inflateInit* and
 *    inflateBackInit are macros; deflateEnd/inflateEnd free the internal
 *    state but not the z_stream itself.
 *  - compress/uncompress take in/out length pointers, gzread/gzgets/
 *    deflateGetDictionary fill caller buffers, gzprintf is variadic,
 *    inflateBack takes callbacks, crc32_combine_op needs an operator made by
 *    crc32_combine_gen.
 *  - gzopen/gzdopen take a path/fd: the fuzzer must not name files, so each
 *    "file" is a private memfd of this process (zg_tmp).
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

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "zlib.h"

/* Returned by glue when it refuses a call whose documented precondition does
 * not hold (the grammar cannot track stream state); the grammar declares it
 * as an error, so the run stops there as for any failed call. */
#define ZG_PRECONDITION (-100)

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
  if (d && n) memcpy(d, p, n);
  return d;
}

/* Replace the input with a copy of buf[0..len-1] (the application's input
 * buffer; unconsumed earlier input is dropped, as the caller chose). */
static inline void zg__input(zg_stream *w, const Bytef *buf, unsigned len) {
  Bytef *in = zg__dup(buf, len);
  if (!in) abort();
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

static inline zg_stream *zg__new(void) {
  zg_stream *w = calloc(1, sizeof *w); /* zalloc = zfree = opaque = Z_NULL */
  if (!w) return NULL;
  zg__output(w, ZG_DEFAULT_OUT);
  return w;
}

static inline void zg__free(zg_stream *w) {
  free(w->in);
  free(w->out);
  zg__unref(w->head);
  free(w);
}

/* After deflateCopy/inflateCopy: the copy's next_in/next_out still point into
 * the source's buffers. Give the copy its own copies (same offsets). */
static inline void zg__own_buffers(zg_stream *d, zg_stream *s) {
  d->in = zg__dup(s->strm.next_in, s->strm.avail_in);
  d->out = zg__dup(s->out, s->out_size);
  if (!d->in || !d->out) abort();
  d->out_size = s->out_size;
  d->strm.next_in = d->in;
  d->strm.next_out = d->out + (s->strm.next_out - s->out);
  d->head = s->head; /* zlib copied the header pointer too */
  if (d->head) d->head->refs++;
}

/* ---- deflate streams (handle zdeflate) ----------------------------------- */

/* deflateInit(strm, level) on a zeroed z_stream; NULL if it fails. */
static inline z_stream *zg_deflate_init(int level) {
  zg_stream *w = zg__new();
  if (!w) return NULL;
  if (deflateInit(&w->strm, level) != Z_OK) {
    zg__free(w);
    return NULL;
  }
  return &w->strm;
}

/* deflateInit2(strm, level, method, windowBits, memLevel, strategy). */
static inline z_stream *zg_deflate_init2(int level, int method, int windowBits, int memLevel,
                                         int strategy) {
  zg_stream *w = zg__new();
  if (!w) return NULL;
  if (deflateInit2(&w->strm, level, method, windowBits, memLevel, strategy) != Z_OK) {
    zg__free(w);
    return NULL;
  }
  return &w->strm;
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

/* deflateCopy into a new zeroed z_stream; NULL if it fails. */
static inline z_stream *zg_deflate_copy(z_stream *src) {
  zg_stream *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  if (deflateCopy(&d->strm, src) != Z_OK) { /* dest has no state of its own */
    free(d);
    return NULL;
  }
  zg__own_buffers(d, zg__of(src));
  return &d->strm;
}

/* deflateGetDictionary: ask for the length (dictionary Z_NULL), then copy
 * into a buffer of exactly that size. */
static inline int zg_deflate_get_dictionary(z_stream *s, unsigned *len) {
  uInt n = 0;
  int rc = deflateGetDictionary(s, Z_NULL, &n);
  if (rc != Z_OK) return rc;
  Bytef *d = malloc(n ? n : 1);
  if (!d) abort();
  rc = deflateGetDictionary(s, d, &n);
  free(d);
  *len = n;
  return rc;
}

/* deflateSetHeader with a gz_header built from the arguments (NULL name or
 * comment, or an empty extra, leave that field out). zlib reads the header
 * while it writes it, so it may only be set before the first deflate() after
 * deflateInit2/deflateReset (zlib.h); zlib does not check this, the glue does
 * (total_in and total_out are 0 until then) and returns ZG_PRECONDITION. */
static inline int zg_deflate_set_header(z_stream *s, int text, uLong time, int os, const char *name,
                                        const char *comment, const Bytef *extra, unsigned extra_len,
                                        int hcrc) {
  zg_stream *w = zg__of(s);
  if (s->total_in != 0 || s->total_out != 0) return ZG_PRECONDITION;
  zg_header *h = calloc(1, sizeof *h);
  if (!h) abort();
  h->refs = 1;
  h->h.text = text;
  h->h.time = time;
  h->h.os = os;
  if (extra_len) {
    h->extra = zg__dup(extra, extra_len);
    h->h.extra = h->extra;
    h->h.extra_len = extra_len;
  }
  if (name) h->h.name = h->name = zg__dup(name, strlen(name) + 1);
  if (comment) h->h.comment = h->comment = zg__dup(comment, strlen(comment) + 1);
  h->h.hcrc = hcrc;
  int rc = deflateSetHeader(s, &h->h);
  if (rc == Z_OK) {
    zg__unref(w->head);
    w->head = h;
  } else {
    zg__unref(h);
  }
  return rc;
}

/* Fields of the z_stream the application reads after deflate(). */
static inline uLong zg_deflate_total_out(z_stream *s) {
  return s->total_out;
}
static inline uLong zg_deflate_adler(z_stream *s) {
  return s->adler;
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
  if (!w) return NULL;
  if (inflateInit(&w->strm) != Z_OK) {
    zg__free(w);
    return NULL;
  }
  return &w->strm;
}

/* inflateInit2(strm, windowBits). */
static inline z_stream *zg_inflate_init2(int windowBits) {
  zg_stream *w = zg__new();
  if (!w) return NULL;
  if (inflateInit2(&w->strm, windowBits) != Z_OK) {
    zg__free(w);
    return NULL;
  }
  return &w->strm;
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

/* inflateCopy into a new zeroed z_stream; NULL if it fails. */
static inline z_stream *zg_inflate_copy(z_stream *src) {
  zg_stream *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  if (inflateCopy(&d->strm, src) != Z_OK) {
    free(d);
    return NULL;
  }
  zg__own_buffers(d, zg__of(src));
  return &d->strm;
}

/* inflateGetDictionary, as zg_deflate_get_dictionary. */
static inline int zg_inflate_get_dictionary(z_stream *s, unsigned *len) {
  uInt n = 0;
  int rc = inflateGetDictionary(s, Z_NULL, &n);
  if (rc != Z_OK) return rc;
  Bytef *d = malloc(n ? n : 1);
  if (!d) abort();
  rc = inflateGetDictionary(s, d, &n);
  free(d);
  *len = n;
  return rc;
}

/* inflateGetHeader with a gz_header whose extra/name/comment buffers have
 * exactly extra_max/name_max/comm_max bytes (0: Z_NULL, not stored). zlib.h:
 * call it after inflateInit2/inflateReset and before the first inflate();
 * the glue checks that no input was consumed yet, else ZG_PRECONDITION. */
static inline int zg_inflate_get_header(z_stream *s, unsigned extra_max, unsigned name_max,
                                        unsigned comm_max) {
  zg_stream *w = zg__of(s);
  if (s->total_in != 0 || s->total_out != 0) return ZG_PRECONDITION;
  zg_header *h = calloc(1, sizeof *h);
  if (!h) abort();
  h->refs = 1;
  if (extra_max) h->h.extra = h->extra = malloc(extra_max);
  if (name_max) h->h.name = h->name = malloc(name_max);
  if (comm_max) h->h.comment = h->comment = malloc(comm_max);
  h->h.extra_max = extra_max;
  h->h.name_max = name_max;
  h->h.comm_max = comm_max;
  int rc = inflateGetHeader(s, &h->h);
  if (rc == Z_OK) {
    zg__unref(w->head);
    w->head = h;
  } else {
    zg__unref(h);
  }
  return rc;
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

static inline uLong zg_inflate_total_out(z_stream *s) {
  return s->total_out;
}
static inline uLong zg_inflate_adler(z_stream *s) {
  return s->adler;
}
static inline int zg_inflate_data_type(z_stream *s) {
  return s->data_type;
}

/* ---- inflateBack (handle zback) ------------------------------------------ */

struct zg_back {
  z_stream strm;
  unsigned char *window; /* 1 << windowBits bytes, given to inflateBackInit */
};

/* inflateBackInit(strm, windowBits, window) with a window of that size. */
static inline struct zg_back *zg_inflate_back_init(int windowBits) {
  struct zg_back *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->window = malloc(1u << windowBits);
  if (!b->window || inflateBackInit(&b->strm, windowBits, b->window) != Z_OK) {
    free(b->window);
    free(b);
    return NULL;
  }
  return b;
}

/* inflateBackEnd, then free the window and the z_stream. */
static inline void zg_inflate_back_free(struct zg_back *b) {
  inflateBackEnd(&b->strm);
  free(b->window);
  free(b);
}

struct zg_back_io {
  const unsigned char *buf;
  unsigned len, pos, chunk; /* in(): at most chunk bytes per call */
  unsigned long out, limit; /* out(): fails once more than limit bytes came */
};

static unsigned zg__back_in(void *desc, z_const unsigned char **buf) {
  struct zg_back_io *io = desc;
  unsigned n = io->len - io->pos;
  if (n > io->chunk) n = io->chunk;
  *buf = (unsigned char *)io->buf + io->pos; /* inflateBack only reads it */
  io->pos += n;
  return n;
}

static int zg__back_out(void *desc, unsigned char *buf, unsigned len) {
  struct zg_back_io *io = desc;
  (void)buf;
  io->out += len;
  return io->out > io->limit;
}

/* inflateBack on the raw deflate data buf[0..len-1], given to it by in() in
 * chunks of chunk bytes; out() discards the output and reports failure once
 * more than out_limit bytes were written (bounds the work per call). */
static inline int zg_inflate_back(struct zg_back *b, const unsigned char *buf, unsigned len,
                                  unsigned chunk, unsigned out_limit) {
  struct zg_back_io io = {buf, len, 0, chunk, 0, out_limit};
  b->strm.next_in = Z_NULL; /* in() is called for all input */
  b->strm.avail_in = 0;
  return inflateBack(&b->strm, zg__back_in, &io, zg__back_out, &io);
}

/* ---- utility functions ---------------------------------------------------- */

/* compress(dest, &destLen, source, sourceLen) into a dest of destcap bytes. */
static inline int zg_compress(const Bytef *src, uLong len, unsigned destcap) {
  Bytef *dest = malloc(destcap ? destcap : 1);
  uLongf dl = destcap;
  if (!dest) abort();
  int rc = compress(dest, &dl, src, len);
  free(dest);
  return rc;
}

static inline int zg_compress2(const Bytef *src, uLong len, unsigned destcap, int level) {
  Bytef *dest = malloc(destcap ? destcap : 1);
  uLongf dl = destcap;
  if (!dest) abort();
  int rc = compress2(dest, &dl, src, len, level);
  free(dest);
  return rc;
}

static inline int zg_uncompress(const Bytef *src, uLong len, unsigned destcap) {
  Bytef *dest = malloc(destcap ? destcap : 1);
  uLongf dl = destcap;
  if (!dest) abort();
  int rc = uncompress(dest, &dl, src, len);
  free(dest);
  return rc;
}

/* uncompress2: *sourceLen is in/out too. */
static inline int zg_uncompress2(const Bytef *src, uLong len, unsigned destcap) {
  Bytef *dest = malloc(destcap ? destcap : 1);
  uLongf dl = destcap;
  uLong sl = len;
  if (!dest) abort();
  int rc = uncompress2(dest, &dl, src, &sl);
  free(dest);
  return rc;
}

/* crc32_combine_op with the operator crc32_combine_gen(len2) made for it
 * (any other op is meaningless; op 0 never terminates). */
static inline uLong zg_crc32_combine_op(uLong crc1, uLong crc2, z_off_t len2) {
  return crc32_combine_op(crc1, crc2, crc32_combine_gen(len2));
}

/* One entry of the table get_crc_table() returns (256 entries). */
static inline unsigned zg_crc_table_entry(unsigned char i) {
  return (unsigned)get_crc_table()[i];
}

/* ---- gzip files (handles ztmp, gzFile) ------------------------------------ */

/* A private in-memory file (memfd), pre-filled with data; gzopen reaches it
 * through /proc/self/fd/N, so no real file is ever named by the fuzzer. */
struct zg_tmp {
  int fd;
  char path[40];
};

static inline struct zg_tmp *zg_tmp_new(const unsigned char *data, unsigned len) {
  struct zg_tmp *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->fd = (int)syscall(SYS_memfd_create, "zg_tmp", 1u /* MFD_CLOEXEC */);
  if (t->fd < 0) {
    free(t);
    return NULL;
  }
  unsigned done = 0;
  while (done < len) {
    ssize_t n = write(t->fd, data + done, len - done);
    if (n <= 0) break;
    done += (unsigned)n;
  }
  snprintf(t->path, sizeof t->path, "/proc/self/fd/%d", t->fd);
  return t;
}

static inline void zg_tmp_free(struct zg_tmp *t) {
  close(t->fd);
  free(t);
}

/* gzopen(path of the temporary file, mode). */
static inline gzFile zg_gzopen(struct zg_tmp *t, const char *mode) {
  return gzopen(t->path, mode);
}

/* gzdopen on a new descriptor of the temporary file (its own offset, 0);
 * gzdopen does not close fd when it fails, so the glue does. */
static inline gzFile zg_gzdopen(struct zg_tmp *t, const char *mode) {
  int fd = open(t->path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return NULL;
  gzFile f = gzdopen(fd, mode);
  if (!f) close(fd);
  return f;
}

/* gzread into a buffer of len bytes. */
static inline int zg_gzread(gzFile f, unsigned len) {
  void *buf = malloc(len ? len : 1);
  if (!buf) abort();
  int rc = gzread(f, buf, len);
  free(buf);
  return rc;
}

/* gzfread of nitems items of size bytes into a buffer of size*nitems bytes. */
static inline size_t zg_gzfread(gzFile f, size_t size, size_t nitems) {
  void *buf = malloc(size * nitems ? size * nitems : 1);
  if (!buf) abort();
  size_t rc = gzfread(buf, size, nitems, f);
  free(buf);
  return rc;
}

/* gzfwrite of buf as len/size items of size bytes (size clamped to len, so
 * at least one item: a result of 0 then means an error). */
static inline size_t zg_gzfwrite(gzFile f, const void *buf, unsigned len, unsigned size) {
  if (size > len) size = len;
  return gzfwrite(buf, size, len / size, f);
}

/* gzprintf with a fixed format (the fuzzer supplies the arguments, never the
 * format: a format string is a caller contract, not input). */
static inline int zg_gzprintf(gzFile f, const char *s, int n) {
  return gzprintf(f, "%s %d\n", s, n);
}

/* gzgets into a buffer of len bytes; the string's length, or -1 when gzgets
 * returns NULL (end of file or error). */
static inline int zg_gzgets(gzFile f, int len) {
  char *buf = malloc(len > 0 ? (size_t)len : 1);
  if (!buf) abort();
  char *r = gzgets(f, buf, len);
  int n = r ? (int)strlen(r) : -1;
  free(buf);
  return n;
}

#endif
