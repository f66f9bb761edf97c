/* Structure-aware mutation (contract in mutate.h). */
#include "mutate.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

sf_mutator *sf_mutator_new(const sf_api *api, const sf_mutator_options *opt) {
  sf_mutator *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->reuse_call = UINT32_MAX;
  m->burst.k = UINT32_MAX;
  m->api = api;
  if (opt) m->opt = *opt;
  m->opt.max_calls = opt && opt->max_calls ? opt->max_calls : 64;
  m->last_op = "none";
  m->last_site = SF_SCHED_NO_SITE;
  m->last_func = SF_SCHED_NO_FUNC;
  sf_sched_init(&m->sched, !m->opt.no_adaptive);
  for (uint32_t h = 0; h < api->nhandles && m->opt.state_features; h++)
    if (sf_api_coverage_state(api, h)) sf_sched_ignore_counts(&m->sched);
  /* Every corpus entry the engine hands over that the pool has not kept
   * is probed again (a full run, traced): with 4,096 kept, pcre2's corpus
   * of 10,000 after 300 s made one execution in five a probe, 17% of the
   * time. Entries cost their bytes and states; untouched slots, nothing. */
  m->pool = sf_pool_new(1 << 16, !m->opt.no_equivalence);
  if (m->opt.contracts_percent) {
    m->contracts = sf_contracts_new(api);
    if (!m->contracts) goto oom;
    sf_seq_init(&m->learn_seq, api);
  }
  m->emitted = sf_hashset_new(1 << 16);
  m->cmpseen = sf_hashset_new(1 << 12);
  m->trials_seen = sf_hashset_new(1 << 12);
  for (uint32_t fi = 0; fi < api->nfuncs; fi++)
    for (uint32_t i = 0; i < api->funcs[fi].nparams; i++)
      if (api->funcs[fi].params[i].kind == SF_FLAGS && sf_param_is_input(&api->funcs[fi].params[i]))
        m->has_flags = true;
  if (!m->pool || !m->emitted || !m->trials_seen || sf_mut_weights_init(m)) goto oom;
  if (m->opt.max_calls > SF_SEQ_MAX_CALLS) m->opt.max_calls = SF_SEQ_MAX_CALLS;
  m->len_cap = m->opt.len_control && m->opt.max_calls > SF_LEN_CAP_START ? SF_LEN_CAP_START
                                                                         : m->opt.max_calls;
  sf_seq_init(&m->cur, api);
  sf_seq_init(&m->next, api);
  sf_seq_init(&m->other, api);
  sf_life_init(&m->life, api);
  m->producers = calloc(api->nhandles + 1, sizeof *m->producers);
  m->nproducers = calloc(api->nhandles + 1, sizeof *m->nproducers);
  if (!m->producers || !m->nproducers) goto oom;
  for (uint32_t h = 0; h < api->nhandles; h++) {
    m->producers[h] = calloc(api->nfuncs, sizeof **m->producers);
    if (!m->producers[h]) goto oom;
    for (uint32_t fi = 0; fi < api->nfuncs; fi++) {
      const sf_func *f = &api->funcs[fi];
      bool makes = f->ret.kind == SF_HANDLE && f->ret.type_index == h;
      for (uint32_t i = 0; i < f->nparams; i++)
        makes |= f->params[i].kind == SF_HANDLE && (f->params[i].flags & SF_P_OUT) &&
                 f->params[i].type_index == h;
      if (makes) m->producers[h][m->nproducers[h]++] = fi;
    }
  }
  return m;
oom:
  sf_mutator_free(m);
  return NULL;
}

void sf_mutator_free(sf_mutator *m) {
  if (!m) return;
  if (m->producers)
    for (uint32_t h = 0; h < m->api->nhandles; h++)
      free(m->producers[h]);
  free(m->producers);
  free(m->nproducers);
  sf_seq_free(&m->cur);
  sf_seq_free(&m->next);
  sf_seq_free(&m->other);
  sf_life_free(&m->life);
  sf_buf_free(&m->enc);
  free(m->cands);
  sf_pool_free(m->pool);
  sf_contracts_free(m->contracts);
  sf_seq_free(&m->learn_seq);
  sf_hashset_free(m->emitted);
  sf_hashset_free(m->cmpseen);
  sf_hashset_free(m->trials_seen);
  free(m->cur_reus);
  free(m->reus);
  free(m->maps[0]);
  free(m->maps[1]);
  sf_mut_weights_free(m);
  sf_buf_free(&m->bytes);
  sf_buf_free(&m->linked);
  sf_mut_loaded_free(m);
  free(m);
}

void sf_mutator_set_byte_mutator(sf_mutator *m, sf_byte_mutator fn) {
  m->byte_mutator = fn;
}

void sf_mutator_set_runner(sf_mutator *m, sf_mutator_runner run, void *ctx) {
  m->runner = run;
  m->runner_ctx = ctx;
}

struct sf_contracts *sf_mutator_contracts(sf_mutator *m) {
  return m->contracts;
}

uint64_t sf_mutator_calls_wanted(const sf_mutator *m) {
  return m->calls_wanted;
}

void sf_mutator_note_run(sf_mutator *m, const sf_feedback *fb) {
  sf_mut_stateful_note_run(m, fb);
  /* Only what legality needs: the states, if any, are not used for inputs
   * that are not in the pool. */
  memcpy(&m->noted, fb, offsetof(sf_feedback, state)); /* not the 2 KiB of states */
  m->noted.nvalues = 0;
  if (fb->new_edges == 0 && sf_mutator_is_smaller_output(m, fb->input_hash)) {
    uint32_t slot = (uint32_t)(fb->input_hash % SMALLER_OUTPUTS);
    m->smaller[slot].legal_calls = fb->stop_call;
    m->smaller[slot].fails_last = sf_feedback_fails_last(fb);
    m->smaller[slot].refused = fb->refused;
    m->smaller[slot].ran = true;
  }
}

bool sf_mutator_is_smaller_output(const sf_mutator *m, uint64_t hash) {
  return m->smaller[hash % SMALLER_OUTPUTS].hash == hash;
}

const sf_seq *sf_mutator_last_output(const sf_mutator *m, uint64_t hash) {
  return m->last_out_valid && m->last_out == hash ? &m->next : NULL;
}

/* Did a new corpus entry reach new code (unknown: assume it did)? */
static bool reached_new_code(const sf_feedback *fb) {
  return fb->new_edges != 0;
}

/* Queue a trial of entry hash: answer pair `pair` of it, or OPTION_TRIAL.
 * When the ring is full the oldest goes. */
static void queue_trial(sf_mutator *m, uint64_t hash, uint32_t pair) {
  uint32_t slot = (m->next_trial + m->ntrials) % SF_TRIALS;
  m->trials[slot].hash = hash;
  m->trials[slot].pair = pair;
  if (m->ntrials < SF_TRIALS)
    m->ntrials++;
  else
    m->next_trial = (m->next_trial + 1) % SF_TRIALS;
}

