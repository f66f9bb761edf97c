/* checksum: see checksum.h. */
#include "checksum.h"

#include <stdlib.h>
#include <string.h>

typedef struct field {
  uint8_t tag, kind;
  uint16_t len;
  int64_t value;  /* REC_INT */
  uint8_t *bytes; /* REC_BYTES: len bytes (NULL when len is 0) */
} field;

struct rec {
  unsigned n;
  field f[REC_MAX_FIELDS];
};

static uint32_t crc32_ieee(const uint8_t *p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++)
      c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

static field *find(const rec *r, uint8_t tag) {
  for (unsigned i = 0; i < r->n; i++)
    if (r->f[i].tag == tag) return (field *)&r->f[i];
  return NULL;
}

rec *rec_new(void) {
  return calloc(1, sizeof(rec));
}

void rec_free(rec *r) {
  if (!r) return;
  for (unsigned i = 0; i < r->n; i++)
    free(r->f[i].bytes);
  free(r);
}

static int can_add(const rec *r, uint8_t tag) {
  return tag != 0 && r->n < REC_MAX_FIELDS && !find(r, tag);
}

int rec_add_int(rec *r, uint8_t tag, int64_t value) {
  if (!can_add(r, tag)) return -1;
  r->f[r->n++] = (field){.tag = tag, .kind = REC_INT, .len = 8, .value = value};
  return 0;
}

int rec_add_bytes(rec *r, uint8_t tag, const uint8_t *data, size_t len) {
  if (!can_add(r, tag) || len > REC_MAX_BYTES) return -1;
  uint8_t *copy = NULL;
  if (len) {
    if (!(copy = malloc(len))) return -1;
    memcpy(copy, data, len);
  }
  r->f[r->n++] = (field){.tag = tag, .kind = REC_BYTES, .len = (uint16_t)len, .bytes = copy};
  return 0;
}

int rec_remove(rec *r, uint8_t tag) {
  field *f = find(r, tag);
  if (!f) return -1;
  free(f->bytes);
  /* Keep the insertion order: it is the encoding's order. */
  memmove(f, f + 1, (size_t)(&r->f[r->n] - (f + 1)) * sizeof *f);
  r->n--;
  return 0;
}

int rec_get_int(const rec *r, uint8_t tag, int64_t *value) {
  const field *f = find(r, tag);
  if (!f || f->kind != REC_INT) return -1;
  *value = f->value;
  return 0;
}

long rec_get_bytes(const rec *r, uint8_t tag, uint8_t *buf, size_t cap) {
  const field *f = find(r, tag);
  if (!f || f->kind != REC_BYTES || f->len > cap) return -1;
  if (f->len) memcpy(buf, f->bytes, f->len);
  return f->len;
}

size_t rec_count(const rec *r) {
  return r->n;
}

size_t rec_encoded_len(const rec *r) {
  size_t n = REC_HEADER_LEN;
  for (unsigned i = 0; i < r->n; i++)
    n += 4 + (size_t)r->f[i].len;
  return n;
}

/* The check word of a frame of len bytes: CRC-32 of the transport header
 * it protects, the magic then len as 4 bytes. */
static uint32_t frame_check(uint32_t len) {
  uint8_t b[8];
  memcpy(b, REC_MAGIC, 4);
  for (int k = 0; k < 4; k++)
    b[4 + k] = (uint8_t)(len >> (8 * k));
  return crc32_ieee(b, sizeof b);
}

long rec_encode(const rec *r, uint8_t *buf, size_t cap, uint32_t *check) {
  size_t need = rec_encoded_len(r);
  if (cap < need) return -1;
  uint8_t *p = buf;
  memcpy(p, REC_MAGIC, 4);
  p += 4;
  *p++ = (uint8_t)r->n;
  for (unsigned i = 0; i < r->n; i++) {
    const field *f = &r->f[i];
    *p++ = f->tag;
    *p++ = f->kind;
    *p++ = (uint8_t)f->len;
    *p++ = (uint8_t)(f->len >> 8);
    if (f->kind == REC_INT) {
      for (int k = 0; k < 8; k++)
        *p++ = (uint8_t)((uint64_t)f->value >> (8 * k));
    } else if (f->len) {
      memcpy(p, f->bytes, f->len);
      p += f->len;
    }
  }
  if (check) *check = frame_check((uint32_t)need);
  return (long)need;
}

static void drop(field *f, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    free(f[i].bytes);
}

/* Decodes the fields of the frame p[0..len) into out[] (the caller commits
 * them, so a failure leaves r unchanged). */
static int decode(const rec *r, const uint8_t *p, size_t len, field *out) {
  const uint8_t *end = p + len;
  if (len < REC_HEADER_LEN || memcmp(p, REC_MAGIC, 4) != 0) return -1;
  unsigned n = p[4], i;
  if (n > REC_MAX_FIELDS - r->n) return -1;
  p += REC_HEADER_LEN;
  for (i = 0; i < n; i++) {
    if (end - p < 4) goto bad;
    field f = {.tag = p[0], .kind = p[1], .len = (uint16_t)(p[2] | p[3] << 8)};
    p += 4;
    if (f.tag == 0 || f.kind > REC_BYTES || find(r, f.tag)) goto bad;
    for (unsigned j = 0; j < i; j++)
      if (out[j].tag == f.tag) goto bad;
    if (f.kind == REC_INT ? f.len != 8 : f.len > REC_MAX_BYTES) goto bad;
    if (f.len > (size_t)(end - p)) goto bad;
    if (f.kind == REC_INT) {
      uint64_t v = 0;
      for (int k = 0; k < 8; k++)
        v |= (uint64_t)p[k] << (8 * k);
      f.value = (int64_t)v;
    } else if (f.len) {
      if (!(f.bytes = malloc(f.len))) goto bad;
      memcpy(f.bytes, p, f.len);
    }
    out[i] = f;
    p += f.len;
  }
  if (p != end) goto bad;
  return (int)n;
bad:
  drop(out, i);
  return -1;
}

int rec_load(rec *r, const uint8_t *buf, size_t cap, uint32_t frame_len, uint32_t check) {
  /* A header damaged in transit is refused before the frame is read. */
  if (check != frame_check(frame_len)) return -1;
  /* Then what was received must at least start like a record. */
  if (cap < REC_HEADER_LEN || memcmp(buf, REC_MAGIC, 4) != 0) return -1;
#ifdef SEARCH_NO_BUGS
  if (frame_len > cap) return -1;
#else
  /* (bug) the check word vouches for the header's length, and that length
   * was taken to be the frame's: a frame cut short in transit, its header
   * intact (frame_len > cap), is read past the end of buf. */
  (void)cap;
#endif
  field staged[REC_MAX_FIELDS];
  int n = decode(r, buf, frame_len, staged);
  if (n < 0) return -1;
  memcpy(&r->f[r->n], staged, (size_t)n * sizeof *staged);
  r->n += (unsigned)n;
  return n;
}
