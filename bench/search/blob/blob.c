/* blob: 2-D rasters of fixed-size cells (see blob.h). */
#include "blob.h"

#include <stdlib.h>
#include <string.h>

/* The sizes are 16 bits, as the export header keeps them. */
struct blob {
  uint16_t width, height;
  uint16_t stride; /* bytes per row: width * cell */
  uint8_t cell;    /* bytes per cell: the blob_format's value */
  uint8_t *data;   /* height rows of stride bytes */
};

/* Whether a width x height blob of cell-byte cells is within the limits. */
static int dims_ok(uint64_t width, uint64_t height, uint64_t cell) {
  return width >= 1 && height >= 1 && width <= BLOB_MAX_DIM && height <= BLOB_MAX_DIM &&
         width * cell <= BLOB_MAX_ROW_BYTES && width * height <= BLOB_MAX_CELLS;
}

/* The one allocator; callers have checked the limits. */
static blob_t *blob_alloc(uint32_t width, uint32_t height, uint8_t cell) {
  blob_t *b = malloc(sizeof *b);
  if (!b) return NULL;
  b->width = (uint16_t)width;
  b->height = (uint16_t)height;
  b->cell = cell;
  b->stride = (uint16_t)(width * cell);
  b->data = calloc((size_t)b->stride * height, 1);
  if (!b->data) {
    free(b);
    return NULL;
  }
  return b;
}

static uint8_t *row(const blob_t *b, uint32_t y) {
  return b->data + (size_t)y * b->stride;
}

blob_t *blob_new(uint32_t width, uint32_t height, blob_format fmt) {
  if (fmt != BLOB_GRAY8 && fmt != BLOB_GRAY16 && fmt != BLOB_RGB24 && fmt != BLOB_RGBA32)
    return NULL;
  if (!dims_ok(width, height, (uint32_t)fmt)) return NULL;
  return blob_alloc(width, height, (uint8_t)fmt);
}

void blob_free(blob_t *b) {
  if (!b) return;
  free(b->data);
  free(b);
}

uint32_t blob_width(const blob_t *b) {
  return b->width;
}
uint32_t blob_height(const blob_t *b) {
  return b->height;
}
size_t blob_stride(const blob_t *b) {
  return b->stride;
}

static void put_cell(uint8_t *p, uint8_t cell, uint32_t value) {
  for (uint8_t i = 0; i < cell; i++)
    p[i] = (uint8_t)(value >> (8 * i));
}

uint64_t blob_fill(blob_t *b, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint32_t value) {
  /* 64-bit ends: x + w may exceed 32 bits. */
  uint64_t x1 = (uint64_t)x + w, y1 = (uint64_t)y + h;
  if (x1 > b->width) x1 = b->width;
  if (y1 > b->height) y1 = b->height;
  if (x >= x1 || y >= y1) return 0;
  /* One row cell by cell, the others copied from it. */
  uint8_t *first = row(b, y) + (size_t)x * b->cell;
  size_t n = (size_t)(x1 - x) * b->cell;
  for (size_t i = 0; i < n; i += b->cell)
    put_cell(first + i, b->cell, value);
  for (uint32_t yy = y + 1; yy < y1; yy++)
    memcpy(row(b, yy) + (size_t)x * b->cell, first, n);
  return (x1 - x) * (y1 - y);
}

int64_t blob_get(const blob_t *b, uint32_t x, uint32_t y) {
  if (x >= b->width || y >= b->height) return -1;
  const uint8_t *p = row(b, y) + (size_t)x * b->cell;
  uint32_t v = 0;
  for (uint8_t i = 0; i < b->cell; i++)
    v |= (uint32_t)p[i] << (8 * i);
  return v;
}

blob_t *blob_crop(const blob_t *b, uint32_t x, uint32_t y, uint32_t w, uint32_t h) {
  if (!w || !h || (uint64_t)x + w > b->width || (uint64_t)y + h > b->height) return NULL;
  blob_t *out = blob_alloc(w, h, b->cell);
  if (!out) return NULL;
  for (uint32_t yy = 0; yy < h; yy++)
    memcpy(row(out, yy), row(b, y + yy) + (size_t)x * b->cell, (size_t)w * b->cell);
  return out;
}

