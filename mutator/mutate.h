/* mutate.h: structure-aware mutation of encoded sequences.
 *
 * The engines hand the mutator bytes (a corpus entry, possibly broken by
 * another mutator or synced from another instance); it decodes them (any bytes
 * decode, see seq.h), changes the sequence, repairs it so that it is valid by
 * the grammar (types, lifetimes, preconditions), and encodes the result.
 * Mutations: extend with a new call whose handle arguments come from values
 * already in the sequence (producing one first when none is alive), insert a
 * call, remove a call with what depended on it, change a primitive argument
 * (boundary values, grammar constants and dictionary strings), swap a handle
 * argument, repeat a call, and splice two sequences (Randoop's composition).
 *
 * Every output decodes to a valid sequence of at most max_calls calls and fits
 * in max_size bytes. Deterministic for a given seed. */
#ifndef SF_MUTATE_H
#define SF_MUTATE_H

#include <stddef.h>
#include <stdint.h>

#include "../grammar/api.h"
#include "../sequence/seq.h"

typedef struct sf_mutator sf_mutator;

typedef struct sf_mutator_options {
  uint32_t max_calls; /* longest sequence produced (default 64) */
} sf_mutator_options;

/* opt may be NULL for defaults. NULL on OOM. */
sf_mutator *sf_mutator_new(const sf_api *api, const sf_mutator_options *opt);
void sf_mutator_free(sf_mutator *m);

/* Mutate data (any bytes) into out. Returns the output size, 0 if no valid
 * output fits in max_size (max_size < SF_HEADER_SIZE). */
size_t sf_mutator_mutate(sf_mutator *m, const uint8_t *data, size_t size, uint8_t *out,
                         size_t max_size, uint64_t seed);

/* Combine two inputs: a prefix of one followed by calls of the other,
 * renamed onto the first's values where types allow. */
size_t sf_mutator_crossover(sf_mutator *m, const uint8_t *d1, size_t s1, const uint8_t *d2,
                            size_t s2, uint8_t *out, size_t max_size, uint64_t seed);

/* Build a random valid sequence of about ncalls calls into s. -1 on OOM. */
int sf_mutator_generate(sf_mutator *m, sf_seq *s, uint32_t ncalls, uint64_t seed);

#endif
