/* internal.h: the mutator's state and the functions its files share
 * (private to mutator/; the public contract is mutate.h). */
#ifndef SF_MUTATOR_INTERNAL_H
#define SF_MUTATOR_INTERNAL_H

#include "../base/sf_hash.h"
#include "../contracts/contracts.h"
#include "../base/sf_rng.h"
#include "mutate.h"
#include "pool.h"
#include "schedule.h"

#define DANGLING           (UINT64_MAX - 1) /* a value id that repair will treat as gone */
#define MAX_PRODUCER_DEPTH 3
#define SF_STATEFUL_PROBES 256
#define SF_TRIALS          64          /* the trials ring (queued trials of new entries) */
#define OPTION_TRIAL       UINT32_MAX  /* a trial's pair: under other options */
#define BYTES_TRIAL        0x80000000u /* a trial's pair: | k, byte comparison k */
#define ARG_TRIAL          0x40000000u /* a trial's pair: | k, argument pair k */
#define ANSWER_TRIAL       0u          /* a trial's pair: k alone, answer pair k */
#define OPTION_TRIALS      4           /* per new entry that reached new code */
#define SMALLER_OUTPUTS    65536       /* recent outputs smaller than their input, by hash */

struct sf_mutator {
  const sf_api *api;
  sf_mutator_options opt;
  sf_rng rng;
  uint32_t **producers; /* per handle type: functions producing it */
  uint32_t *nproducers;
  sf_seq cur, next; /* scratch sequences */
  sf_seq other;
  sf_life life;
  sf_buf enc;
  uint32_t *cands;
  uint32_t ncap;
  sf_pool *pool;
  sf_hashset *emitted; /* canonical forms emitted (bounded) */
  sf_mutator_stats stats;
  /* Length control (opt.len_control): the longest output for now, at most
   * opt.max_calls, and the output count when a corpus entry last reached
   * new code. */
  uint32_t len_cap;
  uint64_t last_new_at;
  const char *last_op;
  /* Reusable flags: of the input being mutated (by its value ids) and of the
   * sequence being built (by its value ids). */
  uint8_t *cur_reus;
  uint32_t ncur_reus;
  /* cur's mocks' answers and what they were compared with (pool.h). */
  uint64_t cur_answer_cmp[SF_FB_MAX_ANSWER_CMP][2];
  uint32_t ncur_answer_cmp;
  /* cur's unequal byte comparisons (pool.h). */
  sf_bytes_cmp cur_bytes_cmp[SF_FB_MAX_BYTES_CMP];
  uint32_t ncur_bytes_cmp;
  /* cur's integer arguments and what they were compared with (pool.h). */
  uint64_t cur_arg_cmp[SF_FB_MAX_ARG_CMP][2];
  uint32_t ncur_arg_cmp;
  /* Trials of pool entries as soon as they arrive, a ring: each answer
   * pair and each byte comparison once (Redqueen's stage on a new input),
   * and a new entry under other options (pair OPTION_TRIAL). */
  struct {
    uint64_t hash;
    uint32_t pair;
  } trials[SF_TRIALS];
  uint32_t ntrials, next_trial;
  sf_hashset *trials_seen; /* pairs queued once already */
  bool has_flags;          /* some function takes a flags argument */
  bool cur_fails_last;     /* cur's last call failed legally (sf_run_legal) */
  uint64_t cur_refused;    /* calls of cur its run refused (sf_run_result.refused); bits
                            * past a truncated cur are masked off where used */
  uint8_t *reus;
  uint32_t nreus, reuscap;
  uint64_t *maps[2]; /* value maps, kept to avoid allocating per mutation */
  uint32_t mapcap[2];
  sf_buf bytes;  /* scratch for building string and buffer arguments */
  sf_buf linked; /* scratch: the bytes an argument had before a change */
  sf_mutator_runner runner;
  void *runner_ctx;
  sf_byte_mutator byte_mutator;
  bool no_pool;             /* building must not depend on the pool (interpretation) */
  struct sf_loaded *loaded; /* inputs interpreted before, by hash (build.c); NULL: none yet */
  sf_feedback noted;        /* record of the engine's last run */
  /* Recent outputs smaller than their input, direct-mapped by hash, with
   * the legality of their engine run if it reached no new edge (ran): met
   * again as corpus entries, they are smaller copies, not probed. A table
   * apart from the schedule's outputs (schedule.h), which credits only
   * what comes back soon: crediting what came back later too (its table
   * made this large) cost pcre2 1.5 to 2.5% of its edges in three 300-s
   * runs. */
  struct {
    uint64_t hash;
    uint32_t legal_calls;
    bool ran, fails_last;
    uint64_t refused;
  } smaller[SMALLER_OUTPUTS];
  sf_feedback scratch; /* record filled by the runner */
  uint64_t last_out;   /* hash of the last output (m->next) */
  bool last_out_valid;
  /* Constants the target compared against (run records), a ring. */
  uint64_t cmpvals[256];
  uint32_t ncmpvals, cmpnext;
  sf_hashset *cmpseen;
  /* The call whose argument the last name-matched reuse of bytes took, while
   * one call's arguments are made (values.c: reuse_bytes), else UINT32_MAX:
   * a user and a password are taken from the same earlier call. */
  uint32_t reuse_call;
  /* The burst being appended (mutate.c: mut_insert), calls of one function
   * in a row that push a structure through growth and shrinkage: k is the
   * call being made (UINT32_MAX: no burst), first its index in the sequence
   * once made, start the calls before the burst, offset where a walk begins
   * (values.c: burst_bytes). */
  struct {
    uint32_t k, first, start, offset;
    enum { SF_BURST_ANY, SF_BURST_FRESH, SF_BURST_WALK } mode;
  } burst;
  /* Separator bytes the target compared bytes with (run records): lists. */
  uint64_t separators[4];
  uint8_t seplist[64];
  uint32_t nseps;
  /* Values the target compared mocks' answers with (run records), a ring. */
  uint64_t answervals[64];
  uint32_t nanswervals, answernext;
  /* Stateful testing (stateful.c; NULL: off). */
  sf_contracts *contracts;
  sf_seq learn_seq;
  uint64_t last_new; /* outputs made when the last entry reaching new edges came */
  sf_contract_plan plan;
  bool plan_pending; /* the plan's output is to be run: its record tells the outcome */
  uint64_t plan_hash;
  uint32_t plan_call;                  /* the plan's call in its output */
  uint64_t calls_wanted;               /* AFL++: the last output (its hash) is a probe... */
  uint64_t probe_entry;                /* ... of this entry */
  uint64_t probes[SF_STATEFUL_PROBES]; /* AFL++: entries to probe */
  uint32_t nprobes;
  sf_schedule sched;    /* which mutation next (schedule.h) */
  sf_mutation last_mut; /* the mutation that made m->next */
  uint16_t last_site;   /* the argument site it changed (schedule.h) */
  uint32_t last_func;   /* the function whose call it inserted, or SF_SCHED_NO_FUNC */
  /* Functions weighed by what their calls cost and find (weights.c). on:
   * some weight < 1. */
  struct {
    struct sf_func_weight *func; /* per function */
    bool *costly;                /* per function: sf_mutator_costly_calls */
    double found;                /* new edges of the mutator's outputs lately (decayed) */
    bool on;
    bool picks_on;  /* insertions draw by weight (cumulative), not uniformly */
    uint32_t picks; /* since the pick weights were last updated */
  } weights;
};

