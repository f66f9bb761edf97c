/* zd_glue.h: one decompression API with two implementations, zlib 1.2.13
 * (the zd_* functions) and libdeflate 1.14 (the zd_*_libdeflate functions,
 * mapped in zlib_libdeflate.api's `differential` block). Both take the same
 * arguments and return the same normalized result, so that the two runs of a
 * sequence can be compared call by call.
 *
 * What is compared (struct zd_out, read by the observers):
 *   status   ZD_OK, ZD_DATA (invalid or incomplete data), ZD_SMALL (valid data
 *            that does not fit in out_cap bytes), ZD_OTHER (out of memory,
 *            anything unexpected);
 *   len, crc the output's length and CRC-32 (zlib's crc32 in both), only for
 *            ZD_OK: libdeflate's output is undefined after a failure, zlib's
 *            uncompress "fills the output buffer ... up to that point";
 *   in_used  the input bytes the stream took (zlib: uncompress2's *sourceLen,
 *            total_in; libdeflate: the *_ex functions' actual_in_nbytes), only
 *            for ZD_OK.
 *
 * Where the libraries legitimately differ, and how the glue makes them
 * comparable:
 *  1. One stream, trailing bytes ignored: libdeflate decompresses only the
 *     first stream/gzip member ("Decompression will stop at the end of the
 *     zlib stream, even if it is shorter than 'in_nbytes'"; "only the first
 *     will be decompressed"). zlib's inflate stops there too (Z_STREAM_END),
 *     and uncompress2 reports the bytes consumed: one call each, nothing to
 *     normalize.
 *  2. Exact output size: libdeflate with a NULL actual_out_nbytes_ret wants the
 *     exact size (LIBDEFLATE_SHORT_OUTPUT otherwise). The glue always passes
 *     actual_out_nbytes_ret, the variant documented for an unknown size,
 *     which behaves as zlib does with an output buffer of out_cap bytes.
 *  3. Which error is found first: for a stream that both overflows out_cap
 *     and is invalid further on, neither library documents whether it
 *     reports the overflow or the corruption (libdeflate stops at the first
 *     write that does not fit, before checking the match distance; zlib
 *     checks the distance first and goes on parsing while avail_out is 0).
 *     So an overflow is confirmed by decompressing again into a buffer that
 *     neither library can find too small for n input bytes (ZD_BOUND(n): a
 *     DEFLATE symbol takes at least one bit and a match at least two, for at
 *     most 258 bytes, so <= 1032 bytes per input byte; libdeflate may read up
 *     to 8 implicit zero bytes past the end before it fails, and it checks a
 *     stored block's LEN (<= 65535) against the output space before checking
 *     that the input holds that many bytes). ZD_SMALL is kept only when that
 *     run succeeds; otherwise its status (ZD_DATA) is the result. The
 *     status is then a function of the data alone.
 *  4. Strictness: libdeflate accepts some malformed DEFLATE streams that zlib
 *     rejects, by design, as its source says (lib/deflate_decompress.c,
 *     lib/decompress_template.h, lib/gzip_decompress.c):
 *       - HLIT up to 288 and HDIST up to 32 code lengths (zlib: "too many
 *         length or distance symbols"), litlen symbols 286/287 (decoded as
 *         length 258) and offset symbols 30/31 (decoded as symbol 29) (zlib:
 *         "invalid literal/length code", "invalid distance code");
 *       - an empty code decodes as symbol 0, and a code with one codeword of
 *         length 1 assigns both codewords to that symbol, for the precode
 *         too ("We do the same except we allow this for precodes too")
 *         (zlib: "invalid code lengths set", "invalid literal/length code",
 *         "invalid distance code");
 *       - a repeated code length may run past the last length ("we don't
 *         need verify that the repeat count doesn't overflow") (zlib:
 *         "invalid bit length repeat");
 *       - the gzip header CRC (FHCRC) is skipped, not checked (zlib: "header
 *         crc mismatch"); RFC 1952 makes checking it optional.
 *     So when libdeflate accepts a stream (ZD_OK or a confirmed ZD_SMALL),
 *     its glue asks zlib's inflate about the same bytes; if zlib rejects it
 *     with one of exactly these messages, the stream is outside the common
 *     language and the result is ZD_DATA, as zlib's. Any other disagreement
 *     stays visible. (libdeflate's run of such a stream still happens, under
 *     the sanitizers.)
 */
