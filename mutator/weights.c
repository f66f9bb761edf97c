/* Which functions the mutator calls, weighed by what their calls cost and
 * find (sf_mutator_note_call_stats in mutate.h) and by what inserting them
 * found (the schedule's credits, schedule.h).
 *
 * A call that costs many times the mean call and has reached no new edge
 * lately is chosen less often, in proportion to its cost (down to a floor,
 * so that no function starves), a removal takes it first, and outputs drop
 * it now and then (sf_mut_shed_costly). What it
 * saves: pcre2's grammar has pcre2_maketables, whose loops over 256
 * characters made 16% of the fuzzer's CPU time, engine callbacks included,
 * at 5% of the calls, every edge of it reached by its first call. A call
 * that finds is left alone however much it costs: pcre2_compile is
 * expensive and where the work is.
 *
 * A function whose inserted calls brought new corpus entries more often than
 * the others' is inserted more often (probability matching on the decayed
 * rates): in a container's API the puts and deletes that grow and shrink it
 * keep finding, while its counters and getters stop after their first
 * calls, and a uniform choice gives each the same share. Half of the
 * choice stays uniform, so that none starves: checksum's bug needs a call
 * that finds nothing until the solver passes its check, and with a quarter
 * it took 2.6 times as long. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Per update (about a second): what is remembered of the last ones; of
 * edges, longer (a single edge counts for about 45 s, as "finds"). */
#define DECAY       0.9
#define EDGES_DECAY 0.97
#define FINDS       0.25
/* Calls (decayed) before a function's cost is trusted. */
#define MIN_CALLS 8.0
/* Costlier than this many mean calls and this many seconds, and finding
 * nothing: weighed down. Below the seconds a call is lost in the fixed cost
 * of an execution (engine, decoding, libffi: tens of microseconds), and
 * fewer of them would only bias the search: a destructor costlier than the
 * getters around it is no reason to call it less. */
#define COSTLY         2.0
#define COSTLY_SECONDS 5e-6
#define MIN_WEIGHT     (1.0 / 16)
/* Insertions: the share of the choice that stays uniform, the most a
 * function's rate can multiply its weight by, and picks between updates. */
#define FIND_FLOOR  0.5
#define FIND_MOST   8.0
#define PICKS_EVERY 256

/* What is known of one function: decayed calls, ticks and first-reached
 * edges; its weight by cost, its insertions' score (schedule.h) at the last
 * update, and the running sum up to it of the weights insertions draw by
 * (cost and finds); the executor's counters when last noted. */
struct sf_func_weight {
  double calls, ticks, edges, weight, score, cumulative;
  sf_call_stats last;
};

/* The weights insertions draw by: by cost, times by what inserting the
 * function found (when the schedule adapts). */
static void update_picks(sf_mutator *m) {
  uint32_t n = m->api->nfuncs;
  double mean_score = 0, sum = 0;
  bool by_finds = m->sched.adaptive && !m->opt.no_func_schedule;
  if (by_finds) {
    for (uint32_t f = 0; f < n; f++) {
      m->weights.func[f].score = sf_sched_func_score(&m->sched, f);
      mean_score += m->weights.func[f].score;
    }
    mean_score /= n;
  }
  m->weights.picks_on = m->weights.on;
  for (uint32_t f = 0; f < n; f++) {
    struct sf_func_weight *fw = &m->weights.func[f];
    double w = m->weights.on ? fw->weight : 1;
    if (by_finds && mean_score > 0) {
      double factor = FIND_FLOOR + (1 - FIND_FLOOR) * fw->score / mean_score;
      if (factor > FIND_MOST) factor = FIND_MOST;
      if (factor < 0.99 || factor > 1.01) m->weights.picks_on = true;
      w *= factor;
    }
    sum += w;
    fw->cumulative = sum;
  }
}

int sf_mut_weights_init(sf_mutator *m) {
  uint32_t n = m->api->nfuncs;
  m->weights.func = calloc(n + 1, sizeof *m->weights.func);
  m->weights.costly = calloc(n + 1, sizeof *m->weights.costly);
  if (!m->weights.func || !m->weights.costly) return -1;
  for (uint32_t f = 0; f < n; f++)
    m->weights.func[f].weight = 1;
  return 0;
}

void sf_mut_weights_free(sf_mutator *m) {
  free(m->weights.func);
  free(m->weights.costly);
}

