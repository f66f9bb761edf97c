/* The stateful testing stage (contracts/contracts.h): what the mutator
 * learns from runs that recorded calls, and the sequences it builds from
 * the plans that break inferred preconditions. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Coverage stalls when no entry reached a new edge for this many outputs
 * (counted, not timed: a run with a fixed seed stays reproducible). */
#define STALL_OUTPUTS 10000

void sf_mut_stateful_learn(sf_mutator *m, uint64_t hash, const uint8_t *d, size_t n,
                           const sf_feedback *fb) {
  if (!m->contracts || !fb->nobs) return;
  if (sf_mut_interpret(m, &m->learn_seq, d, n, hash)) return;
  sf_contracts_learn(m->contracts, hash, &m->learn_seq, fb);
}

void sf_mut_stateful_new_input(sf_mutator *m, uint64_t hash, const sf_feedback *fb) {
  if (!m->contracts) return;
  bool valid = sf_feedback_valid(fb, hash);
  /* Coverage grows while entries reach new code (where the build cannot
   * tell, every entry counts). */
  if (!valid || fb->new_edges) m->last_new = m->stats.mutations;
  /* AFL++: an entry whose record has no calls is run once more, recording
   * them (the target does when calls_wanted names it). */
  if (m->opt.probe_outputs && (!valid || !fb->nobs) && m->nprobes < SF_STATEFUL_PROBES)
    m->probes[m->nprobes++] = hash;
}

static bool entry_alive(void *ctx, uint64_t entry) {
  return entry == 0 || sf_pool_find(((sf_mutator *)ctx)->pool, entry) != NULL;
}

/* Value vid of entry e, as renamed in m->next by map (DANGLING if not). */
static uint64_t mapped(const uint64_t *map, uint32_t nvals, uint64_t vid) {
  return vid < nvals ? map[vid] : DANGLING;
}

/* Build the plan's sequence in m->next. 0, or -1 when it cannot be built. */
static int build_plan(sf_mutator *m, const sf_contract_plan *p) {
  sf_mut_begin_next(m);
  const sf_func *f = &m->api->funcs[p->func];
  sf_arg fixed[64];
  uint64_t mask = 0;
  memset(fixed, 0, sizeof fixed);
  uint64_t via_vid = DANGLING;
  if (p->prefix) {
    const sf_pool_entry *e = sf_pool_find(m->pool, p->entry);
    if (!e || sf_mut_decode(m, &m->other, e->data, e->size, e->hash) != SF_DECODE_OK) return -1;
    if (p->prefix > m->other.ncalls || p->prefix > sf_pool_extendable(e)) return -1;
    uint64_t *map = sf_mut_make_map(m, 0, m->other.nvals);
    if (!map || sf_mut_copy_calls(m, &m->next, &m->other, 0, p->prefix, map, NULL, 0)) return -1;
    for (uint32_t b = 0; b < p->nbind; b++) {
      uint32_t i = p->bind[b].param;
      if (i >= f->nparams || i >= 64) return -1;
      if (p->bind[b].how == SF_BIND_VALUE) {
        fixed[i].bits = mapped(map, m->other.nvals, p->bind[b].bits);
        if (fixed[i].bits == DANGLING) return -1;
      }
    }
    if (p->has_via) via_vid = mapped(map, m->other.nvals, p->via_vid);
  }
  for (uint32_t b = 0; b < p->nbind; b++) {
    uint32_t i = p->bind[b].param;
    if (i >= f->nparams || i >= 64) return -1;
    const sf_param *prm = &f->params[i];
    if (p->bind[b].how == SF_BIND_VALUE && prm->kind != SF_HANDLE) return -1;
    if (p->bind[b].how == SF_BIND_VALUE && !p->prefix) return -1;
    if (p->bind[b].how == SF_BIND_NULL) fixed[i].bits = SF_NULL_REF;
    if (p->bind[b].how == SF_BIND_INT) {
      fixed[i].bits = sf_arg_prim_repair(m->api, prm, p->bind[b].bits);
      if (fixed[i].bits != p->bind[b].bits) return -1; /* out of the grammar's range */
    }
    mask |= 1ull << i;
  }
  if (p->has_via) {
    /* The transition's call, on the bound value; its other handles are
     * values of the prefix of their types. */
    const sf_pool_entry *t = sf_pool_find(m->pool, p->via_entry);
    if (via_vid == DANGLING || !t ||
        sf_mut_decode(m, &m->other, t->data, t->size, t->hash) != SF_DECODE_OK ||
        p->via_call >= m->other.ncalls)
      return -1;
    const sf_func *g = sf_seq_func(&m->other, p->via_call);
    const sf_arg *ga = sf_seq_args(&m->other, p->via_call);
    uint64_t *vmap = sf_mut_make_map(m, 1, m->other.nvals);
    if (!vmap || p->via_slot >= g->nparams || g->params[p->via_slot].kind != SF_HANDLE) return -1;
    for (uint32_t i = 0; i < g->nparams; i++) {
      const sf_param *gp = &g->params[i];
      if (gp->kind != SF_HANDLE || !sf_param_is_input(gp) || ga[i].bits == SF_NULL_REF) continue;
      if (i == p->via_slot) {
        vmap[ga[i].bits] = via_vid;
        continue;
      }
      uint32_t n = sf_mut_candidates(m, gp->type_index);
      if (!n) return -1;
      vmap[ga[i].bits] = sf_mut_choose_value(m, n);
    }
    if (sf_mut_copy_calls(m, &m->next, &m->other, p->via_call, p->via_call + 1, vmap, NULL, 0))
      return -1;
  }
  return sf_mut_append_call_bound(m, &m->next, p->func, 0, fixed, mask) ? 0 : -1;
}