#ifndef ZD_GLUE_H
#define ZD_GLUE_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libdeflate.h"
#include "zlib.h"

enum { ZD_ZLIB = 0, ZD_RAW = 1, ZD_GZIP = 2 };               /* formats */
enum { ZD_OK = 0, ZD_DATA = 1, ZD_SMALL = 2, ZD_OTHER = 3 }; /* statuses */

/* Largest input of the grammar (direct bytes <= 16384, buffers <= 32768). */
#define ZD_MAX_BUF  32768
#define ZD_BOUND(n) (1032 * ((size_t)(n) + 16) + 65536 + 1024)

typedef struct zd_out {
  int status;
  size_t len;
  uint32_t crc;
  size_t in_used;
} zd_out;

/* A decompressor kept across calls: a z_stream (reset for each call with the
 * call's format) or a libdeflate_decompressor (which keeps the static
 * Huffman tables between calls, "even across streams"). */
typedef struct zd_dec {
  int zinit;
  z_stream z;
  struct libdeflate_decompressor *ld;
} zd_dec;

/* Compressed data made by zlib's deflate in both implementations, so that
 * both decompressors get the same bytes; the calls below change it. */
typedef struct zd_buf {
  uint8_t *data;
  size_t len;
} zd_buf;

static inline int zd__wbits(int fmt) {
  return fmt == ZD_RAW ? -15 : fmt == ZD_GZIP ? 31 : 15;
}

/* ---- decompressors -------------------------------------------------------- */

static inline zd_dec *zd_dec_new(void) {
  zd_dec *d = calloc(1, sizeof *d);
  if (d && inflateInit2(&d->z, 15) != Z_OK) {
    free(d);
    return NULL;
  }
  if (d) d->zinit = 1;
  return d;
}
static inline zd_dec *zd_dec_new_libdeflate(void) {
  zd_dec *d = calloc(1, sizeof *d);
  if (d && !(d->ld = libdeflate_alloc_decompressor())) {
    free(d);
    return NULL;
  }
  return d;
}
static inline void zd_dec_free(zd_dec *d) {
  if (d->zinit) inflateEnd(&d->z);
  libdeflate_free_decompressor(d->ld);
  free(d);
}

/* ---- one decompression into out[cap] ------------------------------------- */

/* zlib: one inflate(Z_FINISH) of the whole input. With Z_FINISH a
 * Z_BUF_ERROR means the output is full (avail_out == 0) or the input ended
 * before the stream did ("incomplete"). *msg gets zlib's message. */
static inline int zd__inflate(z_stream *s, int fmt, const uint8_t *in, size_t n, uint8_t *out,
                              size_t cap, size_t *len, size_t *used, const char **msg) {
  z_stream local;
  int rc, st;
  if (!s) {
    memset(&local, 0, sizeof local);
    if (inflateInit2(&local, zd__wbits(fmt)) != Z_OK) return ZD_OTHER;
  } else if (inflateReset2(s, zd__wbits(fmt)) != Z_OK) {
    return ZD_OTHER;
  }
  z_stream *z = s ? s : &local;
  z->next_in = (Bytef *)in;
  z->avail_in = (uInt)n;
  z->next_out = out;
  z->avail_out = (uInt)cap;
  rc = inflate(z, Z_FINISH);
  *msg = z->msg;
  if (rc == Z_STREAM_END) {
    st = ZD_OK;
    *len = cap - z->avail_out;
    *used = n - z->avail_in;
  } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
    st = ZD_DATA;
  } else if (rc == Z_BUF_ERROR) {
    st = z->avail_out == 0 ? ZD_SMALL : ZD_DATA;
  } else {
    st = ZD_OTHER;
  }
  if (!s) inflateEnd(&local);
  return st;
}

/* zlib, as an application without a kept stream uses it: uncompress2 for the
 * zlib format ("Z_BUF_ERROR if there was not enough room in the output
 * buffer, or Z_DATA_ERROR if the input data was corrupted or incomplete";
 * *sourceLen becomes the bytes consumed), a fresh stream for the others.
 * With *destLen == 0 too: uncompress2 then decompresses into a private
 * 1-byte buffer and misreports a valid stream (Z_OK and *destLen 0 for one
 * byte of output, Z_DATA_ERROR for more: bugs/uncompress2-destlen-0.seq, set
 * aside in campaigns by bench/known-patterns/zlib-libdeflate). */
