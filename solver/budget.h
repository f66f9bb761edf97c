/* budget.h: when the engines' solver stage may run. Both engines (the
 * libFuzzer entry points and the AFL++ mutator) ask before each mutation:
 * the solver gets at most `percent` of the time since the start, four times
 * that while no new corpus entry came for 10 s (coverage stalls), and after
 * a step that found no frontier to try it rests for 4096 mutations. The
 * solver runs in a server process (solver/remote.h) and its CPU time counts,
 * wherever it was spent: its attempts fork, and forking the engine's own
 * process would make the engine's next runs slow (copy-on-write faults)
 * where no clock of the solver sees it. */
#ifndef SF_SOLVER_BUDGET_H
#define SF_SOLVER_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/sf_clock.h"

typedef struct sf_solver_budget {
  double start, spent, last_new; /* seconds (monotonic clock) */
  long percent;
  uint64_t mutations, idle_until;
} sf_solver_budget;

static inline void sf_solver_budget_init(sf_solver_budget *b, long percent) {
  b->start = b->last_new = sf_seconds_now();
  b->spent = 0;
  b->percent = percent;
  b->mutations = b->idle_until = 0;
}

/* A new corpus entry arrived (coverage grows). */
static inline void sf_solver_budget_new_input(sf_solver_budget *b) {
  b->last_new = sf_seconds_now();
}

/* Counts a mutation; true (and *t0 set) when a solver step may run now. */
static inline bool sf_solver_budget_due(sf_solver_budget *b, double *t0) {
  if (++b->mutations < b->idle_until) return false;
  *t0 = sf_seconds_now();
  double share = (double)b->percent / 100.0;
  if (*t0 - b->last_new > 10) share *= 4;
  return b->spent <= share * (*t0 - b->start);
}

/* A step that began at t0 ended; attempted: it tried a frontier. cpu: the
 * solver's CPU time since the last step (the server's, learning included),
 * charged when it is more than the time waited. */
static inline void sf_solver_budget_spent(sf_solver_budget *b, double t0, double cpu,
                                          bool attempted) {
  double waited = sf_seconds_now() - t0;
  b->spent += cpu > waited ? cpu : waited;
  if (!attempted) b->idle_until = b->mutations + 4096;
}

/* Share of the time spent so far, in percent. */
static inline double sf_solver_budget_share(const sf_solver_budget *b) {
  return 100.0 * b->spent / (sf_seconds_now() - b->start + 1e-9);
}

#endif