/* Queue a try of each of e's answer pairs (m->trials) not tried
 * before: the same pair comes back in most entries that call the same mock
 * (a reader's "more" compared with 0), and its try in one of them tells as
 * much as in all (a "change" still applies it to any entry now and then). */
static void queue_answer_trials(sf_mutator *m, const sf_pool_entry *e) {
  for (uint32_t k = 0; e && !m->opt.no_compares && k < e->nanswer_cmp; k++) {
    if (!sf_hashset_insert(m->trials_seen, sf_hash_mix(e->answer_cmp[k][0], e->answer_cmp[k][1])))
      continue;
    queue_trial(m, e->hash, k);
  }
}

/* Queue a try of each of e's byte comparisons not tried before (the same
 * keyword check comes back in most entries of a parser). */
static void queue_bytes_trials(sf_mutator *m, const sf_pool_entry *e) {
  for (uint32_t k = 0; e && !m->opt.no_compares && k < e->nbytes_cmp; k++) {
    if (!sf_hashset_insert(m->trials_seen,
                           sf_hash_bytes(&e->bytes_cmp[k], sizeof *e->bytes_cmp, 1)))
      continue;
    queue_trial(m, e->hash, BYTES_TRIAL | k);
  }
}

/* Queue a try of each of e's argument pairs: unlike a mock's answer or a
 * keyword, the same pair (a limit compared with a count) may pay in one
 * entry and not in another, where the argument that holds the value plays
 * another part. The run hands out at most SF_FB_MAX_ARG_CMP, new ones
 * first. */
static void queue_arg_trials(sf_mutator *m, const sf_pool_entry *e) {
  for (uint32_t k = 0; e && !m->opt.no_compares && k < e->narg_cmp; k++)
    queue_trial(m, e->hash, ARG_TRIAL | k);
}

/* Queue OPTION_TRIALS tries of e under other options, if it reached new
 * code and the API has flags. A library's own harness tries each input
 * under several options (pcre2's: a pattern compiled under options drawn
 * from its bytes, and under none); an input the search keeps meets other
 * options only when a later change draws them. Trying each new entry under
 * options near its own, right away, keeps the patterns that pay under
 * them: in a 300-s pcre2 run, 10,226 branches against 9,099 without. */
static void queue_option_trials(sf_mutator *m, const sf_pool_entry *e, bool new_code) {
  for (uint32_t k = 0; e && new_code && m->has_flags && k < OPTION_TRIALS; k++)
    queue_trial(m, e->hash, OPTION_TRIAL);
}

/* What is known of an input: its pool entry, adding it with a run by the
 * runner if it is new and not the engine's last run. *legal receives the
 * calls known to be legal, *fails_last whether the last of them failed,
 * *refused the calls its run refused (0 where unknown). */
static const sf_pool_entry *know_input(sf_mutator *m, const uint8_t *d, size_t n, uint64_t h,
                                       uint32_t *legal, bool *fails_last, uint64_t *refused) {
  const sf_pool_entry *e = sf_pool_find(m->pool, h);
  *refused = 0;
  if (!e && sf_feedback_valid(&m->noted, h)) {
    *legal = m->noted.stop_call; /* an intermediate input: legality only */
    *fails_last = sf_feedback_fails_last(&m->noted);
    *refused = m->noted.refused;
    return NULL;
  }
  uint32_t slot = (uint32_t)(h % SMALLER_OUTPUTS);
  if (!e && m->runner && m->smaller[slot].hash == h && m->smaller[slot].ran) {
    /* Most entries met are smaller copies: libFuzzer keeps a smaller
     * input that reaches its parent's features in the parent's place (9 of
     * 10 of cJSON's new entries, 2 of 3 of pcre2's). A probe would repeat
     * its parent's: their values, states and comparisons are in the pool,
     * and the schedule gives no credit for a smaller input without new code
     * (its engine run reached none). That run told its legality. */
    sf_sched_new_input(&m->sched, h, false);
    e = sf_pool_add_legal(m->pool, d, n, m->smaller[slot].legal_calls, m->smaller[slot].fails_last,
                          m->smaller[slot].refused);
    m->stats.copies_unprobed++;
  } else if (!e && m->runner) {
    bool own = sf_sched_is_output(&m->sched, h);
    m->runner(m->runner_ctx, d, n, own, &m->scratch);
    if (own && m->scratch.new_edges != SF_FB_EDGES_UNKNOWN)
      m->weights.found += m->scratch.new_edges; /* weights.c: do calls find? */
    m->stats.probes++;
    bool new_code = reached_new_code(&m->scratch);
    if (new_code) m->last_new_at = m->stats.mutations; /* length control */
    sf_sched_new_input(&m->sched, h, new_code);        /* credit its mutation */
    e = sf_pool_add(m->pool, d, n, &m->scratch);
    sf_mut_absorb_cmp(m, &m->scratch);
    sf_mut_stateful_new_input(m, h, &m->scratch);
    sf_mut_stateful_learn(m, h, d, n, &m->scratch);
    queue_answer_trials(m, e);
    queue_bytes_trials(m, e);
    queue_arg_trials(m, e);
    queue_option_trials(m, e, new_code);
  }
  *legal = e ? e->legal_calls : SF_LEGAL_UNKNOWN;
  *fails_last = e && e->fails_last;
  if (e) *refused = e->refused;
  return e;
}

void sf_mutator_meet(sf_mutator *m, const uint8_t *data, size_t size) {
  uint32_t legal;
  bool fails_last;
  uint64_t refused;
  know_input(m, data, size, sf_feedback_input_hash(data, size), &legal, &fails_last, &refused);
}

void sf_mutator_learn_arg_cmp(sf_mutator *m, uint64_t input, const uint64_t pair[2]) {
  int k = m->opt.no_compares ? -1 : sf_pool_add_arg_cmp(m->pool, input, pair);
  if (k >= 0) queue_trial(m, input, ARG_TRIAL | (uint32_t)k);
}

void sf_mutator_add_input(sf_mutator *m, const uint8_t *data, size_t size, const sf_feedback *fb) {
  uint64_t h = sf_feedback_input_hash(data, size);
  bool is_new = !sf_pool_find(m->pool, h);
  bool new_code = !sf_feedback_valid(fb, h) || reached_new_code(fb);
  if (is_new && new_code) m->last_new_at = m->stats.mutations; /* length control */
  if (is_new) sf_sched_new_input(&m->sched, h, new_code);
  const sf_pool_entry *e = sf_pool_add(m->pool, data, size, fb);
  if (e && is_new) sf_mut_stateful_new_input(m, h, fb);
  if (e && sf_feedback_valid(fb, h)) {
    if (is_new) sf_mut_stateful_learn(m, h, data, size, fb);
    sf_mut_absorb_cmp(m, fb);
    if (is_new) queue_answer_trials(m, e);
    if (is_new) queue_bytes_trials(m, e);
    if (is_new) queue_arg_trials(m, e);
    if (is_new) queue_option_trials(m, e, new_code);
  }
}

