/* schedule.h: which mutation to make next (private to mutator/).
 *
 * A fixed mix suits no library for long: while a grammar's API is being
 * explored, new calls find new code; for a parser behind the API, changing
 * its document does. The schedule learns which mutations pay: an output is
 * remembered (hash -> mutation) for a while, and when the engine hands it
 * back as a new corpus entry, that mutation is credited, by how much the
 * entry says (sf_sched_new_input: libFuzzer also keeps inputs that only
 * change hit counts, and smaller copies of entries: credited like new code,
 * removing calls looked best, and documents were left unexplored; and where
 * the grammar marks coverage states, hit counts earn nothing:
 * sf_sched_ignore_counts). Choice
 * follows the success rates cubed (the best-paying mutation takes most of
 * it), with the base mix as their prior and as a floor so that no mutation
 * starves, and counts decay so that the mix
 * follows the campaign (in the spirit of MOpt's operator scheduling). */
#ifndef SF_SCHEDULE_H
#define SF_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/sf_rng.h"
#include "mutate.h"

#define SF_SCHED_RECENT  4096 /* outputs remembered, direct-mapped by hash */
#define SF_SCHED_SITES   1024 /* argument sites credited, direct-mapped */
#define SF_SCHED_FUNCS   1024 /* functions credited for insertions, direct-mapped */
#define SF_SCHED_NO_SITE 0xffff
#define SF_SCHED_NO_FUNC 0xffff

typedef struct sf_schedule {
  double tries[SF_MUT_COUNT], finds[SF_MUT_COUNT];   /* decayed counts */
  uint64_t tried[SF_MUT_COUNT], found[SF_MUT_COUNT]; /* totals (found: new code), statistics */
  struct {
    uint64_t hash;
    uint16_t site; /* the argument changed, or SF_SCHED_NO_SITE */
    uint16_t func; /* the function inserted (index % SF_SCHED_FUNCS), or SF_SCHED_NO_FUNC */
    uint8_t op;
    bool shrank;
  } recent[SF_SCHED_RECENT];
  /* Per argument site (a function's string or buffer parameter): which
   * documents pay to change. A pattern compiled once and matched many times
   * sits beside longer subjects; changing the pattern finds far more. */
  double site_tries[SF_SCHED_SITES], site_finds[SF_SCHED_SITES];
  double all_site_tries, all_site_finds;
  /* Per function: which calls pay to insert. A container's puts and
   * deletes keep finding; its counters and getters stop after their first
   * calls. */
  double func_tries[SF_SCHED_FUNCS], func_finds[SF_SCHED_FUNCS];
  double all_func_tries, all_func_finds;
  double weight[SF_MUT_COUNT]; /* current choice weights, recomputed now and then */
  double total;
  uint32_t since_update;
  bool adaptive;
  double counts_credit; /* of an entry that only changed hit counts */
} sf_schedule;

/* adaptive false: keep the base mix (credits are still counted). */
void sf_sched_init(sf_schedule *s, bool adaptive);
/* From now on an entry that only changed hit counts earns nothing (a tenth
 * of a credit otherwise). For a grammar that marks coverage states
 * (docs/grammar.md §4): a new value of the state it names is new code of
 * its own, and what is left to hit counts is mostly calls repeated, refused
 * ones among them. Crediting those, repeats made 39% of the outputs of a
 * session run that never found its bug (bench/README.md). */
void sf_sched_ignore_counts(sf_schedule *s);
/* The next mutation to make for an input of ncalls calls; has_document: it
 * has a string or buffer of 16 bytes or more; can_grow: it is shorter than
 * the length limit (else growing it would only be cut back); crossover: the
 * engine asked for a crossover, which is then one of the choices (the
 * others apply to its first input). */
sf_mutation sf_sched_pick(sf_schedule *s, sf_rng *r, uint32_t ncalls, bool has_document,
                          bool can_grow, bool crossover);
/* An output of mutation op was emitted (hash: of its bytes); shrank: it is
 * smaller than the input it was made from; site: the argument site it
 * changed (sf_sched_site) or SF_SCHED_NO_SITE; func: the function whose
 * call it inserted or SF_SCHED_NO_FUNC. */
void sf_sched_emitted(sf_schedule *s, uint64_t hash, sf_mutation op, bool shrank, uint16_t site,
                      uint32_t func);
/* Is hash one of the outputs remembered and not yet credited? */
bool sf_sched_is_output(const sf_schedule *s, uint64_t hash);
/* The site of parameter param of function func. */
uint16_t sf_sched_site(uint32_t func, uint32_t param);
/* How well changing a site has paid: its decayed rate of new inputs per
 * try, pulled toward the mean rate of all sites while it has few tries. */
double sf_sched_site_score(const sf_schedule *s, uint16_t site);
/* The same for inserting a call of function func: its decayed rate of new
 * inputs per insertion, pulled toward the mean while it has few. */
double sf_sched_func_score(const sf_schedule *s, uint32_t func);
/* The engine kept an input new to the mutator; new_code: it reached an edge
 * no earlier input reached (true where that is unknown). Credits the
 * mutation that made it: fully for new code, a tenth for an input that only
 * changed hit counts (nothing after sf_sched_ignore_counts), nothing for a
 * smaller one without new code (libFuzzer keeps a smaller input with the
 * same features in place of a larger one). */
void sf_sched_new_input(sf_schedule *s, uint64_t hash, bool new_code);

#endif
