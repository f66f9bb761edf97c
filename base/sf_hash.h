/* sf_hash: hashing (xxHash's XXH3) and a bounded set of 64-bit hashes.
 *
 * The set answers "was this hash seen before?" in O(1). It never grows past
 * the capacity given at creation: when full it forgets everything and starts
 * again (a cheap, bounded-memory approximation that only costs a few repeats). */
#ifndef SF_HASH_H
#define SF_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint64_t sf_hash_bytes(const void *p, size_t n, uint64_t seed);
static inline uint64_t sf_hash_mix(uint64_t h, uint64_t v) {
  /* splitmix64 finalizer over h ^ v: cheap incremental combining. */
  uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

typedef struct sf_hashset sf_hashset;

/* capacity: most hashes kept before the set is cleared. NULL on OOM. */
sf_hashset *sf_hashset_new(size_t capacity);
void sf_hashset_free(sf_hashset *s);
/* Insert h. Returns true if h was new, false if it was already present. */
bool sf_hashset_insert(sf_hashset *s, uint64_t h);
bool sf_hashset_contains(const sf_hashset *s, uint64_t h);
size_t sf_hashset_size(const sf_hashset *s);
void sf_hashset_clear(sf_hashset *s);

#endif
