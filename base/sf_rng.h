/* sf_rng: a small deterministic PRNG (xoshiro256**), seeded by splitmix64.
 * Same seed, same stream: every random choice in seqfuzz goes through it. */
#ifndef SF_RNG_H
#define SF_RNG_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sf_rng {
  uint64_t s[4];
} sf_rng;

static inline void sf_rng_seed(sf_rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) {
    uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    r->s[i] = z ^ (z >> 31);
  }
}

static inline uint64_t sf_rng_next(sf_rng *r) {
  uint64_t *s = r->s;
  uint64_t x = s[1] * 5;
  uint64_t result = ((x << 7) | (x >> 57)) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = (s[3] << 45) | (s[3] >> 19);
  return result;
}

/* Uniform in [0, n); n == 0 returns 0. */
static inline uint64_t sf_rng_below(sf_rng *r, uint64_t n) {
  return n ? sf_rng_next(r) % n : 0;
}

/* Uniform in [0, 1). */
static inline double sf_rng_unit(sf_rng *r) {
  return (double)(sf_rng_next(r) >> 11) * 0x1.0p-53;
}

/* True with probability num/den. */
static inline bool sf_rng_chance(sf_rng *r, uint32_t num, uint32_t den) {
  return sf_rng_below(r, den) < num;
}

#endif
