#include "sb.h"

#include <stdlib.h>
#include <string.h>

struct sb {
  char *data; /* cap + 1 bytes: the contents and a NUL */
  size_t len, cap;
};

sb_t *sb_new(size_t cap) {
  if (cap < 1 || cap > SB_MAX_CAPACITY) return NULL;
  sb_t *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->data = calloc(cap + 1, 1);
  if (!b->data) {
    free(b);
    return NULL;
  }
  b->cap = cap;
  return b;
}

void sb_free(sb_t *b) {
  if (!b) return;
  free(b->data);
  free(b);
}

int sb_append(sb_t *b, const char *data, size_t len) {
  if (len > b->cap - b->len) return -1;
  memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = 0;
  return 0;
}

void sb_shrink(sb_t *b) {
  if (b->len == 0) return;
  char *d = realloc(b->data, b->len); /* BUG: no room for the NUL */
  if (!d) return;
  b->data = d;
  b->cap = b->len;
}

void sb_clear(sb_t *b) {
  b->len = 0;
  b->data[0] = 0;
}

size_t sb_len(const sb_t *b) {
  return b->len;
}

const char *sb_str(const sb_t *b) {
  return b->data;
}
