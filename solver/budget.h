/* budget.h: when the engines' solver stage may run. Both engines (the
 * libFuzzer entry points and the AFL++ mutator) ask before each mutation:
 * the solver gets at most `percent` of the time since the start, four times
 * that while no new corpus entry came for 10 s (coverage stalls), and after
 * a step that found no frontier to try it rests for 4096 mutations. The
 * solver runs in a server process (solver/remote.h) and what is counted is
 * its CPU time, learning included, wherever it was spent. Learning comes
 * first: attempts on frontiers only pay off on inputs the server learnt, and
 * attempts that spent the share would otherwise starve the learning (on a
 * benchmark library 121 of 2,600 entries were learnt, the one frontier
 * that mattered never among them).
 *
 * The share follows the solver's yield: once it has made 8 attempts or
 * spent 10 s of CPU time (learning, on a large corpus, can take all of it
 * before a single attempt), it gets a fifth of it, stall or not, unless
 * it pays: it kept a flip in 16 attempts or more often, or it keeps flips
 * at least as fast per second of its CPU time as the engine found new
 * entries per second in the last 10-20 s (a checksum's library: 2 kept in
 * 33 attempts, while the engine's coverage stalled for half a minute). It
 * never pays without a kept flip: on the bundled real libraries it kept
 * none in any measured run, at 5-6% of the time. In fork mode the counts
 * are the campaign's (harness/campaign.h): each short job would otherwise
 * start at the full share and spend it learning. */
#ifndef SF_SOLVER_BUDGET_H
#define SF_SOLVER_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/sf_clock.h"

typedef struct sf_solver_budget {
  double start, spent, last_new; /* seconds (monotonic clock) */
  double unpaid;                 /* learning asked for since the last answer, estimated */
  double learnt; /* learning since the start: as the answers reported it, then guessed */
  long percent;
  uint64_t mutations, idle_until;
  /* The engine's recent finds (new corpus entries), counted in 10-s
   * windows: the current one, from window_start, and the one before. */
  double window_start;
  uint64_t finds_now, finds_before;
  uint64_t attempts, kept;           /* the solver's yield as last reported */
  uint64_t past_attempts, past_kept; /* earlier processes' (a fork-mode campaign's jobs) */
  double past_spent;                 /* their solver CPU time, seconds */
} sf_solver_budget;

static inline void sf_solver_budget_init(sf_solver_budget *b, long percent) {
  b->start = b->last_new = sf_seconds_now();
  b->spent = b->unpaid = b->learnt = 0;
  b->percent = percent;
  b->mutations = b->idle_until = 0;
  b->window_start = b->start;
  b->finds_now = b->finds_before = 0;
  b->attempts = b->kept = b->past_attempts = b->past_kept = 0;
  b->past_spent = 0;
}

#define SF_SOLVER_FIND_WINDOW 10.0

/* The engine's finds a second lately: over the last one or two windows. */
static inline double sf_solver_budget_engine_rate(const sf_solver_budget *b, double now) {
  double into = now - b->window_start;
  if (into >= 2 * SF_SOLVER_FIND_WINDOW) return 0;
  if (into >= SF_SOLVER_FIND_WINDOW) return (double)b->finds_now / into;
  return (double)(b->finds_now + b->finds_before) / (SF_SOLVER_FIND_WINDOW + into);
}

/* The part of the share the solver gets at time now: 1, or a fifth while
 * it does not pay (above). */
static inline double sf_solver_budget_scale_at(const sf_solver_budget *b, double now) {
  uint64_t attempts = b->attempts + b->past_attempts, kept = b->kept + b->past_kept;
  double spent = b->spent + b->past_spent;
  bool judged = attempts >= 8 || spent >= 10;
  if (!judged || (kept > 0 && kept * 16 >= attempts)) return 1.0;
  if (kept == 0) return 0.2;
  /* Kept flips per second of solver time against the engine's finds per
   * second lately (the solver's own kept flips among them: that errs
   * towards the fifth). */
  double solver_rate = (double)kept / (spent > 0.01 ? spent : 0.01);
  return solver_rate >= sf_solver_budget_engine_rate(b, now) ? 1.0 : 0.2;
}

static inline double sf_solver_budget_scale(const sf_solver_budget *b) {
  return sf_solver_budget_scale_at(b, sf_seconds_now());
}

/* The solver's yield: attempts made and flips the engine kept, by this
 * process (the earlier processes' counts are added). */
