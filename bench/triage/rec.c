#include "rec.h"

#include <stdlib.h>
#include <string.h>

#define REC_MAX 4096

struct rec {
  uint8_t *data;
  size_t len;
};

rec *rec_new(void) {
  return calloc(1, sizeof(rec));
}

void rec_free(rec *r) {
  free(r->data);
  free(r);
}

int rec_append(rec *r, const uint8_t *data, size_t len) {
  if (len > REC_MAX - r->len) return -1;
  uint8_t *p = realloc(r->data, r->len + len + 1);
  if (!p) return -1;
  memcpy(p + r->len, data, len);
  r->data = p;
  r->len += len;
  return 0;
}

int rec_set(rec *r, const uint8_t *data, size_t len) {
  if (len > REC_MAX) return -1;
  r->len = 0;
  return rec_append(r, data, len);
}

size_t rec_size(const rec *r) {
  return r->len;
}

uint32_t rec_hash(const rec *r) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < r->len; i++)
    h = (h ^ r->data[i]) * 16777619u;
  return h;
}