/* Does the built and repaired sequence still end with the plan's call, its
 * bound arguments as the plan says? */
static bool plan_intact(const sf_mutator *m, const sf_contract_plan *p, const sf_arg *want) {
  const sf_seq *s = &m->next;
  if (!s->ncalls || s->calls[s->ncalls - 1].func != p->func) return false;
  const sf_arg *a = sf_seq_args(s, s->ncalls - 1);
  for (uint32_t b = 0; b < p->nbind; b++)
    if (a[p->bind[b].param].bits != want[p->bind[b].param].bits) return false;
  return true;
}

/* A queued AFL++ probe: the entry's sequence, marked observed as every
 * AFL++ output is, run recording calls. */
static size_t next_probe(sf_mutator *m, uint8_t *out, size_t max_size) {
  while (m->nprobes) {
    uint64_t h = m->probes[--m->nprobes];
    const sf_pool_entry *e = sf_pool_find(m->pool, h);
    m->last_out_valid = false; /* m->next is about to change */
    if (!e || sf_mut_interpret(m, &m->next, e->data, e->size, h)) continue;
    size_t n = sf_mut_finish(m, &m->next, out, max_size);
    if (!n) continue;
    m->calls_wanted = sf_feedback_input_hash(out, n);
    m->probe_entry = h;
    m->last_out_valid = false;
    m->last_op = "contracts-probe";
    return n;
  }
  return 0;
}

size_t sf_mut_stateful_stage(sf_mutator *m, uint8_t *out, size_t max_size) {
  if (!m->contracts) return 0;
  m->calls_wanted = 0;
  size_t n = next_probe(m, out, max_size);
  if (n) return n;
  /* While coverage stalls, within the stage's share of the outputs. */
  if (m->plan_pending || m->stats.mutations - m->last_new < STALL_OUTPUTS) return 0;
  if (m->stats.contract_outputs * 100 > (m->stats.mutations + 1) * m->opt.contracts_percent)
    return 0;
  sf_contract_plan p;
  for (int tries = 0; tries < 4; tries++) {
    if (sf_contracts_plan(m->contracts, sf_rng_next(&m->rng), entry_alive, m, &p)) return 0;
    if (build_plan(m, &p)) {
      sf_contracts_outcome(m->contracts, &p, SF_PLAN_NOT_MADE);
      continue;
    }
    sf_arg want[64];
    memcpy(want, sf_seq_args(&m->next, m->next.ncalls - 1),
           m->api->funcs[p.func].nparams * sizeof *want);
    n = sf_mut_finish(m, &m->next, out, max_size);
    if (!n || !plan_intact(m, &p, want) || !sf_mut_accept(m, out, &n, false)) {
      sf_contracts_outcome(m->contracts, &p, SF_PLAN_NOT_MADE);
      continue;
    }
    m->plan = p;
    m->plan_pending = true;
    m->plan_hash = sf_feedback_input_hash(out, n);
    m->plan_call = m->next.ncalls - 1;
    m->stats.mutations++;
    m->stats.contract_outputs++;
    m->stats.calls_emitted += m->next.ncalls;
    m->last_out = m->plan_hash;
    m->last_out_valid = true;
    m->last_op = "contracts";
    return n;
  }
  return 0;
}

void sf_mut_stateful_note_run(sf_mutator *m, const sf_feedback *fb) {
  if (!m->contracts) return;
  if (m->plan_pending && sf_feedback_valid(fb, m->plan_hash)) {
    sf_plan_result r = SF_PLAN_NOT_MADE;
    if (fb->stop_call > m->plan_call)
      r = sf_feedback_fails_last(fb) && fb->stop_call == m->plan_call + 1 ? SF_PLAN_FAILED
                                                                          : SF_PLAN_RAN;
    sf_contracts_outcome(m->contracts, &m->plan, r);
    m->plan_pending = false;
  }
  m->plan_pending = false; /* answered, or its run was lost */
  /* AFL++: the record of a probe (calls_wanted: the output before this). */
  if (m->calls_wanted && sf_feedback_valid(fb, m->calls_wanted) && fb->nobs) {
    const sf_pool_entry *e = sf_pool_find(m->pool, m->probe_entry);
    if (e) sf_mut_stateful_learn(m, e->hash, e->data, e->size, fb); /* the same calls */
  }
  m->calls_wanted = 0;
}