/* Flag of value vid of the sequence being built. */

/* values.c: primitive values, strings and buffers for arguments. */
void sf_mut_absorb_cmp(sf_mutator *m, const sf_feedback *fb);
uint64_t sf_mut_gen_prim(sf_mutator *m, const sf_param *p);
/* New bytes for a (parameter p of f); args: the call's arguments, those
 * before p set (NULL: unknown). */
int sf_mut_gen_bytes(sf_mutator *m, sf_seq *s, const sf_func *f, const sf_param *p,
                     const sf_arg *args, sf_arg *a);
/* After argument pi of call ci of s took another call's bytes by name
 * (m->reuse_call), its other named string and buffer arguments take that
 * call's too: a login changed to another account's name takes that
 * account's password. -1 on OOM. */
int sf_mut_follow_reuse(sf_mutator *m, sf_seq *s, uint32_t ci, uint32_t pi);
/* Has f a string or buffer parameter that a walk (m->burst) can give the
 * values of earlier calls to? */
bool sf_mut_walkable(const sf_mutator *m, const sf_seq *s, const sf_func *f);
/* Input to state in a script or vtable argument a of s: pair is a mock's
 * answer and a value the target compared it with (feedback.h: answer_cmp);
 * one occurrence of the answer in a's bytes (little endian, at the widths
 * both fit) becomes the value. 1 when done, 0 when the answer does not
 * occur, -1 on OOM. */
int sf_mut_replace_answer(sf_mutator *m, sf_seq *s, sf_arg *a, const uint64_t pair[2]);
/* Input to state for bytes: c is a byte comparison of a run of s
 * (feedback.h: bytes_cmp). One side, found in a string or buffer argument
 * of s (as a part of two bytes or more, or as the whole argument), is
 * replaced there by the other side. 1 when done, 0 when neither side
 * occurs, -1 on OOM. */
