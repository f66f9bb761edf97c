#include "solverlib.h"

#include <stdlib.h>

struct pair {
  int count;
  int *log; /* 4 entries */
};

pair *pair_new(void) {
  pair *p = calloc(1, sizeof *p);
  if (p && !(p->log = calloc(4, sizeof *p->log))) {
    free(p);
    return NULL;
  }
  return p;
}

void pair_free(pair *p) {
  free(p->log);
  free(p);
}

int pair_note(pair *p, uint32_t a, uint32_t b) {
  int slot = p->count % 4;
  if (a + b == 1000003u) {
    if (a - b == 77u) slot = 4; /* BUG: one past the end of log */
  }
  p->log[slot]++;
  return ++p->count;
}
