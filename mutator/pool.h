/* pool.h: the component set (Randoop's C): inputs the engine kept, each with
 * what its run told (legal prefix, which values are reusable), and the set of
 * abstract value states seen so far (index pruning: a value whose state was
 * already produced by another input is not reusable). Bounded: when full,
 * the oldest entry is replaced. */
#ifndef SF_POOL_H
#define SF_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../harness/feedback.h"

#define SF_LEGAL_UNKNOWN UINT32_MAX

typedef struct sf_pool_entry {
  uint64_t hash; /* sf_feedback_input_hash of the bytes */
  uint8_t *data;
  size_t size;
  uint32_t legal_calls; /* calls known to run legally, or SF_LEGAL_UNKNOWN */
  bool fails_last;      /* the last of them failed (sf_feedback_fails_last) */
  uint64_t refused;     /* calls its run refused (sf_feedback.refused) */
  bool unobserved;      /* added by its legality alone: its values count as seen */
  uint32_t nvals;       /* entries in reusable[] */
  uint8_t *reusable;    /* per value id: 0 when its state was seen before */
  /* Its mocks' answers and what the target compared them with (feedback.h:
   * answer_cmp), for input-to-state replacement in its scripts. */
  uint32_t nanswer_cmp;
  uint64_t answer_cmp[SF_FB_MAX_ANSWER_CMP][2];
  /* Its run's unequal byte comparisons (feedback.h: bytes_cmp), for
   * input-to-state replacement in its string and buffer arguments. */
  uint32_t nbytes_cmp;
  sf_bytes_cmp *bytes_cmp;
  /* Its integer arguments and what the target compared them with
   * (feedback.h: arg_cmp), for input-to-state replacement. */
  uint32_t narg_cmp;
  uint64_t arg_cmp[SF_FB_MAX_ARG_CMP][2];
  size_t data_cap; /* storage kept when the entry is replaced */
  uint32_t reus_cap;
} sf_pool_entry;

typedef struct sf_pool sf_pool;

/* The calls of e that later calls may follow: its legal calls, less a last
 * call that failed (nothing may be built on a failure). */
static inline uint32_t sf_pool_extendable(const sf_pool_entry *e) {
  return e->legal_calls - (e->fails_last ? 1 : 0);
}

/* capacity: most entries kept. equivalence: compute reusable flags from
 * states (else every value is reusable). NULL on OOM. */
sf_pool *sf_pool_new(size_t capacity, bool equivalence);
void sf_pool_free(sf_pool *p);

/* Add input bytes with the record of their run (fb NULL or for another input:
 * nothing known). Returns the entry (existing one if already present), NULL
 * on OOM. */
const sf_pool_entry *sf_pool_add(sf_pool *p, const uint8_t *data, size_t size,
                                 const sf_feedback *fb);

/* Add input bytes known only by the legality of their run (and the calls
 * it refused), a smaller copy of an entry whose values reached their
 * states first: marked unobserved, its values count as not reusable.
 * Returns the entry (an existing one as it is), NULL on OOM. */
const sf_pool_entry *sf_pool_add_legal(sf_pool *p, const uint8_t *data, size_t size,
                                       uint32_t legal_calls, bool fails_last, uint64_t refused);

/* The entry of the input with this hash (sf_feedback_input_hash), or NULL. */
const sf_pool_entry *sf_pool_find(const sf_pool *p, uint64_t hash);
/* Add an argument pair to entry hash (feedback.h: arg_cmp); its index, or
 * -1 when the entry is not there, has it already or is full. */
int sf_pool_add_arg_cmp(sf_pool *p, uint64_t hash, const uint64_t pair[2]);

/* A pseudo-random entry (r chooses), NULL when empty. */
const sf_pool_entry *sf_pool_pick(const sf_pool *p, uint64_t r);
size_t sf_pool_size(const sf_pool *p);
size_t sf_pool_states_seen(const sf_pool *p);

#endif
