#include "magiclib.h"

#include <stdlib.h>
#include <string.h>

struct lock {
  int open;
  unsigned code; /* the dial's combination */
  int *slots; /* BUG: 4 slots, but lock_read accepts indexes up to 7 */
};

lock *lock_new(void) {
  lock *l = calloc(1, sizeof *l);
  if (l && !(l->slots = calloc(4, sizeof *l->slots))) {
    free(l);
    return NULL;
  }
  if (l) l->code = 0x5EED1234u;
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

int lock_say(lock *l, const char *word) {
  if (strcmp(word, "open sesame, please") == 0) l->open = 1;
  return l->open;
}

int lock_badge(lock *l, const unsigned char *badge, unsigned long len) {
  if (len >= 10 && memcmp(badge + 2,
                          "\x7f"
                          "BADGE\x01\x02",
                          8) == 0)
    l->open = 1;
  return l->open;
}

void lock_set(lock *l, unsigned seed) {
  unsigned h = seed * 2654435761u;
  l->code = h ^ (h >> 15) ^ 0x9E37u;
}

int lock_dial(lock *l, unsigned n) {
  if (n == l->code) l->open = 1;
  return l->open;
}

int lock_read(lock *l, unsigned idx) {
  return l->open ? l->slots[idx] : -1;
}