static inline void sf_solver_budget_yield(sf_solver_budget *b, uint64_t attempts, uint64_t kept) {
  b->attempts = attempts;
  b->kept = kept;
}

/* What the solvers of the campaign's earlier processes did (fork mode):
 * attempts, flips kept, CPU seconds. */
static inline void sf_solver_budget_past(sf_solver_budget *b, uint64_t attempts, uint64_t kept,
                                         double spent) {
  b->past_attempts = attempts;
  b->past_kept = kept;
  b->past_spent = spent;
}

/* A new corpus entry arrived (coverage grows). */
static inline void sf_solver_budget_new_input(sf_solver_budget *b) {
  double now = b->last_new = sf_seconds_now();
  if (now - b->window_start >= SF_SOLVER_FIND_WINDOW) {
    bool next = now - b->window_start < 2 * SF_SOLVER_FIND_WINDOW;
    b->finds_before = next ? b->finds_now : 0;
    b->finds_now = 0;
    b->window_start = next ? b->window_start + SF_SOLVER_FIND_WINDOW : now;
  }
  b->finds_now++;
}

/* The solver's share of the time so far, in seconds. */
static inline double sf_solver_budget_allowance(const sf_solver_budget *b) {
  double now = sf_seconds_now(), scale = sf_solver_budget_scale_at(b, now);
  double share = scale * (double)b->percent / 100.0;
  /* A stall is the solver's chance, unless it has shown it does not pay:
   * then four times its fifth would be most of what it had (on the bundled
   * libraries, whose corpora stall for minutes, 4% of a long run for no
   * flip). */
  if (now - b->last_new > 10 && scale == 1.0) share *= 4;
  return share * (now - b->start);
}

/* Counts a mutation; true when a solver step may start now. (The engines'
 * stage asks only while no step is pending: idleness counts from an answer.) */
static inline bool sf_solver_budget_due(sf_solver_budget *b) {
  if (++b->mutations < b->idle_until) return false;
  return b->spent + b->unpaid <= sf_solver_budget_allowance(b);
}

/* True when the budget can pay `cost` seconds more (a server's start-up)
 * now. */
static inline bool sf_solver_budget_affords(const sf_solver_budget *b, double cost) {
  return b->spent + b->unpaid + cost <= sf_solver_budget_allowance(b);
}

/* Whether the server may learn an input now, its learning guessed to cost
 * `cost` seconds, leaving `reserve` seconds unspent (a deferred server's
 * start-up, which learning must not starve). The learning alone keeps
 * within the share whatever the attempts spent: a fork-mode job whose
 * fresh server learnt every entry the job loads would spend far beyond it.
 * Until the next answer reports the server's real CPU times, the guess
 * counts, and holds attempts back too. */
static inline bool sf_solver_budget_learn(sf_solver_budget *b, double cost, double reserve) {
  if (b->learnt + cost + reserve > sf_solver_budget_allowance(b)) return false;
  b->learnt += cost;
  b->unpaid += cost;
  return true;
}

/* Learning seen to cost `cpu` seconds more: the server's CPU time read
 * from the system between answers, when learning is all it does. Real time
 * pays the guesses first; beyond them it counts as well (a traced run and
 * its analysis cost several times the probe's run the guess is made of, and
 * with no step asked for, no answer would ever tell). */
static inline void sf_solver_budget_learnt(sf_solver_budget *b, double cpu) {
  if (cpu <= 0) return;
  double paid = cpu < b->unpaid ? cpu : b->unpaid;
  b->spent += cpu;
  b->learnt += cpu - paid;
  b->unpaid -= paid;
}

/* A step ended. cpu: the solver's CPU time since the previous step ended
 * (the server's, learning included; less what sf_solver_budget_learnt
 * counted already), learn_cpu: the part of it spent
 * learning (a traced run costs several plain ones: the guesses fall
 * short); attempted: it tried a frontier. */
static inline void sf_solver_budget_spent(sf_solver_budget *b, double cpu, double learn_cpu,
                                          bool attempted) {
  if (cpu > 0) b->spent += cpu;
  /* The answer's CPU times include that learning: real in place of guessed. */
  b->learnt += (learn_cpu > 0 ? learn_cpu : 0) - b->unpaid;
  if (b->learnt < 0) b->learnt = 0;
  b->unpaid = 0;
  if (!attempted) b->idle_until = b->mutations + 4096;
}

/* Share of the time spent so far, in percent. */
static inline double sf_solver_budget_share(const sf_solver_budget *b) {
  return 100.0 * b->spent / (sf_seconds_now() - b->start + 1e-9);
}

#endif
