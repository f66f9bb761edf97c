#include "sf_hash.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

uint64_t sf_hash_bytes(const void *p, size_t n, uint64_t seed) {
  return XXH3_64bits_withSeed(p, n, seed);
}

/* Open addressing with linear probing; slot value 0 means empty, so the hash
 * 0 is stored as 1 (a collision we accept). Load factor stays below 1/2. */
struct sf_hashset {
  uint64_t *slots;
  size_t mask;
  size_t count;
  size_t limit;
};

sf_hashset *sf_hashset_new(size_t capacity) {
  if (capacity < 16) capacity = 16;
  size_t n = 32;
  while (n < capacity * 2)
    n *= 2;
  sf_hashset *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->slots = calloc(n, sizeof *s->slots);
  if (!s->slots) {
    free(s);
    return NULL;
  }
  s->mask = n - 1;
  s->limit = capacity;
  return s;
}

void sf_hashset_free(sf_hashset *s) {
  if (!s) return;
  free(s->slots);
  free(s);
}

bool sf_hashset_contains(const sf_hashset *s, uint64_t h) {
  if (!h) h = 1;
  for (size_t i = h & s->mask;; i = (i + 1) & s->mask) {
    if (s->slots[i] == h) return true;
    if (!s->slots[i]) return false;
  }
}

bool sf_hashset_insert(sf_hashset *s, uint64_t h) {
  if (!h) h = 1;
  size_t i = h & s->mask;
  for (; s->slots[i]; i = (i + 1) & s->mask)
    if (s->slots[i] == h) return false;
  if (s->count >= s->limit) {
    sf_hashset_clear(s);
    i = h & s->mask;
  }
  s->slots[i] = h;
  s->count++;
  return true;
}

size_t sf_hashset_size(const sf_hashset *s) {
  return s->count;
}

void sf_hashset_clear(sf_hashset *s) {
  memset(s->slots, 0, (s->mask + 1) * sizeof *s->slots);
  s->count = 0;
}
