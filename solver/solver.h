/* solver.h: flip frontier comparisons by solving for API arguments (Z3).
 *
 * Random values rarely satisfy `if (x * 13 + 5 == K)` inside a library. The
 * solver watches the comparisons the target makes (harness/cmp_trace.h
 * records: site, width, operands, running call) on the inputs it is shown,
 * and keeps, per comparison site, which outcomes were seen (equal / not
 * equal, less / greater, signed and unsigned). A site reached but with an
 * outcome never seen is a frontier. An attempt on a frontier:
 *  1. re-runs the input that reached it (the witness) with each integer
 *     argument and buffer element perturbed, to learn which of them flow
 *     into the comparison's operands (and into the comparisons before it);
 *  2. fits a transfer function per operand from those runs: affine, masks
 *     and shifts, linear combinations of several arguments or buffer bytes;
 *  3. asks Z3 for values giving the missing outcome, within the grammar's
 *     ranges and preconditions, keeping the earlier comparisons on the path
 *     as they were where that stays satisfiable; the query has a timeout;
 *  4. writes the model back into the witness and runs it once to check that
 *     the comparison now goes the other way.
 * The result is a valid sequence (same calls, new argument values), handed
 * to the engine like any mutation; the engine's coverage decides whether it
 * stays (sf_solver_note_input counts those confirmations).
 *
 * The solver does not decide when to run: the caller budgets it
 * (harness/fuzz_target.c spends at most SEQFUZZ_SOLVER_BUDGET percent of
 * the time in it). */
#ifndef SF_SOLVER_H
#define SF_SOLVER_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/sf_buf.h"
#include "../grammar/api.h"
#include "../harness/cmp_trace.h"
#include "../sequence/seq.h"

typedef struct sf_solver sf_solver;

/* Executes s with comparison records (sf_cmp_trace_begin_records, the
 * running call set before each call) and returns them; *rec stays valid
 * until the next run. */
typedef uint32_t (*sf_solver_runner)(void *ctx, const sf_seq *s, const sf_cmp_record **rec);

typedef struct sf_solver_options {
  uint32_t timeout_ms; /* per Z3 query (default 500) */
  uint32_t max_runs;   /* target runs per attempt (default 400) */
  uint32_t max_tries;  /* attempts per site and missing outcome (default 2) */
  uint64_t seed;
  /* Attempts run in a child process (fork), so that a crash or hang of the
   * target during an attempt's runs cannot take the engine down: the input
   * that crashed is then what sf_solver_step returns, for the engine to run
   * and report. in_process skips the fork (tests). */
  bool in_process;
} sf_solver_options;

typedef struct sf_solver_stats {
  uint64_t sites;     /* comparison sites seen */
  uint64_t frontiers; /* sites with a missing outcome not yet given up on */
  uint64_t attempts;
  uint64_t no_influence; /* attempts where no argument reached the operands */
  uint64_t unfit;        /* ... where no transfer function explained the runs */
  uint64_t queries, sat, unsat, timeouts, errors;
  uint64_t flips;     /* solutions whose run took the missing outcome */
  uint64_t confirmed; /* flips the engine kept (new coverage) */
  uint64_t runs;      /* target runs spent */
  uint64_t crashes;   /* attempts whose runs crashed or hung the target */
} sf_solver_stats;

/* opt may be NULL for defaults. NULL on OOM or when Z3 cannot start. */
sf_solver *sf_solver_new(const sf_api *api, const sf_solver_options *opt, sf_solver_runner run,
                         void *ctx);
void sf_solver_free(sf_solver *sv);

/* Learn from a run of s (a corpus entry) and its records. */
void sf_solver_observe(sf_solver *sv, const sf_seq *s, const sf_cmp_record *rec, uint32_t n);

/* Is there a frontier left to try? */
bool sf_solver_has_work(const sf_solver *sv);

/* One attempt on the most promising frontier. 1: out holds an encoded input
 * (appended) that flips it, or that crashed the target during the attempt;
 * 0: no result this time; -1: out of memory. */
int sf_solver_step(sf_solver *sv, sf_buf *out);

/* The engine kept the input with this sf_feedback_input_hash (a new corpus
 * entry): a confirmation if the solver produced it. */
void sf_solver_note_input(sf_solver *sv, uint64_t input_hash);

void sf_solver_get_stats(const sf_solver *sv, sf_solver_stats *st);

#endif
