/* mutate.h: structure-aware mutation of encoded sequences.
 *
 * The engines hand the mutator bytes (a corpus entry, possibly broken by
 * another mutator or synced from another instance); it decodes them (any bytes
 * decode, see seq.h), changes the sequence, repairs it so that it is valid by
 * the grammar (types, lifetimes, preconditions), and encodes the result.
 * Mutations: extend with a new call whose handle arguments come from values
 * already in the sequence (producing one first when none is alive), or with a
 * burst of calls of one function on the same handles (distinct keys, or the
 * keys earlier calls used, in turn), insert a call (now and then right
 * before a call the run refused, sf_run_result.refused), remove a call with
 * what depended on it, change a primitive argument (boundary values, grammar
 * constants and dictionary strings), swap a handle argument, repeat a call,
 * and splice two sequences (Randoop's composition).
 *
 * Every output decodes to a valid sequence of at most max_calls calls and fits
 * in max_size bytes. Deterministic for a given seed. */
#ifndef SF_MUTATE_H
#define SF_MUTATE_H

#include <stddef.h>
#include <stdint.h>

#include "../grammar/api.h"
#include "../harness/feedback.h"
#include "../sequence/seq.h"

typedef struct sf_mutator sf_mutator;

/* The mutations (SF_MUT_MIX: a mix of all of them, adapted as fuzzing goes
 * on to the ones whose outputs became new inputs, see schedule.c). */
typedef enum sf_mutation {
  SF_MUT_MIX = 0,
  SF_MUT_EXTEND,    /* append a call (sometimes a burst of one function) */
  SF_MUT_INSERT,    /* insert a call (before a refused one, or after one of its function) */
  SF_MUT_REMOVE,    /* remove a call and what depended on it */
  SF_MUT_CHANGE,    /* change one argument (primitive, bytes or handle) */
  SF_MUT_DOCUMENT,  /* change the longest string or buffer (a parser's document) */
  SF_MUT_REPEAT,    /* repeat an existing call at the end */
  SF_MUT_SPLICE,    /* prefix of the input + calls of a pool entry */
  SF_MUT_CROSSOVER, /* the engine's crossover (sf_mutator_crossover) */
  SF_MUT_COUNT
} sf_mutation;

#define SF_LEN_CAP_START 8 /* length control's first cap, in calls */

typedef struct sf_mutator_options {
  uint32_t max_calls; /* longest sequence produced (default 64) */
  /* Length control, as libFuzzer's -len_control does for bytes: outputs
   * start at most SF_LEN_CAP_START calls long (or as long as the longest
   * input met), and the cap grows by log2 of itself whenever len_control
   * times that log of outputs brought no corpus entry that reached new
   * code (new edges, not only new hit counts). A short sequence
   * runs faster, and most bugs need few calls; a long one comes when short
   * ones stop finding. 0: max_calls from the start. */
  uint32_t len_control;
  /* Legality pruning: an input whose run stopped at an illegal call is cut
   * before that call before it is mutated (it is never extended past it). */
  bool no_legality;
  /* Equivalence pruning: (a) a candidate whose canonical form was emitted
   * before is replaced by another; (b) values whose abstract state another
   * input produced first are not chosen as arguments when others exist. */
  bool no_equivalence;
  /* A handle argument takes a fresh value (a producer call, or one spliced
   * in from the pool) only where no earlier value of its type fits: not
   * also one time in eight at the top level, nor half the time where
   * equivalence pruning has ruled out every earlier value. The calls then
   * go deeper into fewer objects. */
  bool no_fresh_values;
  /* Do not use constants the target compared against (run records), nor
   * the values it compared mocks' answers with. */
  bool no_compares;
  /* Keep the base mix of mutations instead of adapting it (schedule.c). */
  bool no_adaptive;
  /* With the adaptive schedule: insert every function alike (by cost
   * alone), not those whose insertions brought new entries more often
   * (weights.c). */
  bool no_func_schedule;
  /* With equivalence pruning: when every try gave a candidate emitted
   * before, emit nothing (return 0) rather than the repeat, so that the
   * engine spends no run on it (AFL++ runs nothing for a 0; libFuzzer asks
   * for another mutation). */
  bool skip_repeats;
  /* The engine counts the grammar's coverage states as features (api.h:
   * sf_api_coverage_state; SEQFUZZ_COVERAGE_STATE): if the API marks any,
   * an entry that only changes hit counts earns the schedule nothing
   * (schedule.h: sf_sched_ignore_counts). */
  bool state_features;
  /* Mark every output `observed` (sf_seq): the runs that will execute them
   * observe (AFL++'s target does, every run), so their replays must too. */
  bool observed_outputs;
  sf_mutation only; /* apply just this mutation (tests, ablations) */
  /* Stateful testing (contracts/contracts.h): learn contracts from runs that
   * record calls (the runner's probes must then record them:
   * sf_feedback_run_calls), and while coverage stalls spend up to this
   * percent of the outputs on calls that break them. 0: off. */
  uint32_t contracts_percent;
  /* AFL++ (no runner): run each new entry once more as an output, asking
   * the target to record calls (sf_mutator_calls_wanted). */
  bool probe_outputs;
} sf_mutator_options;