static inline int zd__zlib_run(zd_dec *d, int fmt, const uint8_t *in, size_t n, uint8_t *out,
                               size_t cap, size_t *len, size_t *used) {
  const char *msg;
  if (!d && fmt == ZD_ZLIB) {
    uLongf dl = cap;
    uLong sl = n;
    int rc = uncompress2(out, &dl, in, &sl);
    if (rc == Z_OK) {
      *len = dl;
      *used = sl;
      return ZD_OK;
    }
    return rc == Z_BUF_ERROR ? ZD_SMALL : rc == Z_DATA_ERROR ? ZD_DATA : ZD_OTHER;
  }
  return zd__inflate(d ? &d->z : NULL, fmt, in, n, out, cap, len, used, &msg);
}

/* libdeflate: the *_ex functions with actual_out_nbytes_ret (point 2). */
static inline int zd__libdeflate_run(zd_dec *d, int fmt, const uint8_t *in, size_t n, uint8_t *out,
                                     size_t cap, size_t *len, size_t *used) {
  struct libdeflate_decompressor *ld = d ? d->ld : libdeflate_alloc_decompressor();
  enum libdeflate_result r;
  if (!ld) return ZD_OTHER;
  if (fmt == ZD_RAW)
    r = libdeflate_deflate_decompress_ex(ld, in, n, out, cap, used, len);
  else if (fmt == ZD_GZIP)
    r = libdeflate_gzip_decompress_ex(ld, in, n, out, cap, used, len);
  else
    r = libdeflate_zlib_decompress_ex(ld, in, n, out, cap, used, len);
  if (!d) libdeflate_free_decompressor(ld);
  return r == LIBDEFLATE_SUCCESS              ? ZD_OK
         : r == LIBDEFLATE_BAD_DATA           ? ZD_DATA
         : r == LIBDEFLATE_INSUFFICIENT_SPACE ? ZD_SMALL
                                              : ZD_OTHER;
}

/* Point 4: does zlib reject these bytes for one of the reasons libdeflate
 * documents accepting? */
static inline int zd__lenient(int fmt, const uint8_t *in, size_t n) {
  static const char *const why[] = {
      "too many length or distance symbols",
      "invalid code lengths set",
      "invalid bit length repeat",
      "invalid literal/length code",
      "invalid distance code",
      "header crc mismatch",
  };
  size_t cap = ZD_BOUND(n), len, used;
  const char *msg = NULL;
  uint8_t *out = malloc(cap);
  int st, hit = 0;
  if (!out) return 0;
  st = zd__inflate(NULL, fmt, in, n, out, cap, &len, &used, &msg);
  free(out);
  for (size_t i = 0; st == ZD_DATA && msg && i < sizeof why / sizeof why[0]; i++)
    hit |= strcmp(msg, why[i]) == 0;
  return hit;
}

typedef int (*zd__runner)(zd_dec *, int, const uint8_t *, size_t, uint8_t *, size_t, size_t *,
                          size_t *);

/* Decompress with `run` into out_cap bytes and normalize (points 3, 4). */
static inline zd_out *zd__decompress(zd__runner run, int libdeflate, zd_dec *d, int fmt,
                                     const uint8_t *in, size_t n, size_t cap) {
  zd_out *o = calloc(1, sizeof *o);
  uint8_t *out;
  size_t len = 0, used = 0;
  if (!o) return NULL;
  if (!(out = malloc(cap ? cap : 1))) {
    o->status = ZD_OTHER;
    return o;
  }
  o->status = run(d, fmt, in, n, out, cap, &len, &used);
  if (o->status == ZD_OK) {
    o->len = len;
    o->crc = (uint32_t)crc32(0, out, (uInt)len);
    o->in_used = used;
  }
  free(out);
  if (o->status == ZD_SMALL) {
    size_t big = ZD_BOUND(n);
    int st = (out = malloc(big)) ? run(d, fmt, in, n, out, big, &len, &used) : ZD_OTHER;
    free(out);
    o->status = st == ZD_OK ? ZD_SMALL : st == ZD_SMALL ? ZD_OTHER : st;
  }
  if (libdeflate && (o->status == ZD_OK || o->status == ZD_SMALL) && zd__lenient(fmt, in, n)) {
    o->status = ZD_DATA;
    o->len = 0, o->crc = 0, o->in_used = 0;
  }
  return o;
}

