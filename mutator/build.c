/* Building sequences: Randoop's extension step (append a call whose handle
 * arguments are alive values, made or spliced in when missing), copying
 * calls between sequences with value maps, reusable flags. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void sf_mut_set_reus(sf_mutator *m, uint32_t vid, uint8_t flag) {
  if (vid >= m->reuscap) {
    uint32_t c = m->reuscap ? m->reuscap : 64;
    while (c <= vid)
      c *= 2;
    uint8_t *r = realloc(m->reus, c);
    if (!r) return; /* flags are advice: missing ones read as reusable */
    memset(r + m->reuscap, 1, c - m->reuscap);
    m->reus = r;
    m->reuscap = c;
  }
  m->reus[vid] = flag;
}

static bool is_reusable(const sf_mutator *m, uint32_t vid) {
  return vid >= m->reuscap || m->reus[vid];
}

static uint32_t count_reusable(sf_mutator *m, uint32_t n) {
  uint32_t r = 0;
  for (uint32_t k = 0; k < n; k++)
    r += is_reusable(m, m->cands[k]);
  return r;
}

uint32_t sf_mut_candidates(sf_mutator *m, uint32_t htype) {
  if (m->ncap < m->life.n + 1) {
    uint32_t *c = realloc(m->cands, (m->life.n + 16) * sizeof *c);
    if (!c) return 0;
    m->cands = c;
    m->ncap = m->life.n + 16;
  }
  return sf_life_candidates(&m->life, htype, m->cands, m->ncap);
}

/* Candidates for handle parameter i of f that keep the call legal given
 * args[0..upto) (later arguments are not chosen yet), in m->cands, most
 * recent first. The consume rule (seq.h) rules out handing a consumed value
 * twice, consuming an owned one, and consuming the owner of another
 * argument: choosing among these, a draw is never wasted on an illegal
 * call. With `pruned`, when a value of the type is reusable only reusable
 * ones are kept (index pruning), even if none of them is legal here: the
 * caller then makes a fresh value rather than take a redundant one. */
uint32_t sf_mut_legal_candidates(sf_mutator *m, const sf_func *f, const sf_arg *args, uint32_t i,
                                 uint32_t upto, bool pruned) {
  uint32_t n = sf_mut_candidates(m, f->params[i].type_index);
  bool reus_only = pruned && count_reusable(m, n) > 0;
  sf_arg probe[64];
  memcpy(probe, args, upto * sizeof *probe);
  for (uint32_t j = upto; j < f->nparams; j++)
    probe[j].bits = SF_NULL_REF;
  uint32_t kept = 0;
  for (uint32_t k = 0; k < n; k++) {
    probe[i].bits = m->cands[k];
    if ((!reus_only || is_reusable(m, m->cands[k])) &&
        !sf_call_consume_conflict(&m->life, f, probe, NULL, NULL))
      m->cands[kept++] = m->cands[k];
  }
  return kept;
}

/* Scratch value map `which` (0 or 1) for n values, all DANGLING. */
uint64_t *sf_mut_make_map(sf_mutator *m, int which, uint32_t n) {
  if (m->mapcap[which] < n + 1) {
    uint64_t *p = realloc(m->maps[which], ((size_t)n + 16) * sizeof *p);
    if (!p) return NULL;
    m->maps[which] = p;
    m->mapcap[which] = n + 16;
  }
  uint64_t *map = m->maps[which];
  for (uint32_t i = 0; i <= n; i++)
    map[i] = DANGLING;
  return map;
}

/* Copy calls [from, to) of src onto dst, mapping values (map[src vid] = dst
 * vid; values of calls not copied keep what map holds, DANGLING by default)
 * and carrying reusable flags (src_reus NULL: all reusable). */