int sf_mut_replace_bytes(sf_mutator *m, sf_seq *s, const sf_bytes_cmp *c);
/* Input to state for integer arguments: pair is an argument's value and a
 * value the target compared it with (feedback.h: arg_cmp). One integer
 * argument of s holding pair[0], chosen at random, takes pair[1]. 1 when
 * done, 0 when none holds it or pair[1] is out of its range. */
int sf_mut_replace_int(sf_mutator *m, sf_seq *s, const uint64_t pair[2]);

/* mutate.c: repair, bound and encode s into out (its size; 0: none fits);
 * emit it unless emitted before (false: ask for another); count it. */
size_t sf_mut_finish(sf_mutator *m, sf_seq *s, uint8_t *out, size_t max_size);
bool sf_mut_accept(sf_mutator *m, const uint8_t *out, size_t *n, bool last_try);
void sf_mut_count_output(sf_mutator *m, const uint8_t *out, size_t n, size_t in);

/* stateful.c: the stateful testing stage (contracts/contracts.h). */
void sf_mut_stateful_learn(sf_mutator *m, uint64_t hash, const uint8_t *d, size_t n,
                           const sf_feedback *fb);
void sf_mut_stateful_new_input(sf_mutator *m, uint64_t hash, const sf_feedback *fb);
size_t sf_mut_stateful_stage(sf_mutator *m, uint8_t *out, size_t max_size);
void sf_mut_stateful_note_run(sf_mutator *m, const sf_feedback *fb);

/* build.c: building sequences call by call, with lifetimes and reusable flags. */
void sf_mut_set_reus(sf_mutator *m, uint32_t vid, uint8_t flag);
uint32_t sf_mut_candidates(sf_mutator *m, uint32_t htype);
uint32_t sf_mut_legal_candidates(sf_mutator *m, const sf_func *f, const sf_arg *args, uint32_t i,
                                 uint32_t upto, bool pruned);
uint64_t *sf_mut_make_map(sf_mutator *m, int which, uint32_t n);
int sf_mut_copy_calls(sf_mutator *m, sf_seq *dst, const sf_seq *src, uint32_t from, uint32_t to,
                      uint64_t *map, const uint8_t *src_reus, uint32_t nsrc_reus);
uint32_t sf_mut_choose_value(sf_mutator *m, uint32_t n);
bool sf_mut_append_call(sf_mutator *m, sf_seq *s, uint32_t fi, int depth);
/* The same with the arguments of fixed_mask's parameters given (fixed[i]). */
bool sf_mut_append_call_bound(sf_mutator *m, sf_seq *s, uint32_t fi, int depth, const sf_arg *fixed,
                              uint64_t fixed_mask);
/* A function drawn uniformly (interpretation: the same in every process). */
uint32_t sf_mut_random_func(sf_mutator *m);
/* sf_seq_decode and sf_mutator_interpret of an input whose hash h
 * (sf_feedback_input_hash) the caller has: of inputs met before, a copy
 * (they are kept by their hash). */
sf_decode_status sf_mut_decode(sf_mutator *m, sf_seq *s, const uint8_t *data, size_t size,
                               uint64_t h);
int sf_mut_interpret(sf_mutator *m, sf_seq *s, const uint8_t *data, size_t size, uint64_t h);
void sf_mut_loaded_free(sf_mutator *m);

/* weights.c: functions weighed by what their calls cost and find, and by
 * what inserting them found. */
int sf_mut_weights_init(sf_mutator *m);
void sf_mut_weights_free(sf_mutator *m);
/* A function to insert, drawn by weight (uniformly until weights are known). */
uint32_t sf_mut_weighted_func(sf_mutator *m);
/* A call of s to remove, costly ones (low weight) likelier. s has calls. */
uint32_t sf_mut_costly_call(sf_mutator *m, const sf_seq *s);
/* Has s a call of a function weighed down now? */
bool sf_mut_has_costly_call(const sf_mutator *m, const sf_seq *s);
/* Drop from valid s, with the chance 1 - its weight, one call of a costly
 * function whose values nothing but a destructor uses (and that
 * destructor): an entry keeps such calls through every mutation but
 * removals, and each run pays for them. scratch is overwritten (swapped
 * with s). 1: dropped, 0: not, -1: OOM. */
int sf_mut_shed_costly(sf_mutator *m, sf_seq *s, sf_seq *scratch);
void sf_mut_begin_next(sf_mutator *m);

#endif
