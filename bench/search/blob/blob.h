/* blob: 2-D rasters of fixed-size cells (grey, RGB and RGBA images, byte
 * matrices), with the region operations image pipelines need: fill, crop,
 * concatenate, blit, integer upscale, and an export to a small TGA-like
 * format whose header holds each dimension in 16 bits.
 *
 * Memory: every blob is owned by its caller and freed with blob_free. No
 * function keeps a pointer to a blob it was handed: a blob made from others
 * (crop, concat, scale) is an independent copy.
 *
 * Layout: row y starts at y * blob_stride(b) bytes; a row holds width cells
 * of the format's size in bytes, with no padding. A cell's value is its bytes
 * read little endian. */
#ifndef BLOB_H
#define BLOB_H

#include <stddef.h>
#include <stdint.h>

typedef struct blob blob_t;

/* Cell formats; the value is the cell size in bytes. */
typedef enum {
  BLOB_GRAY8 = 1,
  BLOB_GRAY16 = 2,
  BLOB_RGB24 = 3,
  BLOB_RGBA32 = 4,
} blob_format;

/* Limits: a width, a height and a row's size in bytes are at most 65535 (the
 * export header keeps 16 bits of each), and a blob holds at most
 * BLOB_MAX_CELLS cells. */
#define BLOB_MAX_DIM       65535u
#define BLOB_MAX_ROW_BYTES 65535u
#define BLOB_MAX_CELLS     (1u << 16)

/* The export header: "BL", width and height (u16 little endian), the format,
 * a zero byte. The rows follow. */
#define BLOB_HEADER_SIZE 8u

/* A new blob of width x height cells of format fmt, all zero. NULL if a
 * dimension is 0 or above BLOB_MAX_DIM, if a row would exceed
 * BLOB_MAX_ROW_BYTES, if width * height is above BLOB_MAX_CELLS, if fmt is
 * not a blob_format, or when out of memory. */
blob_t *blob_new(uint32_t width, uint32_t height, blob_format fmt);

/* Frees b. NULL is a no-op. */
void blob_free(blob_t *b);

/* Dimensions (cells) and bytes per row. */
uint32_t blob_width(const blob_t *b);
uint32_t blob_height(const blob_t *b);
size_t blob_stride(const blob_t *b);

/* Sets every cell of the rectangle (x, y, w, h), clipped to b, to value
 * (truncated to the cell size). Returns the number of cells set (0 when the
 * rectangle lies outside b). Any arguments are accepted. */
uint64_t blob_fill(blob_t *b, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint32_t value);

/* The value of cell (x, y), or -1 when (x, y) lies outside b. */
int64_t blob_get(const blob_t *b, uint32_t x, uint32_t y);

/* A new blob holding the rectangle (x, y, w, h) of b. NULL if w or h is 0,
 * if the rectangle does not lie entirely inside b, or when out of memory. */
blob_t *blob_crop(const blob_t *b, uint32_t x, uint32_t y, uint32_t w, uint32_t h);

/* A new blob with left's cells followed, on each row, by right's. NULL if
 * the heights or the formats differ, if the result would exceed the limits,
 * or when out of memory. left and right may be the same blob. */
blob_t *blob_hconcat(const blob_t *left, const blob_t *right);

/* A new blob with top's rows followed by bottom's. NULL if the widths or the
 * formats differ, if the result would exceed the limits, or when out of
 * memory. top and bottom may be the same blob. */
blob_t *blob_vconcat(const blob_t *top, const blob_t *bottom);

/* Copies src into dst with src's cell (0, 0) at (dx, dy) of dst, clipped to
 * dst. Returns the number of cells copied, or -1 if the formats differ.
 * Precondition: dst and src are different blobs. */
int64_t blob_blit(blob_t *dst, const blob_t *src, int32_t dx, int32_t dy);

/* A new blob, b magnified fx times horizontally and fy times vertically
 * (each cell becomes an fx x fy block). NULL if fx or fy is not in 1..16,
 * if the result would exceed the limits, or when out of memory. */
blob_t *blob_scale(const blob_t *b, uint32_t fx, uint32_t fy);

/* Adler-32 of the cells, row by row. */
uint32_t blob_checksum(const blob_t *b);

/* Writes b in the export format into buf when cap is at least the size it
 * needs (buf may be NULL when cap is 0); writes nothing otherwise. Returns
 * the size needed: BLOB_HEADER_SIZE + width * height * cell size. */
size_t blob_export(const blob_t *b, uint8_t *buf, size_t cap);

#endif