int sf_mut_copy_calls(sf_mutator *m, sf_seq *dst, const sf_seq *src, uint32_t from, uint32_t to,
                      uint64_t *map, const uint8_t *src_reus, uint32_t nsrc_reus) {
  for (uint32_t ci = from; ci < to; ci++) {
    uint32_t newval = dst->nvals;
    sf_arg *a = sf_seq_append_from(dst, src, ci, map);
    if (!a) return -1;
    const sf_func *f = sf_seq_func(src, ci);
    for (uint32_t k = 0; k < f->nproduced; k++) {
      uint32_t old = src->calls[ci].val0 + k;
      map[old] = newval + k;
      sf_mut_set_reus(m, newval + k, !src_reus || old >= nsrc_reus || src_reus[old]);
    }
    /* Lifetimes: a call with a dangling handle still produces its values (as
     * dead ones), so that value ids stay in step; repair drops it later. */
    bool ok = true;
    for (uint32_t i = 0; i < f->nparams; i++)
      if (f->params[i].kind == SF_HANDLE && sf_param_is_input(&f->params[i]) &&
          a[i].bits != SF_NULL_REF && a[i].bits >= dst->nvals)
        ok = false;
    sf_arg none[64];
    if (!ok) {
      for (uint32_t i = 0; i < f->nparams; i++)
        none[i].bits = SF_NULL_REF;
      a = none;
    }
    if (sf_life_apply(&m->life, dst->calls[dst->ncalls - 1].func, a)) return -1;
  }
  return 0;
}

/* Composition (Randoop's option b): append the legal calls of a pool entry
 * that has a reusable value of type htype (not a failed last call: the
 * caller's call comes after them). */
static bool splice_provider(sf_mutator *m, sf_seq *s, uint32_t htype) {
  for (int tries = 0; tries < 4; tries++) {
    const sf_pool_entry *e = sf_pool_pick(m->pool, sf_rng_next(&m->rng));
    if (!e || sf_mut_decode(m, &m->other, e->data, e->size, e->hash) != SF_DECODE_OK) return false;
    uint32_t ext = sf_pool_extendable(e);
    uint32_t upto = ext < m->other.ncalls ? ext : m->other.ncalls;
    if (upto == 0 || s->ncalls + upto > m->len_cap) continue;
    bool has = false;
    for (uint32_t v = 0; v < m->other.nvals && !has; v++)
      has = m->other.vals[v].htype == htype && m->other.vals[v].call < upto &&
            (v >= e->nvals || e->reusable[v]);
    if (!has) continue;
    uint64_t *map = sf_mut_make_map(m, 1, m->other.nvals);
    if (!map) return false;
    return sf_mut_copy_calls(m, s, &m->other, 0, upto, map, e->reusable, e->nvals) == 0;
  }
  return false;
}

/* Choose among alive candidates of a type: reusable ones when there are,
 * the newest half the time. */
uint32_t sf_mut_choose_value(sf_mutator *m, uint32_t n) {
  uint32_t nreus = 0;
  for (uint32_t k = 0; k < n; k++)
    nreus += is_reusable(m, m->cands[k]);
  if (nreus == 0 || nreus == n) {
    return m->cands[sf_rng_chance(&m->rng, 1, 2) ? 0 : sf_rng_below(&m->rng, n)];
  }
  uint64_t pick = sf_rng_chance(&m->rng, 1, 2) ? 0 : sf_rng_below(&m->rng, nreus);
  for (uint32_t k = 0; k < n; k++)
    if (is_reusable(m, m->cands[k]) && pick-- == 0) return m->cands[k];
  return m->cands[0];
}

/* Does e compare parameter pi with something an observer says (`i <
 * list_len(l)`)? Such an index is drawn small: states seen in runs are
 * small (a few elements), so small values pass the check at run time. */
static bool has_call(const sf_expr *e) {
  if (e->op == SF_E_CALL) return true;
  for (uint32_t k = 0; k < e->nkids; k++)
    if (has_call(e->kids[k])) return true;
  return false;
}

static bool bounded_by_state(const sf_expr *e, uint32_t pi) {
  if (e->op >= SF_E_EQ && e->op <= SF_E_GE && e->nkids == 2)
    for (int side = 0; side < 2; side++)
      if (e->kids[side]->op == SF_E_PARAM && e->kids[side]->index == pi && has_call(e->kids[!side]))
        return true;
  for (uint32_t k = 0; k < e->nkids; k++)
    if (bounded_by_state(e->kids[k], pi)) return true;
  return false;
}

/* Append a call of fi to s (whose lifetimes are in m->life). A handle
 * argument is an alive value of s (reusable ones first) or, when there is
 * none (or only non-reusable ones, half the time; or one time in eight at
 * the top level; neither with opt.no_fresh_values), a fresh one made by a
 * producer call or spliced in from the pool. False if it cannot be formed. */
bool sf_mut_append_call(sf_mutator *m, sf_seq *s, uint32_t fi, int depth) {
  return sf_mut_append_call_bound(m, s, fi, depth, NULL, 0);
}

