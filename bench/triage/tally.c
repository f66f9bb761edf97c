#include "tally.h"

#include <stdio.h>
#include <stdlib.h>

#define TL_MAX 16

struct tally {
  int values[TL_MAX];
  int counts[TL_MAX];
  int n;         /* distinct values with an entry */
  int total;     /* sum of counts */
  int low_water; /* lowest total seen */
};

tally *tl_new(void) {
  return calloc(1, sizeof(tally));
}

void tl_free(tally *t) {
  free(t);
}

static int find(const tally *t, int v) {
  for (int i = 0; i < t->n; i++)
    if (t->values[i] == v) return i;
  return -1;
}

int tl_add(tally *t, int v) {
  int i = find(t, v);
  if (i < 0) {
    if (t->n == TL_MAX) return -1;
    i = t->n++;
    t->values[i] = v;
    t->counts[i] = 0;
  }
  t->counts[i]++;
  t->total++;
  return 0;
}

int tl_remove(tally *t, int v) {
  int i = find(t, v);
  if (i < 0 || t->counts[i] == 0) return 1;
  t->counts[i]--;
  t->total--;
  if (t->total < t->low_water) t->low_water = t->total;
  return 0;
}

void tl_clear(tally *t) {
  t->total = 0; /* BUG (planted): the entries keep their counts (t->n = 0 missing) */
}

/* The invariant every getter relies on. */
static void tl_audit(const tally *t) {
  if (t->total < 0 || t->n < 0 || t->n > TL_MAX) {
    fprintf(stderr, "tally: corrupt (total %d, %d entries)\n", t->total, t->n);
    abort();
  }
}

int tl_count(const tally *t) {
  tl_audit(t);
  return t->total;
}

int tl_low_water(const tally *t) {
  return t->low_water;
}
