#include "probelib.h"

#include <stdlib.h>
#include <string.h>

struct tally {
  int count;
  char *name;
};

tally *tally_new(void) {
  return calloc(1, sizeof(tally));
}

void tally_free(tally *t) {
  if (!t) return;
  free(t->name);
  free(t);
}

int tally_add(tally *t, int n) {
  t->count += n;
  return t->count;
}

int tally_take(tally *t) {
  return --t->count; /* the bug: no check for an empty tally */
}

int tally_check(tally *t) {
  if (t->count < 0) abort(); /* a corrupt tally: the library's own assertion */
  return t->count;
}

void tally_set_name(tally *t, const char *name, unsigned len) {
  free(t->name);
  t->name = malloc(len + 1);
  memcpy(t->name, name, len);
  t->name[len] = 0;
}

struct bag {
  int *items;
  unsigned n;
};

bag *bag_new(void) {
  return calloc(1, sizeof(bag));
}

void bag_free(bag *b) {
  if (!b) return;
  free(b->items);
  free(b);
}

int bag_put(bag *b, int x) {
  int *p = realloc(b->items, (b->n + 1) * sizeof *p);
  if (!p) return -1;
  p[b->n++] = x;
  b->items = p;
  return 0;
}

int bag_merge(bag *dst, bag *src) {
  unsigned n = src->n;
  if (!n) return 0;                           /* so the leak needs a source with items */
  int *scratch = malloc(n * sizeof *scratch); /* the bug: never freed */
  memcpy(scratch, src->items, n * sizeof *scratch);
  for (unsigned i = 0; i < n; i++)
    if (bag_put(dst, scratch[i])) return -1;
  return 0;
}