bool sf_mut_append_call_bound(sf_mutator *m, sf_seq *s, uint32_t fi, int depth, const sf_arg *fixed,
                              uint64_t fixed_mask) {
  const sf_func *f = &m->api->funcs[fi];
  sf_arg args[64];
  memset(args, 0, sizeof args);
  m->reuse_call = UINT32_MAX;
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (!sf_param_is_input(p)) continue;
    if (i < 64 && (fixed_mask >> i & 1)) {
      args[i] = fixed[i];
      continue;
    }
    if (p->kind == SF_HANDLE) {
      uint32_t n = sf_mut_legal_candidates(m, f, args, i, i, true);
      if ((p->flags & SF_P_NULLABLE) && (n == 0 || sf_rng_chance(&m->rng, 1, 10))) {
        args[i].bits = SF_NULL_REF;
        continue;
      }
      bool want_fresh = n == 0 || (!m->opt.no_fresh_values &&
                                   ((count_reusable(m, n) == 0 && sf_rng_chance(&m->rng, 1, 2)) ||
                                    (depth == 0 && sf_rng_chance(&m->rng, 1, 8))));
      if (want_fresh && depth < MAX_PRODUCER_DEPTH) {
        bool made = false;
        if (!m->no_pool && sf_pool_size(m->pool) && sf_rng_chance(&m->rng, 1, 4))
          made = splice_provider(m, s, p->type_index);
        if (!made && m->nproducers[p->type_index]) {
          uint32_t pf =
              m->producers[p->type_index][sf_rng_below(&m->rng, m->nproducers[p->type_index])];
          made = sf_mut_append_call(m, s, pf, depth + 1);
        }
        n = sf_mut_legal_candidates(m, f, args, i, i, true);
        if (made && n) {
          args[i].bits = m->cands[0]; /* the newest */
          continue;
        }
      }
      if (n == 0) return false;
      args[i].bits = sf_mut_choose_value(m, n);
    } else if (p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY) {
      if (sf_mut_gen_bytes(m, s, f, p, args, &args[i])) return false;
    } else {
      args[i].bits = sf_mut_gen_prim(m, p);
      for (uint32_t k = 0; k < f->nrequires && sf_kind_is_int(p->kind); k++)
        if (bounded_by_state(f->requires[k].expr, i) && sf_rng_chance(&m->rng, 1, 2)) {
          args[i].bits = sf_arg_prim_repair(m->api, p, sf_rng_below(&m->rng, 8));
          break;
        }
    }
  }
  /* Relations between the arguments (`requires lo <= hi`, `a != b`): draw
   * the values again, and the handles among those already chosen, until
   * they hold (an observer's part is left to the run). */
  for (int tries = 0; f->nrequires && tries < 16 && !sf_call_requires_possible(s, fi, args);
       tries++) {
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (!sf_param_is_input(p) || (i < 64 && (fixed_mask >> i & 1))) continue;
      if (p->kind == SF_HANDLE) {
        uint32_t n = sf_mut_legal_candidates(m, f, args, i, i, false);
        if (n) args[i].bits = m->cands[sf_rng_below(&m->rng, n)];
      } else if (p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY) {
        if (sf_mut_gen_bytes(m, s, f, p, args, &args[i])) return false;
      } else {
        args[i].bits = sf_mut_gen_prim(m, p);
      }
    }
  }
  /* A handle argument may have been consumed by a call made for a later
   * parameter: check before committing. */
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (p->kind == SF_HANDLE && sf_param_is_input(p) && args[i].bits != SF_NULL_REF &&
        !sf_life_usable(&m->life, args[i].bits, p->type_index))
      return false;
  }
  if (sf_call_consume_conflict(&m->life, f, args, NULL, NULL)) return false;
  if (f->nrequires && !sf_call_requires_possible(s, fi, args)) return false;
  sf_arg *a = sf_seq_add_call(s, fi);
  if (!a) return false;
  memcpy(a, args, f->nparams * sizeof *a);
  for (uint32_t k = 0; k < f->nproduced; k++)
    sf_mut_set_reus(m, s->calls[s->ncalls - 1].val0 + k, 1);
  return sf_life_apply(&m->life, fi, a) == 0;
}

uint32_t sf_mut_random_func(sf_mutator *m) {
  return (uint32_t)sf_rng_below(&m->rng, m->api->nfuncs);
}

/* Start building m->next from scratch. */
void sf_mut_begin_next(sf_mutator *m) {
  m->last_out_valid = false; /* m->next no longer holds the last output */
  sf_seq_clear(&m->next);
  sf_life_clear(&m->life);
}

#define FOREIGN_CALLS 4