static inline void zd_out_free(zd_out *o) {
  free(o);
}

/* ---- the compared API: zlib ... ------------------------------------------- */

static inline zd_out *zd_zlib_decompress(zd_dec *d, const uint8_t *in, uint32_t n, uint32_t cap) {
  return zd__decompress(zd__zlib_run, 0, d, ZD_ZLIB, in, n, cap);
}
static inline zd_out *zd_raw_decompress(zd_dec *d, const uint8_t *in, uint32_t n, uint32_t cap) {
  return zd__decompress(zd__zlib_run, 0, d, ZD_RAW, in, n, cap);
}
static inline zd_out *zd_gzip_decompress(zd_dec *d, const uint8_t *in, uint32_t n, uint32_t cap) {
  return zd__decompress(zd__zlib_run, 0, d, ZD_GZIP, in, n, cap);
}
static inline zd_out *zd_decompress_buf(zd_dec *d, zd_buf *b, int32_t fmt, uint32_t cap) {
  return zd__decompress(zd__zlib_run, 0, d, fmt, b->data, b->len, cap);
}

/* ---- ... and libdeflate --------------------------------------------------- */

static inline zd_out *zd_zlib_decompress_libdeflate(zd_dec *d, const uint8_t *in, uint32_t n,
                                                    uint32_t cap) {
  return zd__decompress(zd__libdeflate_run, 1, d, ZD_ZLIB, in, n, cap);
}
static inline zd_out *zd_raw_decompress_libdeflate(zd_dec *d, const uint8_t *in, uint32_t n,
                                                   uint32_t cap) {
  return zd__decompress(zd__libdeflate_run, 1, d, ZD_RAW, in, n, cap);
}
static inline zd_out *zd_gzip_decompress_libdeflate(zd_dec *d, const uint8_t *in, uint32_t n,
                                                    uint32_t cap) {
  return zd__decompress(zd__libdeflate_run, 1, d, ZD_GZIP, in, n, cap);
}
static inline zd_out *zd_decompress_buf_libdeflate(zd_dec *d, zd_buf *b, int32_t fmt,
                                                   uint32_t cap) {
  return zd__decompress(zd__libdeflate_run, 1, d, fmt, b->data, b->len, cap);
}

/* ---- round trip: each library decompresses what it compressed -------------
 * The compressed bytes legitimately differ (and are not compared: in_used is
 * 0); the output must be the input in both. */
static inline zd_out *zd__roundtrip_out(int st, const uint8_t *out, size_t len) {
  zd_out *o = calloc(1, sizeof *o);
  if (!o) return NULL;
  o->status = st;
  if (st == ZD_OK) o->len = len, o->crc = (uint32_t)crc32(0, out, (uInt)len);
  return o;
}

static inline zd_out *zd_roundtrip(const uint8_t *in, uint32_t n, int32_t level, int32_t fmt) {
  z_stream z;
  uLong bound;
  uint8_t *c, *out;
  size_t clen, len = 0, used;
  const char *msg;
  int st = ZD_OTHER;
  zd_out *o;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, level, Z_DEFLATED, zd__wbits(fmt), 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return zd__roundtrip_out(ZD_OTHER, NULL, 0);
  bound = deflateBound(&z, n);
  c = malloc(bound);
  out = malloc(n ? n : 1);
  if (c && out) {
    z.next_in = (Bytef *)in, z.avail_in = n, z.next_out = c, z.avail_out = (uInt)bound;
    if (deflate(&z, Z_FINISH) == Z_STREAM_END) {
      clen = bound - z.avail_out;
      st = zd__inflate(NULL, fmt, c, clen, out, n, &len, &used, &msg);
    }
  }
  deflateEnd(&z);
  o = zd__roundtrip_out(st, out, len);
  free(c), free(out);
  return o;
}