void sf_mutator_get_stats(const sf_mutator *m, sf_mutator_stats *st) {
  *st = m->stats;
  st->pool_size = sf_pool_size(m->pool);
  memcpy(st->tried, m->sched.tried, sizeof st->tried);
  memcpy(st->found, m->sched.found, sizeof st->found);
  st->states_seen = sf_pool_states_seen(m->pool);
  st->length_cap = m->len_cap;
}

const char *sf_mutator_last_op(const sf_mutator *m) {
  return m->last_op;
}

/* ---- mutations (each reads m->cur, writes m->next) ---------------------- */

/* Mutations that append calls after cur's calls first drop a last call that
 * failed (legally, sf_run_legal): a call after it would never run. The
 * others keep it, so that its arguments can still be mutated. */
static void drop_failed_last(sf_mutator *m) {
  if (!m->cur_fails_last) return;
  m->cur_fails_last = false;
  if (m->cur.ncalls) sf_seq_truncate(&m->cur, m->cur.ncalls - 1);
}

/* A call of a burst after its first: on the first call's handles while
 * they live (the same container, grown and shrunk). */
static bool append_burst_call(sf_mutator *m, uint32_t fi) {
  const sf_func *f = &m->api->funcs[fi];
  /* A copy: a producer call made for another argument may move m->next's. */
  sf_arg first[64];
  memcpy(first, sf_seq_args(&m->next, m->burst.first), f->nparams * sizeof *first);
  uint64_t fixed = 0;
  for (uint32_t i = 0; i < f->nparams && i < 64; i++) {
    const sf_param *p = &f->params[i];
    if (p->kind == SF_HANDLE && sf_param_is_input(p) && first[i].bits != SF_NULL_REF &&
        sf_life_usable(&m->life, first[i].bits, p->type_index))
      fixed |= 1ULL << i;
  }
  return sf_mut_append_call_bound(m, &m->next, fi, 0, first, fixed);
}

/* Append one call of fi to m->next or, one time in ten, a burst of calls
 * of one function (containers need puts and deletes in a row): 2-9 calls,
 * or up to 25, on the same handles, whose keys are distinct (fresh) or walk
 * the keys earlier calls used (values.c: burst_bytes). */
static void append_calls(sf_mutator *m, uint32_t fi) {
  sf_rng *r = &m->rng;
  uint32_t times = 1;
  if (sf_rng_chance(r, 1, 10)) {
    times = 2 + (uint32_t)sf_rng_below(r, sf_rng_chance(r, 1, 2) ? 8 : 24);
    m->burst.start = m->next.ncalls;
    m->burst.mode = (int)sf_rng_below(r, 3);
    m->burst.offset = sf_rng_chance(r, 3, 4) ? 0 : (uint32_t)sf_rng_below(r, 8);
    /* A walk is of a function that takes the keys earlier calls used. */
    for (int tries = 0; m->burst.mode == SF_BURST_WALK && tries < 8;
         tries++, fi = sf_mut_weighted_func(m))
      if (sf_mut_walkable(m, &m->next, &m->api->funcs[fi])) break;
  }
  for (uint32_t k = 0, tries = 0; k < times && tries < times + 4; tries++) {
    if (k == 0 && tries > 0) fi = sf_mut_weighted_func(m);
    m->burst.k = times > 1 ? k : UINT32_MAX;
    if (k == 0 ? sf_mut_append_call(m, &m->next, fi, 0) : append_burst_call(m, fi)) {
      if (k == 0) {
        m->burst.first = m->next.ncalls - 1;
        m->last_func = fi;
      }
      k++;
    }
  }
  m->burst.k = UINT32_MAX;
}

/* A uniform one of the set bits of mask (not 0). */
static uint32_t pick_bit(sf_rng *r, uint64_t mask) {
  for (uint64_t k = sf_rng_below(r, (uint64_t)__builtin_popcountll(mask)); k; k--)
    mask &= mask - 1;
  return (uint32_t)__builtin_ctzll(mask);
}

/* Of the calls of s in `refused` (a mask of call indices), those of a
 * function an earlier call of s made and was not refused: a recipient
 * refused after others were taken was refused for the state it met, not
 * for its arguments (hello("bad domain") is refused in any state). */
static uint64_t refused_for_state(const sf_seq *s, uint64_t refused) {
  uint64_t for_state = 0;
  for (uint64_t rest = refused; rest; rest &= rest - 1) {
    uint32_t ci = (uint32_t)__builtin_ctzll(rest);
    for (uint32_t cj = 0; cj < ci; cj++)
      if (s->calls[cj].func == s->calls[ci].func && !(refused >> cj & 1)) {
        for_state |= 1ULL << ci;
        break;
      }
  }
  return for_state;
}

/* Where an insertion of fi goes among the first `room` calls of s:
 * - One time in three right before a call the input's run refused (a
 *   recoverable error, sf_run_result.refused), if it has one; three times
 *   in four one refused for its state (refused_for_state), if any. A state
 *   machine refuses a call in the wrong state, and a call before it may
 *   change the state so that it is taken: session's bug is a login that
 *   raises the limit of recipients, then one more recipient, the one that
 *   was refused at the limit (bench/README.md).
 * - Else one time in two right after a call of the same function, if s has
 *   one. A state machine allows a call in runs of states (users added
 *   before the greeting, recipients inside a transaction): beside a call
 *   the state took, the new one is likely taken too, where a random place
 *   is mostly refused. */
static uint32_t insertion_point(sf_mutator *m, const sf_seq *s, uint32_t fi, uint32_t room) {
  sf_rng *r = &m->rng;
  uint64_t refused = m->cur_refused & (room < 64 ? (1ULL << room) - 1 : ~0ULL);
  if (refused && sf_rng_chance(r, 1, 3)) {
    uint64_t for_state = refused_for_state(s, refused);
    return pick_bit(r, for_state && sf_rng_chance(r, 3, 4) ? for_state : refused);
  }
  uint32_t pos = (uint32_t)sf_rng_below(r, room + 1);
  if (!sf_rng_chance(r, 1, 2)) return pos;
  uint32_t same = 0, pick = 0;
  for (uint32_t ci = 0; ci < room; ci++) /* reservoir: a uniform one of them */
    if (s->calls[ci].func == fi && sf_rng_below(r, ++same) == 0) pick = ci + 1;
  return same ? pick : pos;
}

static int mut_insert(sf_mutator *m, bool at_end) {
  const sf_seq *src = &m->cur;
  m->last_op = at_end ? "extend" : "insert";
  if (at_end) drop_failed_last(m);
  /* Not after a failed last call. */
  uint32_t room = src->ncalls - (m->cur_fails_last ? 1 : 0);
  uint32_t fi = sf_mut_weighted_func(m);
  uint32_t pos = at_end ? src->ncalls : insertion_point(m, src, fi, room);
  uint64_t *map = sf_mut_make_map(m, 0, src->nvals);
  if (!map) return -1;
  sf_mut_begin_next(m);
  int rc = sf_mut_copy_calls(m, &m->next, src, 0, pos, map, m->cur_reus, m->ncur_reus);
  if (rc == 0) {
    append_calls(m, fi);
    rc = sf_mut_copy_calls(m, &m->next, src, pos, src->ncalls, map, m->cur_reus, m->ncur_reus);
  }
  return rc;
}