void sf_mutator_note_call_stats(sf_mutator *m, const sf_call_stats *stats,
                                double ticks_per_second) {
  uint32_t n = m->api->nfuncs;
  double calls = 0, ticks = 0, edges = 0;
  for (uint32_t f = 0; f < n; f++) {
    struct sf_func_weight *fw = &m->weights.func[f];
    sf_call_stats *last = &fw->last;
    /* Counters only grow; a smaller one is another executor's: start over. */
    bool fresh = stats[f].calls < last->calls || stats[f].ticks < last->ticks ||
                 stats[f].first_edges < last->first_edges;
    double dc = fresh ? (double)stats[f].calls : (double)(stats[f].calls - last->calls);
    double dt = fresh ? (double)stats[f].ticks : (double)(stats[f].ticks - last->ticks);
    double de =
        fresh ? (double)stats[f].first_edges : (double)(stats[f].first_edges - last->first_edges);
    *last = stats[f];
    fw->calls = fw->calls * DECAY + dc;
    fw->ticks = fw->ticks * DECAY + dt;
    fw->edges = fw->edges * EDGES_DECAY + de;
    calls += fw->calls;
    ticks += fw->ticks;
    edges += fw->edges;
  }
  double mean = calls > 0 ? ticks / calls : 0;
  /* While the campaign finds nothing (no new edges in the mutator's outputs
   * lately, none credited to a call), no function is worse than another:
   * weigh none down. */
  bool others_find = m->weights.found + edges >= 1;
  m->weights.found *= EDGES_DECAY;
  m->weights.on = false;
  for (uint32_t f = 0; f < n; f++) {
    struct sf_func_weight *fw = &m->weights.func[f];
    double w = 1, c = fw->calls, t = fw->ticks;
    m->weights.costly[f] = false;
    if (mean > 0 && ticks_per_second > 0 && c >= MIN_CALLS && t > 0) {
      double ratio = t / c / mean, seconds = t / c / ticks_per_second;
      m->weights.costly[f] = ratio > COSTLY && seconds >= COSTLY_SECONDS;
      bool finds = fw->edges >= FINDS; /* an edge in the last ~45 s */
      if (m->weights.costly[f] && !finds && others_find) {
        w = COSTLY / ratio;
        if (w < MIN_WEIGHT) w = MIN_WEIGHT;
        m->weights.on = true;
      }
    }
    fw->weight = w;
  }
  update_picks(m);
}

const bool *sf_mutator_costly_calls(const sf_mutator *m) {
  return m->weights.costly;
}

double sf_mutator_call_weight(const sf_mutator *m, uint32_t fi) {
  return m->weights.on ? m->weights.func[fi].weight : 1.0;
}

double sf_mutator_insert_share(const sf_mutator *m, uint32_t fi) {
  uint32_t n = m->api->nfuncs;
  if (!m->weights.picks_on || fi >= n) return 1.0;
  const struct sf_func_weight *w = m->weights.func;
  double own = w[fi].cumulative - (fi ? w[fi - 1].cumulative : 0);
  return own * n / w[n - 1].cumulative;
}

uint32_t sf_mut_weighted_func(sf_mutator *m) {
  uint32_t n = m->api->nfuncs;
  if (n == 0) return 0;
  if (++m->weights.picks >= PICKS_EVERY) {
    m->weights.picks = 0;
    update_picks(m);
  }
  if (!m->weights.picks_on) return sf_mut_random_func(m);
  double x = sf_rng_unit(&m->rng) * m->weights.func[n - 1].cumulative;
  uint32_t lo = 0, hi = n - 1;
  while (lo < hi) { /* the first f with cumulative[f] > x */
    uint32_t mid = lo + (hi - lo) / 2;
    if (m->weights.func[mid].cumulative > x)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

uint32_t sf_mut_costly_call(sf_mutator *m, const sf_seq *s) {
  /* Weighted reservoir over the calls, each by the inverse of its weight. */
  double total = 0;
  uint32_t pick = (uint32_t)sf_rng_below(&m->rng, s->ncalls);
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    double w = 1 / sf_mutator_call_weight(m, s->calls[ci].func);
    total += w;
    if (sf_rng_unit(&m->rng) * total < w) pick = ci;
  }
  return pick;
}

/* Does a call after ci other than a destructor use what ci made? */
static bool made_values_used(const sf_seq *s, uint32_t ci) {
  const sf_func *f = sf_seq_func(s, ci);
  uint64_t lo = s->calls[ci].val0, hi = lo + f->nproduced;
  for (uint32_t cj = ci + 1; cj < s->ncalls && hi > lo; cj++) {
    const sf_func *g = sf_seq_func(s, cj);
    if (g->flags & SF_F_DESTRUCTOR) continue;
    const sf_arg *a = sf_seq_args(s, cj);
    for (uint32_t i = 0; i < g->nparams; i++)
      if (g->params[i].kind == SF_HANDLE && sf_param_is_input(&g->params[i]) && a[i].bits >= lo &&
          a[i].bits < hi)
        return true;
  }
  return false;
}

bool sf_mut_has_costly_call(const sf_mutator *m, const sf_seq *s) {
  for (uint32_t ci = 0; m->weights.on && ci < s->ncalls; ci++)
    if (m->weights.func[s->calls[ci].func].weight < 1) return true;
  return false;
}

int sf_mut_shed_costly(sf_mutator *m, sf_seq *s, sf_seq *scratch) {
  if (!m->weights.on) return 0;
  /* One candidate, by how much lighter than 1 its weight is. */
  double total = 0, shed_chance = 0;
  uint32_t pick = UINT32_MAX;
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    double lighter = 1 - sf_mutator_call_weight(m, s->calls[ci].func);
    if (lighter <= 0 || made_values_used(s, ci)) continue;
    total += lighter;
    if (sf_rng_unit(&m->rng) * total < lighter) {
      pick = ci;
      shed_chance = lighter;
    }
  }
  if (pick == UINT32_MAX || sf_rng_unit(&m->rng) >= shed_chance) return 0;
  if (sf_seq_without_call(s, pick, scratch)) return -1;
  sf_seq t = *s;
  *s = *scratch;
  *scratch = t;
  return 1;
}