/* What the mutator did so far (for the statistics lines). */
typedef struct sf_mutator_stats {
  uint64_t mutations;      /* outputs emitted */
  uint64_t candidates;     /* candidates built (>= mutations: duplicates are retried) */
  uint64_t pruned_illegal; /* candidates cut or repaired because a call was illegal */
  uint64_t pruned_equiv;   /* candidates dropped as already emitted */
  uint64_t calls_emitted;  /* total length of the outputs, in calls */
  uint64_t probes;         /* inputs run by the runner to learn their states */
  /* Smaller copies of entries met, not probed (their run's legality taken). */
  uint64_t copies_unprobed;
  uint64_t answer_trials; /* outputs where a mock's answer became what it was compared with */
  uint64_t bytes_trials;  /* outputs where bytes compared became what they were compared with */
  uint64_t arg_trials;    /* outputs where an integer argument became what it was compared with */
  uint64_t option_trials; /* outputs of a new entry with some of its flags turned */
  uint64_t pool_size, states_seen;
  uint64_t contract_outputs;    /* outputs made by the stateful testing stage */
  uint64_t loads, loads_cached; /* inputs interpreted; of them, copies of a decoded one kept */
  uint32_t length_cap;          /* longest output for now (length control) */
  /* Per mutation: outputs, and outputs that came back as new inputs that
   * reached new code (or where the build cannot tell). */
  uint64_t tried[SF_MUT_COUNT], found[SF_MUT_COUNT];
} sf_mutator_stats;

/* opt may be NULL for defaults. NULL on OOM. */
sf_mutator *sf_mutator_new(const sf_api *api, const sf_mutator_options *opt);
void sf_mutator_free(sf_mutator *m);

/* In-process engines (libFuzzer): a function that executes an input and
 * fills its run record, observers included. The mutator calls it once for
 * each input it meets that is neither in the pool nor its own last output:
 * that is how corpus entries enter the pool, at one extra run each. Not
 * for a smaller copy (sf_mutator_note_run): it enters the pool with its
 * run's legality alone.
 * own_output: the input is one of the mutator's recent outputs (not an
 * entry the engine loaded): the new edges it reaches are the campaign's new
 * code, worth crediting to the functions whose calls reach them
 * (sf_exec_count_edges, sf_mutator_note_call_stats). */
typedef void (*sf_mutator_runner)(void *ctx, const uint8_t *data, size_t size, bool own_output,
                                  sf_feedback *fb);
void sf_mutator_set_runner(sf_mutator *m, sf_mutator_runner run, void *ctx);

/* A byte-level mutator to apply to argument bytes now and then: libFuzzer's
 * LLVMFuzzerMutate, whose mutations include values the target recently
 * compared against (its table of recent comparisons). Same contract as
 * LLVMFuzzerMutate: returns the new size, at most max_size; 0 means none. */
typedef size_t (*sf_byte_mutator)(uint8_t *data, size_t size, size_t max_size);
void sf_mutator_set_byte_mutator(sf_mutator *m, sf_byte_mutator fn);

/* The record of the run that just happened (may omit value states): used
 * when that input comes back to be mutated (libFuzzer stacks mutations on
 * its last output). If it is a recent output smaller than its input and
 * its record says it reached no new edge (new_edges 0), its legality is
 * kept: met again, it is a smaller copy of an entry and is not probed. */
void sf_mutator_note_run(sf_mutator *m, const sf_feedback *fb);
/* Is hash a recent output smaller than its input? (For such a run the
 * harness tells in its record whether it reached new edges.) */
bool sf_mutator_is_smaller_output(const sf_mutator *m, uint64_t hash);