static int mut_remove(sf_mutator *m) {
  const sf_seq *src = &m->cur;
  if (!src->ncalls) return mut_insert(m, true);
  m->last_op = "remove";
  /* Half the time a costly call that finds nothing, when there are. */
  uint32_t victim = m->weights.on && sf_rng_chance(&m->rng, 1, 2)
                        ? sf_mut_costly_call(m, src)
                        : (uint32_t)sf_rng_below(&m->rng, src->ncalls);
  uint64_t *map = sf_mut_make_map(m, 0, src->nvals);
  if (!map) return -1;
  sf_mut_begin_next(m);
  int rc = sf_mut_copy_calls(m, &m->next, src, 0, victim, map, m->cur_reus, m->ncur_reus);
  if (rc == 0)
    rc = sf_mut_copy_calls(m, &m->next, src, victim + 1, src->ncalls, map, m->cur_reus,
                           m->ncur_reus);
  return rc;
}

/* Copy cur to next as it is (flags included). */
static int copy_cur(sf_mutator *m) {
  uint64_t *map = sf_mut_make_map(m, 0, m->cur.nvals);
  if (!map) return -1;
  sf_mut_begin_next(m);
  return sf_mut_copy_calls(m, &m->next, &m->cur, 0, m->cur.ncalls, map, m->cur_reus, m->ncur_reus);
}

static bool is_bytes_input(const sf_param *p) {
  return sf_param_is_input(p) && (p->kind == SF_STRING || p->kind == SF_BUFFER);
}

/* The longest string or buffer argument (a document a parser reads), if
 * any has 16 bytes or more. */
static bool longest_bytes_arg(const sf_seq *s, uint32_t *call, uint32_t *param) {
  uint32_t best = 15;
  bool found = false;
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (!is_bytes_input(p)) continue;
      const sf_arg *a = &sf_seq_args(s, ci)[i];
      if (a->len > best) {
        best = a->len;
        *call = ci;
        *param = i;
        found = true;
      }
    }
  }
  return found;
}

/* A document to change: one of s's string and buffer arguments, drawn by
 * how well changing its site has paid (schedule.h), so that a pattern
 * compiled once wins over the longer subjects matched against it when its
 * changes find more. False when s has none. */
static bool pick_document(sf_mutator *m, const sf_seq *s, uint32_t *call, uint32_t *param) {
  double total = 0, x = 0;
  bool found = false;
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t ci = 0; ci < s->ncalls; ci++) {
      const sf_func *f = sf_seq_func(s, ci);
      for (uint32_t i = 0; i < f->nparams; i++) {
        const sf_param *p = &f->params[i];
        if (!is_bytes_input(p) || (p->flags & (SF_P_CALLBACK | SF_P_VTABLE))) continue;
        if (p->kind == SF_STRING && sf_seq_args(s, ci)[i].bits) continue; /* NULL */
        double w = sf_sched_site_score(&m->sched, sf_sched_site(s->calls[ci].func, i));
        if (!pass) {
          total += w;
          continue;
        }
        *call = ci, *param = i, found = true; /* the last one, if rounding leaves x >= 0 */
        if ((x -= w) < 0) return true;
      }
    }
    if (total <= 0) return false;
    x = (double)sf_rng_below(&m->rng, 1u << 30) / (double)(1u << 30) * total;
  }
  return found;
}

/* The other string and buffer arguments of s that held the bytes `old`
 * (saved in m->linked) before argument (ci, pi) changed take its new bytes
 * too: a pattern matched against itself, a key put and later deleted stay
 * related as they change. */
static int change_linked(sf_mutator *m, sf_seq *s, uint32_t ci, uint32_t pi) {
  const sf_arg *changed = &sf_seq_args(s, ci)[pi];
  sf_buf *now = &m->bytes, *old = &m->linked;
  sf_buf_reset(now);
  if (sf_buf_append(now, sf_seq_bytes(s, changed), changed->len)) return -1;
  for (uint32_t k = 0; k < s->ncalls; k++) {
    const sf_func *f = sf_seq_func(s, k);
    for (uint32_t i = 0; i < f->nparams; i++) {
      sf_arg *a = &sf_seq_args(s, k)[i];
      if ((k == ci && i == pi) || !is_bytes_input(&f->params[i]) || a->len != old->len ||
          (f->params[i].kind == SF_STRING && a->bits) ||
          memcmp(sf_seq_bytes(s, a), old->data, old->len) != 0)
        continue;
      if (sf_seq_set_bytes(s, a, now->data ? now->data : (const uint8_t *)"", now->len)) return -1;
    }
  }
  return 0;
}

/* Input to state (sf_mut_replace_answer) with pair in one of s's scripts,
 * from a random call on: 1 when done, 0 when none holds the answer. */
static int answer_to_state(sf_mutator *m, sf_seq *s, const uint64_t pair[2]) {
  uint32_t first = (uint32_t)sf_rng_below(&m->rng, s->ncalls);
  for (uint32_t k = 0; k < s->ncalls; k++) {
    uint32_t ci = (first + k) % s->ncalls;
    const sf_func *f = sf_seq_func(s, ci);
    for (uint32_t i = 0; i < f->nparams; i++) {
      if (!(f->params[i].flags & (SF_P_CALLBACK | SF_P_VTABLE))) continue;
      int rc = sf_mut_replace_answer(m, s, &sf_seq_args(s, ci)[i], pair);
      if (rc) return rc;
    }
  }
  return 0;
}

/* Turn one declared flag of a flags argument on or off: the options a call
 * already has stay, so that combinations build up (a fresh value is one
 * flag, all at random or none). */
static void toggle_flag(sf_mutator *m, const sf_param *p, sf_arg *a) {
  const sf_enum *e = &m->api->enums[p->type_index];
  if (!e->nconsts) return;
  uint64_t flag = (uint64_t)e->consts[sf_rng_below(&m->rng, e->nconsts)].value;
  a->bits = sf_arg_prim_repair(m->api, p, a->bits ^ flag);
}

/* A changed input goes with other options one time in three: one to three flags
 * of each flags argument of call ci turned. A library's own harness tries
 * each input under options it draws from the input's bytes (pcre2's, a
 * pattern compiled under random options and none); with options that
 * change only when they are picked, a pattern meets few of them. */
static void toggle_call_flags(sf_mutator *m, sf_seq *s, uint32_t ci) {
  const sf_func *f = sf_seq_func(s, ci);
  bool drawn = false;
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == SF_FLAGS && sf_param_is_input(&f->params[i])) {
      /* Drawn only where there are flags: other APIs' runs stay as they were. */
      if (!drawn && !sf_rng_chance(&m->rng, 1, 3)) return;
      drawn = true;
      uint32_t times = 1 + (uint32_t)sf_rng_below(&m->rng, 3);
      while (times--)
        toggle_flag(m, &f->params[i], &sf_seq_args(s, ci)[i]);
    }
}

