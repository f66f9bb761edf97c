#include "magiclib.h"

#include <stdlib.h>

struct lock {
  int open;
  int *slots; /* BUG: 4 slots, but lock_read accepts indexes up to 7 */
};

lock *lock_new(void) {
  lock *l = calloc(1, sizeof *l);
  if (l && !(l->slots = calloc(4, sizeof *l->slots))) {
    free(l);
    return NULL;
  }
  return l;
}

void lock_free(lock *l) {
  free(l->slots);
  free(l);
}

int lock_try(lock *l, unsigned key) {
  if (key == 0xC0FFEE42u) l->open = 1;
  return l->open;
}

int lock_read(lock *l, unsigned idx) {
  return l->open ? l->slots[idx] : -1;
}
