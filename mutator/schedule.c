/* Adaptive choice of mutations (contract in schedule.h). */
#include "schedule.h"

#include <string.h>

/* The base mix, in percent (Randoop-style growth first). */
static const double base_weight[SF_MUT_COUNT] = {
    [SF_MUT_EXTEND] = 33,
    [SF_MUT_INSERT] = 14,
    [SF_MUT_REMOVE] = 10,
    [SF_MUT_CHANGE] = 19,
    [SF_MUT_DOCUMENT] = 8,
    [SF_MUT_REPEAT] = 7,
    [SF_MUT_SPLICE] = 9,
    /* Only where the engine asks for a crossover (half of libFuzzer's calls),
     * competing there with the mutations of its first input. */
    [SF_MUT_CROSSOVER] = 50,
};

#define FLOOR    0.25    /* share of the choice that stays with the base mix */
#define PRIOR    20.0    /* pseudo-tries at the average rate: slow to judge */
#define DECAY_AT 50000.0 /* tries after which counts are halved */
#define REFRESH  256     /* picks between recomputing the weights */

void sf_sched_init(sf_schedule *s, bool adaptive) {
  memset(s, 0, sizeof *s);
  s->adaptive = adaptive;
  for (int k = 0; k < SF_MUT_COUNT; k++)
    s->weight[k] = base_weight[k];
  s->total = 100;
  s->counts_credit = 0.1;
}

void sf_sched_ignore_counts(sf_schedule *s) {
  s->counts_credit = 0;
}

static void update_weights(sf_schedule *s) {
  double all_tries = 0, all_finds = 0;
  for (int k = 0; k < SF_MUT_COUNT; k++) {
    all_tries += s->tries[k];
    all_finds += s->finds[k];
  }
  if (all_tries > DECAY_AT) {
    for (int k = 0; k < SF_MUT_COUNT; k++) {
      s->tries[k] /= 2;
      s->finds[k] /= 2;
    }
    for (int k = 0; k < SF_SCHED_SITES; k++) {
      s->site_tries[k] /= 2;
      s->site_finds[k] /= 2;
    }
    for (int k = 0; k < SF_SCHED_FUNCS; k++) {
      s->func_tries[k] /= 2;
      s->func_finds[k] /= 2;
    }
    s->all_site_tries /= 2;
    s->all_site_finds /= 2;
    s->all_func_tries /= 2;
    s->all_func_finds /= 2;
  }
  /* The adaptive part follows the success rates alone; the base mix is only
   * their prior (pseudo-tries at the mean rate scaled by the base weight),
   * so it holds while there is little data. Scaled by the base weights for
   * good, a mutation with a small one could not win however well it did.
   * The rates are cubed: a mutation that pays three times as well as the
   * others takes most of the choice, not three shares of it. With the rates
   * as they were (probability matching), pcre2's document changes, finding
   * new code 3.6 times in 100 against about 1 for the rest, made a quarter
   * of its outputs (bench/README.md, issue 20's twelfth session). */
  double mean = (all_finds + 1) / (all_tries + 1), sum = 0, adapt[SF_MUT_COUNT], base_mean = 0;
  int nbase = 0;
  for (int k = 0; k < SF_MUT_COUNT; k++)
    if (base_weight[k] > 0) base_mean += base_weight[k], nbase++;
  base_mean /= nbase;
  for (int k = 0; k < SF_MUT_COUNT; k++) {
    double prior = PRIOR * mean * base_weight[k] / base_mean;
    double rate = (s->finds[k] + prior) / (s->tries[k] + PRIOR);
    adapt[k] = rate * rate * rate;
    sum += adapt[k];
  }
  s->total = 0;
  for (int k = 0; k < SF_MUT_COUNT; k++) {
    s->weight[k] = FLOOR * base_weight[k] + (1 - FLOOR) * 100 * (sum > 0 ? adapt[k] / sum : 0);
    s->total += s->weight[k];
  }
}

static bool growing(int k) {
  return k == SF_MUT_EXTEND || k == SF_MUT_INSERT || k == SF_MUT_REPEAT;
}

