/* schedule.h: which mutation to make next (private to mutator/).
 *
 * A fixed mix suits no library for long: while a grammar's API is being
 * explored, new calls find new code; for a parser behind the API, changing
 * its document does. The schedule learns which mutations pay: an output is
 * remembered (hash -> mutation) for a while, and when the engine hands it
 * back as a new corpus entry, that mutation is credited, by how much the
 * entry says (sf_sched_new_input: libFuzzer also keeps inputs that only
 * change hit counts, and smaller copies of entries: credited like new code,
 * removing calls looked best, and documents were left unexplored). Choice
 * follows the success rates, with the base mix as their prior and as a
 * floor so that no mutation starves, and counts decay so that the mix
 * follows the campaign (in the spirit of MOpt's operator scheduling). */
#ifndef SF_SCHEDULE_H
#define SF_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/sf_rng.h"
#include "mutate.h"

#define SF_SCHED_RECENT 4096 /* outputs remembered, direct-mapped by hash */

typedef struct sf_schedule {
  double tries[SF_MUT_COUNT], finds[SF_MUT_COUNT];   /* decayed counts */
  uint64_t tried[SF_MUT_COUNT], found[SF_MUT_COUNT]; /* totals (found: new code), statistics */
  struct {
    uint64_t hash;
    uint8_t op;
    bool shrank;
  } recent[SF_SCHED_RECENT];
  double weight[SF_MUT_COUNT]; /* current choice weights, recomputed now and then */
  double total;
  uint32_t since_update;
  bool adaptive;
} sf_schedule;

/* adaptive false: keep the base mix (credits are still counted). */
void sf_sched_init(sf_schedule *s, bool adaptive);
/* The next mutation to make for an input of ncalls calls; has_document: it
 * has a string or buffer of 16 bytes or more; can_grow: it is shorter than
 * the length limit (else growing it would only be cut back); crossover: the
 * engine asked for a crossover, which is then one of the choices (the
 * others apply to its first input). */
sf_mutation sf_sched_pick(sf_schedule *s, sf_rng *r, uint32_t ncalls, bool has_document,
                          bool can_grow, bool crossover);
/* An output of mutation op was emitted (hash: of its bytes); shrank: it is
 * smaller than the input it was made from. */
void sf_sched_emitted(sf_schedule *s, uint64_t hash, sf_mutation op, bool shrank);
/* The engine kept an input new to the mutator; new_code: it reached an edge
 * no earlier input reached (true where that is unknown). Credits the
 * mutation that made it: fully for new code, a tenth for an input that only
 * changed hit counts, nothing for a smaller one without new code (libFuzzer
 * keeps a smaller input with the same features in place of a larger one). */
void sf_sched_new_input(sf_schedule *s, uint64_t hash, bool new_code);

#endif
