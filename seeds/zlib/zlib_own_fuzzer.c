/* zlib_own_fuzzer.c: the baseline harness for zlib (the Debian source ships
 * no fuzzer). OSS-Fuzz fuzzes zlib with several small libFuzzer harnesses
 * (compress/uncompress, checksums, dictionaries, flush modes, small and large
 * buffers, minigzip); this is the deflate-then-inflate round trip among them,
 * written here in the same style, not copied:
 *
 *   byte 0: compression level (-1..9)      byte 1: windowBits (9..15) and
 *   byte 2: memLevel (1..9)                        wrapper (zlib, raw, gzip)
 *   byte 3: strategy (0..4)                byte 4: chunk size (1..256)
 *   rest:   the data, compressed with deflateInit2/deflate, given to deflate
 *           and taken from it in chunks, then inflated with inflateInit2/
 *           inflate in chunks; the program aborts if the result differs.
 *
 * windowBits 8 is not used: deflate turns it into 9 and inflate would then
 * reject the zlib header, which zlib.h documents (not a bug).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlib.h"

#define CHECK(cond)                                                                  \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);      \
      abort();                                                                       \
    }                                                                                \
  } while (0)

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 5) return 0;
  int level = data[0] % 11 - 1;
  int wbits = 9 + data[1] % 7;
  int wrap = (data[1] / 7) % 3; /* 0 zlib, 1 raw, 2 gzip */
  int mem_level = 1 + data[2] % 9;
  int strategy = data[3] % 5;
  size_t chunk = 1 + data[4];
  data += 5;
  size -= 5;
  int dwbits = wrap == 0 ? wbits : wrap == 1 ? -wbits : wbits + 16;

  /* Compress, CHUNK bytes of input and output at a time. */
  z_stream def;
  memset(&def, 0, sizeof def);
  CHECK(deflateInit2(&def, level, Z_DEFLATED, dwbits, mem_level, strategy) == Z_OK);
  size_t cap = deflateBound(&def, size) + 64; /* grown below if needed */
  uint8_t *comp = malloc(cap);
  CHECK(comp != NULL);
  size_t in_pos = 0, out_pos = 0;
  int ret;
  do {
    size_t in_now = min_size(chunk, size - in_pos);
    def.next_in = (Bytef *)data + in_pos;
    def.avail_in = (uInt)in_now;
    int flush = in_pos + in_now == size ? Z_FINISH : Z_NO_FLUSH;
    do {
      if (out_pos == cap) {
        cap *= 2;
        comp = realloc(comp, cap);
        CHECK(comp != NULL);
      }
      size_t out_now = min_size(chunk, cap - out_pos);
      def.next_out = comp + out_pos;
      def.avail_out = (uInt)out_now;
      ret = deflate(&def, flush);
      CHECK(ret != Z_STREAM_ERROR);
      out_pos += out_now - def.avail_out;
    } while (def.avail_out == 0);
    CHECK(def.avail_in == 0);
    in_pos += in_now;
  } while (ret != Z_STREAM_END);
  CHECK(deflateEnd(&def) == Z_OK);

  /* Decompress it, CHUNK bytes of input and output at a time. */
  z_stream inf;
  memset(&inf, 0, sizeof inf);
  CHECK(inflateInit2(&inf, dwbits) == Z_OK);
  uint8_t *plain = malloc(size ? size : 1);
  CHECK(plain != NULL);
  size_t comp_len = out_pos, plain_pos = 0;
  in_pos = 0;
  do {
    size_t in_now = min_size(chunk, comp_len - in_pos);
    size_t out_now = min_size(chunk, size - plain_pos);
    inf.next_in = comp + in_pos;
    inf.avail_in = (uInt)in_now;
    inf.next_out = plain + plain_pos;
    inf.avail_out = (uInt)out_now;
    ret = inflate(&inf, Z_NO_FLUSH);
    CHECK(ret == Z_OK || ret == Z_STREAM_END || ret == Z_BUF_ERROR);
    in_pos += in_now - inf.avail_in;
    plain_pos += out_now - inf.avail_out;
    /* Progress is always possible until the end: the data is well formed. */
    CHECK(ret != Z_BUF_ERROR || in_pos < comp_len || plain_pos < size);
  } while (ret != Z_STREAM_END);
  CHECK(inflateEnd(&inf) == Z_OK);
  CHECK(in_pos == comp_len);
  CHECK(plain_pos == size);
  CHECK(memcmp(plain, data, size) == 0);

  free(plain);
  free(comp);
  return 0;
}