/* The kind of a trial's pair (ANSWER_TRIAL, BYTES_TRIAL, ARG_TRIAL); the
 * rest of k is its index among the entry's pairs of that kind. */
static uint32_t trial_kind(uint32_t k) {
  return k & (BYTES_TRIAL | ARG_TRIAL);
}

/* Apply a compared pair of a kind to s (c for bytes, pair for the others,
 * the other NULL): 1 done, 0 when it applies nowhere, -1 on OOM. */
static int apply_pair(sf_mutator *m, sf_seq *s, uint32_t kind, const sf_bytes_cmp *c,
                      const uint64_t pair[2]) {
  if (kind == BYTES_TRIAL) return sf_mut_replace_bytes(m, s, c);
  if (kind == ARG_TRIAL) return sf_mut_replace_int(m, s, pair);
  return answer_to_state(m, s, pair);
}

static void count_trial(sf_mutator *m, uint32_t kind) {
  if (kind == BYTES_TRIAL)
    m->stats.bytes_trials++;
  else if (kind == ARG_TRIAL)
    m->stats.arg_trials++;
  else
    m->stats.answer_trials++;
}

/* How many compared pairs of a kind cur has. */
static uint32_t cur_pairs(const sf_mutator *m, uint32_t kind) {
  return kind == BYTES_TRIAL ? m->ncur_bytes_cmp
         : kind == ARG_TRIAL ? m->ncur_arg_cmp
                             : m->ncur_answer_cmp;
}

/* One of cur's n pairs of a kind applied to s, trying them from a random
 * one on: 1 done, 0 none applies, -1 on OOM. */
static int change_by_cur_pair(sf_mutator *m, sf_seq *s, uint32_t kind, uint32_t n) {
  uint32_t first = (uint32_t)sf_rng_below(&m->rng, n);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i = (first + k) % n;
    int rc = kind == BYTES_TRIAL
                 ? apply_pair(m, s, kind, &m->cur_bytes_cmp[i], NULL)
                 : apply_pair(m, s, kind, NULL,
                              kind == ARG_TRIAL ? m->cur_arg_cmp[i] : m->cur_answer_cmp[i]);
    if (rc) return rc;
  }
  return 0;
}

/* Change one input argument of one call; with document, the longest string
 * or buffer argument. Now and then an argument takes what the target
 * compared it with instead. */
static int mut_arg(sf_mutator *m, bool document_only) {
  if (!m->cur.ncalls) return mut_insert(m, true);
  if (copy_cur(m)) return -1;
  m->last_op = document_only ? "document" : "change";
  m->reuse_call = UINT32_MAX;
  sf_seq *s = &m->next;
  /* Half of the time an input whose mocks' answers were compared with
   * other values gets one in place of its answer; a quarter of the time
   * (of those left) bytes it compared get the other side, and as often an
   * integer argument what it was compared with. */
  static const struct {
    uint32_t kind, one_in;
    const char *op;
  } by_pairs[] = {{ANSWER_TRIAL, 2, "change-answer"},
                  {BYTES_TRIAL, 4, "change-bytes"},
                  {ARG_TRIAL, 4, "change-arg"}};
  for (size_t i = 0; !document_only && !m->opt.no_compares && i < 3; i++) {
    uint32_t n = cur_pairs(m, by_pairs[i].kind);
    if (!n || !sf_rng_chance(&m->rng, 1, by_pairs[i].one_in)) continue;
    int rc = change_by_cur_pair(m, s, by_pairs[i].kind, n);
    if (rc < 0) return -1;
    if (rc) {
      m->last_op = by_pairs[i].op;
      count_trial(m, by_pairs[i].kind);
      return 0;
    }
  }
  uint32_t doc_call, doc_param;
  bool doc = document_only && pick_document(m, s, &doc_call, &doc_param);
  for (int tries = 0; tries < 8; tries++) {
    uint32_t ci = doc ? doc_call : (uint32_t)sf_rng_below(&m->rng, s->ncalls);
    const sf_func *f = sf_seq_func(s, ci);
    if (!f->nparams) continue;
    uint32_t i = doc ? doc_param : (uint32_t)sf_rng_below(&m->rng, f->nparams);
    doc = false;
    const sf_param *p = &f->params[i];
    if (!sf_param_is_input(p)) continue;
    sf_arg *a = &sf_seq_args(s, ci)[i];
    if (p->kind == SF_HANDLE) {
      /* Another alive value of the same type at that point, one the call
       * may take with its other arguments. */
      m->last_op = "swap-handle";
      sf_life_clear(&m->life);
      for (uint32_t k = 0; k < ci; k++)
        if (sf_life_apply(&m->life, s->calls[k].func, sf_seq_args(s, k))) return -1;
      uint32_t n = sf_mut_legal_candidates(m, f, sf_seq_args(s, ci), i, f->nparams, false);
      if (n < 2 && !(p->flags & SF_P_NULLABLE)) continue;
      uint64_t pick = sf_rng_below(&m->rng, n + ((p->flags & SF_P_NULLABLE) ? 1 : 0));
      a->bits = pick < n ? m->cands[pick] : SF_NULL_REF;
    } else if (p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY) {
      sf_arg na = *a;
      m->last_site = sf_sched_site(s->calls[ci].func, i);
      bool is_null = p->kind == SF_STRING && a->bits;
      /* Half of the time, arguments equal to this one follow its change. */
      bool link = p->kind != SF_ARRAY && !is_null && a->len && sf_rng_chance(&m->rng, 1, 2);
      if (link) {
        sf_buf_reset(&m->linked);
        if (sf_buf_append(&m->linked, sf_seq_bytes(s, a), a->len)) return -1;
      }
      /* Documents (a parser's input: chosen as one, or 16 bytes or more)
       * get the engine's byte mutations half of the time, short strings
       * now and then. */
      bool document = document_only || a->len >= 16;
      if (m->byte_mutator && !is_null && sf_rng_chance(&m->rng, 1, document ? 2 : 8)) {
        /* The engine's byte mutations (with compared-against values). */
        m->last_op = "change-engine";
        sf_buf *tmp = &m->bytes;
        sf_buf_reset(tmp);
        size_t cap = a->len + (document ? 256 : 64);
        if (sf_buf_reserve(tmp, cap)) return -1;
        if (a->len) memcpy(tmp->data, sf_seq_bytes(s, a), a->len);
        size_t n = m->byte_mutator(tmp->data, a->len, cap);
        tmp->len = n ? n : a->len;
        if (sf_seq_set_bytes(s, &na, tmp->data, tmp->len)) return -1;
      } else if (sf_rng_chance(&m->rng, 1, 2) && a->len && !is_null) {
        /* Small edit of the existing bytes. */
        sf_buf *tmp = &m->bytes;
        sf_buf_reset(tmp);
        sf_buf_append(tmp, sf_seq_bytes(s, a), a->len);
        size_t at = (size_t)sf_rng_below(&m->rng, tmp->len);
        switch (sf_rng_below(&m->rng, 4)) {
        case 0:
          tmp->data[at] ^= (uint8_t)(1u << sf_rng_below(&m->rng, 8));
          break;
        case 1:
          tmp->data[at] = (uint8_t)sf_rng_below(&m->rng, 256);
          break;
        case 2:
          tmp->len = at;
          break; /* shorten */
        default:
          sf_buf_append(tmp, tmp->data + at, tmp->len - at);
          break; /* duplicate a tail */
        }
        if (sf_seq_set_bytes(s, &na, tmp->data ? tmp->data : (const uint8_t *)"", tmp->len))
          return -1;
      } else if (sf_mut_gen_bytes(m, s, f, p, sf_seq_args(s, ci), &na)) {
        return -1;
      }
      *a = na; /* repair fixes lengths, NULs and element canonical forms */
      toggle_call_flags(m, s, ci);
      if (link && change_linked(m, s, ci, i)) return -1;
      if (sf_rng_chance(&m->rng, 3, 4) && sf_mut_follow_reuse(m, s, ci, i)) return -1;
    } else if (m->byte_mutator && sf_kind_size(p->kind) && sf_rng_chance(&m->rng, 1, 8)) {
      /* The engine's byte mutations on the value's bytes (little endian). */
      m->last_op = "change-engine";
      uint8_t le[8];
      unsigned sz = sf_kind_size(p->kind);
      for (unsigned k = 0; k < 8; k++)
        le[k] = (uint8_t)(a->bits >> (8 * k));
      size_t n = m->byte_mutator(le, sz, sz);
      uint64_t v = 0;
      for (unsigned k = 0; k < sz; k++)
        v |= (uint64_t)le[k] << (8 * k);
      a->bits = sf_arg_prim_repair(m->api, p, n ? v : a->bits);
    } else if (p->kind == SF_FLAGS && sf_rng_chance(&m->rng, 1, 2)) {
      toggle_flag(m, p, a);
    } else if (sf_kind_is_int(p->kind) && sf_rng_chance(&m->rng, 1, 3)) {
      int64_t delta = (int64_t)sf_rng_below(&m->rng, 33) - 16;
      a->bits = sf_arg_prim_repair(m->api, p, a->bits + (uint64_t)delta);
    } else {
      a->bits = sf_mut_gen_prim(m, p);
    }
    return 0;
  }
  return 0;
}