/* What the calls of each function cost and found so far (api->nfuncs
 * entries, cumulative: the executor's sf_exec_call_stats; ticks_per_second
 * converts their ticks, 0 if unknown), noted about once a second: a
 * function whose calls cost more than twice the mean call and 5 us or more
 * (a cheaper call is lost in an execution's fixed costs), and reached no
 * new edge for about 45 s while other calls find, is inserted less often,
 * the more so the costlier (down to a sixteenth), its calls are removed
 * first, and an output drops one of them now and then when nothing but a
 * destructor uses what it made. Until then every function is as likely. */
void sf_mutator_note_call_stats(sf_mutator *m, const sf_call_stats *stats, double ticks_per_second);
/* Function fi's weight now: 1, or less for a costly one (statistics). */
double sf_mutator_call_weight(const sf_mutator *m, uint32_t fi);
/* Function fi's share of insertions now against a uniform choice's (1:
 * as any; more: its inserted calls brought new corpus entries more often
 * than others', the adaptive schedule favours it; statistics). */
double sf_mutator_insert_share(const sf_mutator *m, uint32_t fi);
/* Per function (api->nfuncs): do its calls cost enough to be weighed down
 * if they find nothing? Only their finds need telling
 * (sf_exec_count_edges). */
const bool *sf_mutator_costly_calls(const sf_mutator *m);

/* The sequence of the mutator's last output, if hash is that output's
 * sf_feedback_input_hash (saves the harness decoding it); else NULL. Valid
 * until the next call into the mutator. */
const sf_seq *sf_mutator_last_output(const sf_mutator *m, uint64_t hash);
/* Learn what the runner tells of an input now, as when it is first
 * mutated (a probe run if it is new to the pool). */
void sf_mutator_meet(sf_mutator *m, const uint8_t *data, size_t size);
/* Constants the target compared against and its separators (bit c of
 * separators[c / 64]), learnt elsewhere than from a run record: from the
 * solver server, under AFL++ (solver/remote.h, sf_solver_hints). */
void sf_mutator_learn_compared(sf_mutator *m, const uint64_t *vals, uint32_t n,
                               const uint64_t separators[4]);
/* What an integer argument of pool entry `input` (its
 * sf_feedback_input_hash) was compared with, {argument, value}, learnt
 * elsewhere than from its run record (the solver server, under AFL++): kept
 * with the entry (up to SF_FB_MAX_ARG_CMP) and tried as a new entry's
 * pairs are. Nothing if the entry is not in the pool. */
void sf_mutator_learn_arg_cmp(sf_mutator *m, uint64_t input, const uint64_t pair[2]);
/* A new corpus entry with the record of its run (fb may be NULL: unknown). */
void sf_mutator_add_input(sf_mutator *m, const uint8_t *data, size_t size, const sf_feedback *fb);
void sf_mutator_get_stats(const sf_mutator *m, sf_mutator_stats *st);
/* Name of the last mutation applied ("extend", "splice", ...). */
const char *sf_mutator_last_op(const sf_mutator *m);

/* The stateful testing stage's contracts (NULL when off): statistics and
 * the report (contracts/contracts.h). */
struct sf_contracts *sf_mutator_contracts(sf_mutator *m);

/* AFL++: the hash of the input whose next run must record calls (the
 * mutator's last output is a probe of it), else 0: written into the shared
 * record's calls_wanted for the target. */
uint64_t sf_mutator_calls_wanted(const sf_mutator *m);

/* Mutate data (any bytes) into out. Returns the output size; 0 if no valid
 * output fits in max_size (max_size < SF_HEADER_SIZE), or with skip_repeats
 * when only repeats came out. */
size_t sf_mutator_mutate(sf_mutator *m, const uint8_t *data, size_t size, uint8_t *out,
                         size_t max_size, uint64_t seed);

/* Combine two inputs: a prefix of one followed by calls of the other,
 * renamed onto the first's values where types allow. */
size_t sf_mutator_crossover(sf_mutator *m, const uint8_t *d1, size_t s1, const uint8_t *d2,
                            size_t s2, uint8_t *out, size_t max_size, uint64_t seed);

/* Build a random valid sequence of about ncalls calls into s. -1 on OOM. */
int sf_mutator_generate(sf_mutator *m, sf_seq *s, uint32_t ncalls, uint64_t seed);

/* The sequence an input stands for: its decoding; the empty sequence for no
 * bytes; or, for other bytes that are not a seqfuzz input (the "\n" libFuzzer
 * starts an empty corpus with, a file from elsewhere), a sequence generated
 * from their hash, so that every input means something
 * and the harness and the mutator agree on what. -1 on OOM. */
int sf_mutator_interpret(sf_mutator *m, sf_seq *s, const uint8_t *data, size_t size);

#endif
