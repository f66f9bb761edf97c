#include "tagset.h"

#include <stdlib.h>
#include <string.h>

#define TS_MAX 64

struct tagset {
  char *tags[TS_MAX];
  int n;
};

tagset *ts_new(void) {
  return calloc(1, sizeof(tagset));
}

void ts_free(tagset *t) {
  for (int i = 0; i < t->n; i++)
    free(t->tags[i]);
  free(t);
}

static int find(const tagset *t, const char *tag) {
  for (int i = 0; i < t->n; i++)
    if (strcmp(t->tags[i], tag) == 0) return i;
  return -1;
}

int ts_add(tagset *t, const char *tag) {
  if (find(t, tag) >= 0) return 0;
  if (t->n == TS_MAX) return -1;
  if (!(t->tags[t->n] = strdup(tag))) return -1;
  t->n++;
  return 1;
}

int ts_del(tagset *t, const char *tag) {
  int i = find(t, tag);
  if (i < 0) return 0;
  free(t->tags[i]);
  t->tags[i] = t->tags[--t->n];
  return 1;
}

int ts_has(const tagset *t, const char *tag) {
  return find(t, tag) >= 0;
}

int ts_merge(tagset *dst, const tagset *src) {
  int n = src->n, added = 0;
  if (n == 0) return 0;
  /* A snapshot: adding to dst must not move what we walk when dst == src. */
  char **snap = malloc((size_t)n * sizeof *snap);
  if (!snap) return -1;
  memcpy(snap, src->tags, (size_t)n * sizeof *snap);
  for (int i = 0; i < n; i++) {
    int r = ts_add(dst, snap[i]);
    if (r < 0) {
      free(snap);
      return -1;
    }
    added += r;
  }
  return added; /* BUG (planted): snap is not freed */
}

int ts_size(const tagset *t) {
  return t->n;
}