/* Repeat an existing call a few times at the end. */
static int mut_repeat(sf_mutator *m) {
  drop_failed_last(m);
  if (!m->cur.ncalls) return mut_insert(m, true);
  if (copy_cur(m)) return -1;
  m->last_op = "repeat";
  sf_seq *s = &m->next;
  uint32_t ci = (uint32_t)sf_rng_below(&m->rng, s->ncalls);
  uint32_t times = 1 + (uint32_t)sf_rng_below(&m->rng, 8);
  uint64_t *map = sf_mut_make_map(m, 0, s->nvals);
  if (!map) return -1;
  for (uint32_t v = 0; v < s->nvals; v++)
    map[v] = v;
  int rc = 0;
  for (uint32_t k = 0; k < times && rc == 0; k++) {
    uint32_t v0 = s->nvals;
    if (!sf_seq_append_from(s, s, ci, map)) rc = -1;
    for (uint32_t v = v0; v < s->nvals; v++)
      sf_mut_set_reus(m, v, 1);
  }
  return rc;
}

/* Splice: a prefix of cur with calls of other; other's handles are renamed
 * onto cur's alive values of the same type where their producer was cut. */
static int splice(sf_mutator *m, const uint8_t *oreus, uint32_t noreus) {
  drop_failed_last(m); /* b's calls may follow all of cur's */
  const sf_seq *a = &m->cur, *b = &m->other;
  m->last_op = "splice";
  uint32_t cut_a = a->ncalls ? (uint32_t)sf_rng_below(&m->rng, a->ncalls + 1) : 0;
  uint32_t from_b = b->ncalls ? (uint32_t)sf_rng_below(&m->rng, b->ncalls) : 0;
  uint64_t *amap = sf_mut_make_map(m, 0, a->nvals), *bmap = sf_mut_make_map(m, 1, b->nvals);
  if (!amap || !bmap) return -1;
  sf_mut_begin_next(m);
  if (sf_mut_copy_calls(m, &m->next, a, 0, cut_a, amap, m->cur_reus, m->ncur_reus)) return -1;
  for (uint32_t v = 0; v < b->nvals; v++) {
    if (b->vals[v].call >= from_b) continue;
    uint32_t n = sf_mut_candidates(m, b->vals[v].htype);
    if (n) bmap[v] = sf_mut_choose_value(m, n);
  }
  return sf_mut_copy_calls(m, &m->next, b, from_b, b->ncalls, bmap, oreus, noreus);
}

/* ---- driver ------------------------------------------------------------- */

/* Decode an input into m->cur, applying what its run told: cut before an
 * illegal call (legality) and take its reusable flags (equivalence). */
static void load_input(sf_mutator *m, const uint8_t *d, size_t n) {
  uint64_t h = sf_feedback_input_hash(d, n);
  /* libFuzzer stacks mutations: the input is often our last output, still
   * in m->next; take it instead of decoding its bytes again. */
  bool ours = m->last_out_valid && m->last_out == h;
  m->last_out_valid = false; /* m->next is about to change */
  uint32_t legal;
  bool fails_last;
  const sf_pool_entry *e = know_input(m, d, n, h, &legal, &fails_last, &m->cur_refused);
  if (ours) {
    sf_seq tmp = m->cur;
    m->cur = m->next;
    m->next = tmp;
  } else if (sf_mut_interpret(m, &m->cur, d, n, h)) {
    sf_seq_clear(&m->cur);
  }
  m->ncur_reus = m->ncur_answer_cmp = m->ncur_bytes_cmp = m->ncur_arg_cmp = 0;
  /* An input met longer than the cap (a seed, a fork-mode job's share of
   * the corpus) raises it, as libFuzzer starts at its longest input. */
  if (m->cur.ncalls > m->len_cap)
    m->len_cap = m->cur.ncalls < m->opt.max_calls ? m->cur.ncalls : m->opt.max_calls;
  /* The failed call is cur's last once cut there. */
  m->cur_fails_last = !m->opt.no_legality && fails_last && legal <= m->cur.ncalls;
  if (!m->opt.no_legality && legal < m->cur.ncalls) {
    sf_seq_truncate(&m->cur, legal);
    m->stats.pruned_illegal++;
  }
  if (!e) return;
  m->ncur_answer_cmp = e->nanswer_cmp;
  memcpy(m->cur_answer_cmp, e->answer_cmp, e->nanswer_cmp * sizeof *e->answer_cmp);
  m->ncur_bytes_cmp = e->nbytes_cmp;
  if (e->nbytes_cmp) memcpy(m->cur_bytes_cmp, e->bytes_cmp, e->nbytes_cmp * sizeof *e->bytes_cmp);
  m->ncur_arg_cmp = e->narg_cmp;
  memcpy(m->cur_arg_cmp, e->arg_cmp, e->narg_cmp * sizeof *e->arg_cmp);
  /* An unobserved smaller copy: its values reached their states in the
   * entry it replaced first, as its probe would have found. */
  uint32_t nreus = e->unobserved ? m->cur.nvals : e->nvals;
  if (!m->opt.no_equivalence && nreus) {
    uint8_t *r = realloc(m->cur_reus, nreus);
    if (!r) return;
    if (e->unobserved)
      memset(r, 0, nreus);
    else
      memcpy(r, e->reusable, nreus);
    m->cur_reus = r;
    m->ncur_reus = nreus;
  }
}