/* Inputs interpreted before, kept by their hash: the engine draws its corpus
 * entries again and again (libFuzzer by weight, a crossover's second input
 * among them), and decoding one (its lifetimes simulated, its handles
 * chosen among the live values) cost as much as the mutation made of it: on
 * cJSON the mutator's decodes were a quarter of its time. A slot holds the
 * last input whose hash maps to it; the sequences are bounded by the
 * mutator's inputs, so the whole is a few MiB. */
#define LOADED_SLOTS 4096

typedef struct loaded_slot {
  uint64_t hash;
  size_t size;
  bool used;
  bool generated; /* not a seqfuzz input: the sequence sf_mutator_interpret made of it */
  sf_seq seq;
} loaded_slot;

typedef struct sf_loaded {
  loaded_slot slot[LOADED_SLOTS];
} sf_loaded;

void sf_mut_loaded_free(sf_mutator *m) {
  if (!m->loaded) return;
  for (size_t i = 0; i < LOADED_SLOTS; i++)
    sf_seq_free(&m->loaded->slot[i].seq);
  free(m->loaded);
  m->loaded = NULL;
}

/* Copies the kept sequence of the input (hash h, size bytes) into s: true
 * when one was kept (a generated one only if generated_too). *slotp: the
 * input's slot, for loaded_keep (NULL: no cache). */
static bool loaded_copy(sf_mutator *m, uint64_t h, size_t size, sf_seq *s, bool generated_too,
                        loaded_slot **slotp) {
  if (!m->loaded) m->loaded = calloc(1, sizeof *m->loaded); /* NULL: decode every time */
  m->stats.loads++;
  loaded_slot *slot = *slotp = m->loaded ? &m->loaded->slot[h % LOADED_SLOTS] : NULL;
  if (!slot || !slot->used || slot->hash != h || slot->size != size ||
      (slot->generated && !generated_too) || sf_seq_copy(s, &slot->seq))
    return false;
  m->stats.loads_cached++;
  return true;
}

static void loaded_keep(loaded_slot *slot, uint64_t h, size_t size, const sf_seq *s,
                        bool generated) {
  if (!slot) return;
  slot->used = sf_seq_copy(&slot->seq, s) == 0;
  slot->hash = h;
  slot->size = size;
  slot->generated = generated;
}

sf_decode_status sf_mut_decode(sf_mutator *m, sf_seq *s, const uint8_t *data, size_t size,
                               uint64_t h) {
  loaded_slot *slot;
  if (loaded_copy(m, h, size, s, false, &slot)) return SF_DECODE_OK;
  sf_decode_status st = sf_seq_decode(s, m->api, data, size);
  if (st == SF_DECODE_OK) loaded_keep(slot, h, size, s, false);
  return st;
}

int sf_mut_interpret(sf_mutator *m, sf_seq *s, const uint8_t *data, size_t size, uint64_t h) {
  loaded_slot *slot;
  if (loaded_copy(m, h, size, s, true, &slot)) return 0;
  sf_decode_status st = sf_seq_decode(s, m->api, data, size);
  if (st == SF_DECODE_OOM) return -1;
  if (st == SF_DECODE_REJECT && size > 0) {
    /* Deterministic: the same bytes mean the same sequence in every
     * process, so no splicing from the pool (its contents differ between
     * processes), and the caller's random stream is left as it was. */
    sf_rng saved = m->rng;
    m->no_pool = true;
    int rc = sf_mutator_generate(m, s, FOREIGN_CALLS, h);
    m->no_pool = false;
    m->rng = saved;
    if (rc) return rc;
  }
  /* (An empty input is the empty sequence: libFuzzer runs it first.) */
  loaded_keep(slot, h, size, s, st != SF_DECODE_OK);
  return 0;
}

int sf_mutator_interpret(sf_mutator *m, sf_seq *s, const uint8_t *data, size_t size) {
  return sf_mut_interpret(m, s, data, size, sf_feedback_input_hash(data, size));
}

int sf_mutator_generate(sf_mutator *m, sf_seq *s, uint32_t ncalls, uint64_t seed) {
  sf_rng_seed(&m->rng, seed);
  sf_seq_clear(s);
  sf_life_clear(&m->life);
  for (uint32_t i = 0; i < ncalls * 4 && s->ncalls < ncalls; i++)
    sf_mut_append_call(m, s, sf_mut_random_func(m), 0);
  return sf_seq_repair(s) < 0 ? -1 : 0;
}
