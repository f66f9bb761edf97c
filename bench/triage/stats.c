#include "stats.h"

#include <limits.h>
#include <stdlib.h>

struct stats {
  int scale;
  int n;
  int min, max;
};

stats *st_new(int scale) {
  stats *s = calloc(1, sizeof *s);
  if (s) s->scale = scale;
  return s;
}

void st_free(stats *s) {
  free(s);
}

void st_push(stats *s, int x) {
  if (s->n == 0 || x < s->min) s->min = x;
  if (s->n == 0 || x > s->max) s->max = x;
  s->n++;
}

int st_push_scaled(stats *s, int x) {
  int v = x * s->scale; /* BUG (planted): overflows before the range check */
  if ((long)x * s->scale != v) return -1;
  st_push(s, v);
  return 0;
}

int st_count(const stats *s) {
  return s->n;
}

long st_spread(const stats *s) {
  if (s->n == 0) return 0;
  return s->max - s->min; /* BUG (planted): int subtraction, (long)s->max - s->min intended */
}