/* Make candidate s valid (calls using what is gone are dropped); invalid:
 * known not to be valid (repairing copies the whole sequence). */
static void repair(sf_mutator *m, sf_seq *s, bool invalid) {
  if (invalid || sf_seq_validate(s, NULL, 0) != 0) {
    int dropped = sf_seq_repair(s);
    if (dropped < 0) sf_seq_clear(s);
    if (dropped > 0) m->stats.pruned_illegal++;
  }
}

/* Repair, bound the length, encode into out. Most candidates are valid as
 * built: they are checked and encoded in one pass, and only the others
 * repaired (which copies the whole sequence) and encoded again. */
size_t sf_mut_finish(sf_mutator *m, sf_seq *s, uint8_t *out, size_t max_size) {
  if (max_size < SF_HEADER_SIZE) return 0;
  s->observed = m->opt.observed_outputs;
  sf_buf_reset(&m->enc);
  bool too_long = s->ncalls > m->opt.max_calls;
  int checked = too_long ? 1 : sf_seq_encode_checked(s, &m->enc);
  if (checked < 0) return 0;
  if (checked > 0) {
    repair(m, s, !too_long);
    sf_seq_truncate(s, m->opt.max_calls);
    sf_buf_reset(&m->enc);
    if (sf_seq_encode(s, &m->enc)) return 0;
  }
  while (m->enc.len > max_size) {
    /* Too big: drop calls from the end (a prefix stays valid). */
    if (s->ncalls == 0) return 0;
    sf_seq_truncate(s, s->ncalls / 2);
    sf_buf_reset(&m->enc);
    if (sf_seq_encode(s, &m->enc)) return 0;
  }
  memcpy(out, m->enc.data, m->enc.len);
  return m->enc.len;
}

/* Emit out unless it was emitted before (equivalence pruning (a)); returns
 * false to ask for another candidate. On the last try a repeat is emitted,
 * or with skip_repeats dropped (*n set to 0). */
bool sf_mut_accept(sf_mutator *m, const uint8_t *out, size_t *n, bool last_try) {
  m->stats.candidates++;
  if (*n == 0 || m->opt.no_equivalence) return true;
  if (sf_hashset_insert(m->emitted, sf_hash_bytes(out, *n, 0))) return true;
  m->stats.pruned_equiv++;
  if (last_try && m->opt.skip_repeats) *n = 0;
  return last_try;
}

/* n: the output's size; in: the size of the input it was made from. */
void sf_mut_count_output(sf_mutator *m, const uint8_t *out, size_t n, size_t in) {
  if (!n) return;
  m->stats.mutations++;
  m->stats.calls_emitted += m->next.ncalls;
  m->last_out = sf_feedback_input_hash(out, n);
  m->last_out_valid = true;
  sf_sched_emitted(&m->sched, m->last_out, m->last_mut, n < in, m->last_site, m->last_func);
  if (n < in) {
    m->smaller[m->last_out % SMALLER_OUTPUTS].hash = m->last_out;
    m->smaller[m->last_out % SMALLER_OUTPUTS].ran = false;
  }
}

#define CANDIDATE_TRIES 4

/* sf_mut_finish for a mutation's candidate: within length control's cap.
 * The stateful stage's and the answer trials' outputs are not: they run a
 * pool entry as it is, or with one call added or changed. */
static size_t finish_mutation(sf_mutator *m, sf_seq *s, uint8_t *out, size_t max_size) {
  sf_seq_truncate(s, m->len_cap);
  return sf_mut_finish(m, s, out, max_size);
}

/* The next mutation of m->cur (the schedule's choice unless opt.only). */
static sf_mutation next_mutation(sf_mutator *m, bool crossover) {
  if (m->opt.only != SF_MUT_MIX) return m->opt.only;
  uint32_t dc, dp;
  return sf_sched_pick(&m->sched, &m->rng, m->cur.ncalls, longest_bytes_arg(&m->cur, &dc, &dp),
                       m->cur.ncalls < m->len_cap, crossover);
}

/* Mutate m->cur (loaded from in_size bytes) into out; first_op: the first
 * candidate's mutation. */
static size_t mutate_loaded(sf_mutator *m, sf_mutation first_op, size_t in_size, uint8_t *out,
                            size_t max_size) {
  size_t n = 0;
  for (int t = 0; t < CANDIDATE_TRIES; t++) {
    int rc;
    sf_mutation op = t == 0 ? first_op : next_mutation(m, false);
    m->last_site = SF_SCHED_NO_SITE;
    m->last_func = SF_SCHED_NO_FUNC;
    if (op == SF_MUT_SPLICE && !sf_pool_size(m->pool))
      op = m->cur.ncalls < m->len_cap ? SF_MUT_REPEAT : SF_MUT_CHANGE;
    switch (op) {
    case SF_MUT_INSERT:
      rc = mut_insert(m, false);
      break;
    case SF_MUT_REMOVE:
      rc = mut_remove(m);
      break;
    case SF_MUT_CHANGE:
    case SF_MUT_DOCUMENT:
      rc = mut_arg(m, op == SF_MUT_DOCUMENT);
      break;
    case SF_MUT_REPEAT:
      rc = mut_repeat(m);
      break;
    case SF_MUT_SPLICE: {
      const sf_pool_entry *e = sf_pool_pick(m->pool, sf_rng_next(&m->rng));
      if (sf_mut_decode(m, &m->other, e->data, e->size, e->hash) != SF_DECODE_OK)
        sf_seq_clear(&m->other);
      if (!m->opt.no_legality && e->legal_calls < m->other.ncalls)
        sf_seq_truncate(&m->other, e->legal_calls);
      rc = splice(m, e->reusable, m->opt.no_equivalence ? 0 : e->nvals);
      break;
    }
    default:
      rc = mut_insert(m, true);
    }
    if (!rc && sf_mut_has_costly_call(m, &m->next)) { /* valid first: shedding copies it */
      repair(m, &m->next, false);
      if (sf_mut_shed_costly(m, &m->next, &m->other) < 0) rc = -1;
    }
    if (rc) sf_seq_clear(&m->next);
    m->last_mut = op;
    n = finish_mutation(m, &m->next, out, max_size);
    if (sf_mut_accept(m, out, &n, t == CANDIDATE_TRIES - 1)) break;
  }
  sf_mut_count_output(m, out, n, in_size);
  return n;
}

/* Entry e with one to four flags of one of its calls' flags arguments
 * turned (toggle_flag), into m->next; false when it has none. */