static inline zd_out *zd_roundtrip_libdeflate(const uint8_t *in, uint32_t n, int32_t level,
                                              int32_t fmt) {
  struct libdeflate_compressor *lc = libdeflate_alloc_compressor(level);
  size_t bound, clen = 0, len = 0, used;
  uint8_t *c = NULL, *out = NULL;
  int st = ZD_OTHER;
  zd_out *o;
  if (!lc) return zd__roundtrip_out(ZD_OTHER, NULL, 0);
  bound = fmt == ZD_RAW    ? libdeflate_deflate_compress_bound(lc, n)
          : fmt == ZD_GZIP ? libdeflate_gzip_compress_bound(lc, n)
                           : libdeflate_zlib_compress_bound(lc, n);
  c = malloc(bound);
  out = malloc(n ? n : 1);
  if (c && out) {
    clen = fmt == ZD_RAW    ? libdeflate_deflate_compress(lc, in, n, c, bound)
           : fmt == ZD_GZIP ? libdeflate_gzip_compress(lc, in, n, c, bound)
                            : libdeflate_zlib_compress(lc, in, n, c, bound);
    /* "0 if the data could not be compressed to out_nbytes_avail bytes":
     * never with the bound. */
    if (clen) st = zd__libdeflate_run(NULL, fmt, c, clen, out, n, &len, &used);
  }
  libdeflate_free_compressor(lc);
  o = zd__roundtrip_out(st, out, len);
  free(c), free(out);
  return o;
}

/* ---- compressed buffers (zlib's deflate, the same in both) ---------------- */

static inline zd_buf *zd_compress(const uint8_t *in, uint32_t n, int32_t level, int32_t fmt,
                                  uint32_t wbits, int32_t strategy) {
  z_stream z;
  zd_buf *b = calloc(1, sizeof *b);
  int wb = fmt == ZD_RAW ? -(int)wbits : fmt == ZD_GZIP ? 16 + (int)wbits : (int)wbits;
  uLong bound;
  memset(&z, 0, sizeof z);
  if (!b) return NULL;
  if (deflateInit2(&z, level, Z_DEFLATED, wb, 8, strategy) != Z_OK) {
    free(b);
    return NULL;
  }
  bound = deflateBound(&z, n);
  b->data = malloc(bound);
  if (b->data) {
    z.next_in = (Bytef *)in, z.avail_in = n, z.next_out = b->data, z.avail_out = (uInt)bound;
    if (deflate(&z, Z_FINISH) == Z_STREAM_END) b->len = bound - z.avail_out;
  }
  deflateEnd(&z);
  if (!b->data || !b->len || b->len > ZD_MAX_BUF) {
    free(b->data);
    free(b);
    return NULL;
  }
  return b;
}

static inline void zd_buf_free(zd_buf *b) {
  free(b->data);
  free(b);
}

/* Flip bits of one byte (pos modulo the length): a nearly valid stream. */
static inline void zd_buf_flip(zd_buf *b, uint32_t pos, uint8_t mask) {
  if (b->len) b->data[pos % b->len] ^= mask;
}

/* Keep the first `keep` bytes: a truncated stream. */
static inline void zd_buf_truncate(zd_buf *b, uint32_t keep) {
  if (keep < b->len) b->len = keep;
}

/* Append bytes (trailing garbage) or another buffer (concatenated streams,
 * gzip members); -1 beyond ZD_MAX_BUF bytes. */
static inline int zd__append(zd_buf *b, const uint8_t *p, size_t n) {
  uint8_t *d;
  if (b->len + n > ZD_MAX_BUF) return -1;
  if (!(d = realloc(b->data, b->len + n ? b->len + n : 1))) return -1;
  if (n) memcpy(d + b->len, p, n);
  b->data = d, b->len += n;
  return 0;
}
static inline int zd_buf_append(zd_buf *b, const uint8_t *p, uint32_t n) {
  return zd__append(b, p, n);
}
static inline int zd_buf_concat(zd_buf *b, zd_buf *other) {
  uint8_t *copy;
  int rc;
  if (other != b) return zd__append(b, other->data, other->len);
  /* A buffer appended to itself: realloc would move the source. */
  if (!(copy = malloc(b->len ? b->len : 1))) return -1;
  memcpy(copy, b->data, b->len);
  rc = zd__append(b, copy, b->len);
  free(copy);
  return rc;
}

/* ---- observers ------------------------------------------------------------ */

static inline int zd_status(zd_out *o) {
  return o->status;
}
static inline uint64_t zd_len(zd_out *o) {
  return o->len;
}
static inline uint32_t zd_crc(zd_out *o) {
  return o->crc;
}
static inline uint64_t zd_in_used(zd_out *o) {
  return o->in_used;
}
static inline uint64_t zd_buf_len(zd_buf *b) {
  return b->len;
}

#endif