sf_mutation sf_sched_pick(sf_schedule *s, sf_rng *r, uint32_t ncalls, bool has_document,
                          bool can_grow, bool crossover) {
  if (s->adaptive && ++s->since_update >= REFRESH) {
    s->since_update = 0;
    update_weights(s);
  }
  if (ncalls == 0) return crossover ? SF_MUT_CROSSOVER : SF_MUT_EXTEND;
  int last = crossover ? SF_MUT_CROSSOVER : SF_MUT_CROSSOVER - 1;
  double total = 0;
  for (int k = 1; k <= last; k++)
    if ((k != SF_MUT_DOCUMENT || has_document) && (can_grow || !growing(k))) total += s->weight[k];
  double x = (double)sf_rng_below(r, 1u << 30) / (double)(1u << 30) * total;
  for (int k = 1; k <= last; k++) {
    if ((k == SF_MUT_DOCUMENT && !has_document) || (!can_grow && growing(k))) continue;
    if (x < s->weight[k]) return (sf_mutation)k;
    x -= s->weight[k];
  }
  return crossover ? SF_MUT_CROSSOVER : SF_MUT_CHANGE;
}

void sf_sched_emitted(sf_schedule *s, uint64_t hash, sf_mutation op, bool shrank, uint16_t site,
                      uint32_t func) {
  if (op <= SF_MUT_MIX || op >= SF_MUT_COUNT) return;
  s->tries[op] += 1;
  s->tried[op]++;
  if (site != SF_SCHED_NO_SITE) {
    s->site_tries[site] += 1;
    s->all_site_tries += 1;
  }
  uint16_t fslot = func == SF_SCHED_NO_FUNC ? SF_SCHED_NO_FUNC : (uint16_t)(func % SF_SCHED_FUNCS);
  if (fslot != SF_SCHED_NO_FUNC) {
    s->func_tries[fslot] += 1;
    s->all_func_tries += 1;
  }
  s->recent[hash % SF_SCHED_RECENT].func = fslot;
  s->recent[hash % SF_SCHED_RECENT].hash = hash;
  s->recent[hash % SF_SCHED_RECENT].op = (uint8_t)op;
  s->recent[hash % SF_SCHED_RECENT].site = site;
  s->recent[hash % SF_SCHED_RECENT].shrank = shrank;
}

bool sf_sched_is_output(const sf_schedule *s, uint64_t hash) {
  uint32_t slot = (uint32_t)(hash % SF_SCHED_RECENT);
  return s->recent[slot].hash == hash && s->recent[slot].op;
}

uint16_t sf_sched_site(uint32_t func, uint32_t param) {
  return (uint16_t)((func * 16u + param) % SF_SCHED_SITES);
}

double sf_sched_site_score(const sf_schedule *s, uint16_t site) {
  double mean = (s->all_site_finds + 1) / (s->all_site_tries + 1);
  return (s->site_finds[site] + PRIOR * mean) / (s->site_tries[site] + PRIOR);
}

double sf_sched_func_score(const sf_schedule *s, uint32_t func) {
  double mean = (s->all_func_finds + 1) / (s->all_func_tries + 1);
  uint32_t f = func % SF_SCHED_FUNCS;
  return (s->func_finds[f] + PRIOR * mean) / (s->func_tries[f] + PRIOR);
}

void sf_sched_new_input(sf_schedule *s, uint64_t hash, bool new_code) {
  uint32_t slot = (uint32_t)(hash % SF_SCHED_RECENT);
  if (s->recent[slot].hash != hash || !s->recent[slot].op) return;
  uint8_t op = s->recent[slot].op;
  double credit = new_code ? 1 : s->recent[slot].shrank ? 0 : s->counts_credit;
  s->finds[op] += credit;
  if (new_code) s->found[op]++;
  uint16_t site = s->recent[slot].site;
  if (site != SF_SCHED_NO_SITE) {
    s->site_finds[site] += credit;
    s->all_site_finds += credit;
  }
  uint16_t func = s->recent[slot].func;
  if (func != SF_SCHED_NO_FUNC) {
    s->func_finds[func] += credit;
    s->all_func_finds += credit;
  }
  s->recent[slot].op = 0; /* credited once */
}