static bool with_other_options(sf_mutator *m, const sf_pool_entry *e) {
  load_input(m, e->data, e->size);
  if (copy_cur(m)) return false;
  sf_seq *s = &m->next;
  uint32_t seen = 0, pick = UINT32_MAX;
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    for (uint32_t i = 0; i < f->nparams; i++)
      if (f->params[i].kind == SF_FLAGS && sf_param_is_input(&f->params[i])) {
        if (sf_rng_below(&m->rng, ++seen) == 0) pick = ci;
        break;
      }
  }
  if (pick == UINT32_MAX) return false;
  const sf_func *f = sf_seq_func(s, pick);
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == SF_FLAGS && sf_param_is_input(&f->params[i]))
      for (uint32_t t = 1 + (uint32_t)sf_rng_below(&m->rng, 4); t; t--)
        toggle_flag(m, &f->params[i], &sf_seq_args(s, pick)[i]);
  return true;
}

/* The next queued trial that applies, if any (its entry's sequence with an
 * answer pair applied, or under other options), in out (its size
 * returned); 0 when none is left. */
static size_t next_trial(sf_mutator *m, uint8_t *out, size_t max_size) {
  while (m->ntrials) {
    uint64_t h = m->trials[m->next_trial].hash;
    uint32_t k = m->trials[m->next_trial].pair;
    m->next_trial = (m->next_trial + 1) % SF_TRIALS;
    m->ntrials--;
    const sf_pool_entry *e = sf_pool_find(m->pool, h);
    if (!e) continue;
    if (k == OPTION_TRIAL) {
      if (!with_other_options(m, e)) continue;
      m->last_op = "option-trial";
    } else {
      /* A compared pair of e, copied first: loading an input may add to
       * the pool, which e points into. */
      uint32_t kind = trial_kind(k), i = k & ~kind;
      sf_bytes_cmp c;
      uint64_t pair[2];
      if (kind == BYTES_TRIAL && i < e->nbytes_cmp)
        c = e->bytes_cmp[i];
      else if (kind == ARG_TRIAL && i < e->narg_cmp)
        memcpy(pair, e->arg_cmp[i], sizeof pair);
      else if (kind == ANSWER_TRIAL && i < e->nanswer_cmp)
        memcpy(pair, e->answer_cmp[i], sizeof pair);
      else
        continue;
      load_input(m, e->data, e->size);
      if (copy_cur(m) || apply_pair(m, &m->next, kind, &c, pair) != 1) continue;
      m->last_op = kind == BYTES_TRIAL ? "bytes-trial"
                   : kind == ARG_TRIAL ? "arg-trial"
                                       : "answer-trial";
    }
    m->last_mut = SF_MUT_CHANGE;
    m->last_site = SF_SCHED_NO_SITE;
    m->last_func = SF_SCHED_NO_FUNC;
    size_t n = sf_mut_finish(m, &m->next, out, max_size);
    if (!sf_mut_accept(m, out, &n, false)) continue;
    sf_mut_count_output(m, out, n, e->size);
    if (k == OPTION_TRIAL)
      m->stats.option_trials++;
    else
      count_trial(m, trial_kind(k));
    return n;
  }
  return 0;
}

/* Length control (mutate.h): grow the cap by log2 of itself once
 * len_control times that log of outputs brought no corpus entry that
 * reached new code. Entries that only hit known code more often keep
 * coming at short lengths (a loop's count): counted, they held the cap
 * down and a cursor's bug, which needs a dozen calls, took four times the
 * executions. */
static void control_length(sf_mutator *m) {
  if (m->len_cap >= m->opt.max_calls) return;
  uint32_t lg = 31 - (uint32_t)__builtin_clz(m->len_cap | 1);
  if (m->stats.mutations - m->last_new_at <= (uint64_t)m->opt.len_control * lg) return;
  m->len_cap += lg ? lg : 1;
  if (m->len_cap > m->opt.max_calls) m->len_cap = m->opt.max_calls;
  m->last_new_at = m->stats.mutations;
}

size_t sf_mutator_mutate(sf_mutator *m, const uint8_t *data, size_t size, uint8_t *out,
                         size_t max_size, uint64_t seed) {
  sf_rng_seed(&m->rng, seed);
  control_length(m);
  size_t n = sf_mut_stateful_stage(m, out, max_size);
  if (n) return n;
  n = next_trial(m, out, max_size);
  if (n) return n;
  load_input(m, data, size);
  return mutate_loaded(m, next_mutation(m, false), size, out, max_size);
}

size_t sf_mutator_crossover(sf_mutator *m, const uint8_t *d1, size_t s1, const uint8_t *d2,
                            size_t s2, uint8_t *out, size_t max_size, uint64_t seed) {
  sf_rng_seed(&m->rng, seed);
  control_length(m);
  /* d1 is often the last output (libFuzzer stacks mutations): load_input
   * takes m->next then, which nothing before it changes. */
  uint32_t legal2;
  bool fails_last2; /* other's failed last call may stay last: splice puts it at the end */
  uint64_t refused2;
  uint64_t h2 = sf_feedback_input_hash(d2, s2);
  const sf_pool_entry *e2 = know_input(m, d2, s2, h2, &legal2, &fails_last2, &refused2);
  /* load_input after e2's flags are copied: it may add to the pool, which e2
   * points into. */
  const uint8_t *oreus = NULL;
  uint32_t noreus = 0;
  uint8_t *copy = NULL;
  if (e2 && !m->opt.no_equivalence && e2->nvals && (copy = malloc(e2->nvals))) {
    memcpy(copy, e2->reusable, e2->nvals);
    oreus = copy;
    noreus = e2->nvals;
  }
  load_input(m, d1, s1);
  /* The engine asks for a crossover; the schedule may prefer a mutation of
   * the first input, when crossovers have paid less. */
  sf_mutation op = m->opt.only == SF_MUT_MIX ? next_mutation(m, true) : SF_MUT_CROSSOVER;
  if (op != SF_MUT_CROSSOVER) {
    free(copy);
    return mutate_loaded(m, op, s1, out, max_size);
  }
  /* Decoded only now: the schedule turns most of the engine's crossovers
   * into mutations, and a decode of d2 costs about as much as one. */
  if (sf_mut_decode(m, &m->other, d2, s2, h2) != SF_DECODE_OK) sf_seq_clear(&m->other);
  if (!m->opt.no_legality && legal2 < m->other.ncalls) sf_seq_truncate(&m->other, legal2);
  size_t n = 0;
  m->last_mut = SF_MUT_CROSSOVER;
  m->last_site = SF_SCHED_NO_SITE;
  m->last_func = SF_SCHED_NO_FUNC;
  for (int t = 0; t < CANDIDATE_TRIES; t++) {
    if (splice(m, oreus, noreus)) sf_seq_clear(&m->next);
    n = finish_mutation(m, &m->next, out, max_size);
    if (sf_mut_accept(m, out, &n, t == CANDIDATE_TRIES - 1)) break;
  }
  free(copy);
  sf_mut_count_output(m, out, n, s1);
  return n;
}