blob_t *blob_hconcat(const blob_t *left, const blob_t *right) {
  if (left->height != right->height || left->cell != right->cell) return NULL;
  uint32_t w = (uint32_t)left->width + right->width;
#ifdef SEARCH_NO_BUGS
  if (!dims_ok(w, left->height, left->cell)) return NULL;
#else
  /* The width and the cell budget are checked, not the row's bytes: with
   * wide cells a row can exceed the 16-bit stride while the width fits. */
  if (w > BLOB_MAX_DIM || (uint64_t)w * left->height > BLOB_MAX_CELLS) return NULL;
#endif
  blob_t *out = blob_alloc(w, left->height, left->cell);
  if (!out) return NULL;
  for (uint32_t y = 0; y < out->height; y++) {
    memcpy(row(out, y), row(left, y), left->stride);
    memcpy(row(out, y) + left->stride, row(right, y), right->stride);
  }
  return out;
}

blob_t *blob_vconcat(const blob_t *top, const blob_t *bottom) {
  if (top->width != bottom->width || top->cell != bottom->cell) return NULL;
  uint32_t h = (uint32_t)top->height + bottom->height;
  if (!dims_ok(top->width, h, top->cell)) return NULL;
  blob_t *out = blob_alloc(top->width, h, top->cell);
  if (!out) return NULL;
  /* Equal widths and cells: equal strides, so the rows copy as two blocks. */
  size_t tbytes = (size_t)top->stride * top->height;
  memcpy(out->data, top->data, tbytes);
  memcpy(out->data + tbytes, bottom->data, (size_t)bottom->stride * bottom->height);
  return out;
}

int64_t blob_blit(blob_t *dst, const blob_t *src, int32_t dx, int32_t dy) {
  if (dst->cell != src->cell) return -1;
  /* The part of src that lands inside dst, in src coordinates. */
  int64_t x0 = dx < 0 ? -(int64_t)dx : 0, y0 = dy < 0 ? -(int64_t)dy : 0;
  int64_t x1 = src->width, y1 = src->height;
  if ((int64_t)dx + x1 > dst->width) x1 = (int64_t)dst->width - dx;
  if ((int64_t)dy + y1 > dst->height) y1 = (int64_t)dst->height - dy;
  if (x0 >= x1 || y0 >= y1) return 0;
  size_t n = (size_t)(x1 - x0) * src->cell;
  for (int64_t y = y0; y < y1; y++)
    memcpy(row(dst, (uint32_t)(y + dy)) + (size_t)(x0 + dx) * dst->cell,
           row(src, (uint32_t)y) + (size_t)x0 * src->cell, n);
  return (x1 - x0) * (y1 - y0);
}

blob_t *blob_scale(const blob_t *b, uint32_t fx, uint32_t fy) {
  if (fx < 1 || fx > 16 || fy < 1 || fy > 16) return NULL;
  uint32_t w = b->width * fx, h = b->height * fy;
  if (!dims_ok(w, h, b->cell)) return NULL;
  blob_t *out = blob_alloc(w, h, b->cell);
  if (!out) return NULL;
  /* Each source row is magnified once, then copied to the fy - 1 below. */
  for (uint32_t y = 0; y < h; y++) {
    uint8_t *d = row(out, y);
    if (y % fy) {
      memcpy(d, row(out, y - 1), out->stride);
      continue;
    }
    const uint8_t *s = row(b, y / fy);
    for (uint32_t x = 0; x < w; x++)
      memcpy(d + (size_t)x * b->cell, s + (size_t)(x / fx) * b->cell, b->cell);
  }
  return out;
}

uint32_t blob_checksum(const blob_t *b) {
  uint32_t s1 = 1, s2 = 0;
  size_t n = (size_t)b->width * b->cell;
  for (uint32_t y = 0; y < b->height; y++) {
    const uint8_t *p = row(b, y);
    /* zlib's bound: 5552 bytes before s2 could overflow 32 bits. */
    for (size_t i = 0; i < n;) {
      size_t end = n - i > 5552 ? i + 5552 : n;
      for (; i < end; i++)
        s1 += p[i], s2 += s1;
      s1 %= 65521, s2 %= 65521;
    }
  }
  return s2 << 16 | s1;
}

size_t blob_export(const blob_t *b, uint8_t *buf, size_t cap) {
  size_t rbytes = (size_t)b->width * b->cell;
  size_t need = BLOB_HEADER_SIZE + rbytes * b->height;
  if (cap < need) return need;
  buf[0] = 'B', buf[1] = 'L';
  buf[2] = (uint8_t)b->width, buf[3] = (uint8_t)(b->width >> 8);
  buf[4] = (uint8_t)b->height, buf[5] = (uint8_t)(b->height >> 8);
  buf[6] = b->cell, buf[7] = 0;
  for (uint32_t y = 0; y < b->height; y++)
    memcpy(buf + BLOB_HEADER_SIZE + (size_t)y * rbytes, row(b, y), rbytes);
  return need;
}
