/* Contracts inferred from recorded calls, and plans that break them
 * (contract in contracts.h). */
#include "contracts.h"

#include <stdlib.h>
#include <string.h>

#include "../base/sf_hash.h"

#define MAX_SLOTS        4    /* handle parameters (and result) followed per function */
#define MAX_Q            8    /* numeric state observers followed per type */
#define MAX_ARGS         6    /* integer arguments followed per function */
#define STATES_PER_TYPE  256  /* stored states per handle type */
#define TRANS_PER_TYPE   256  /* stored transitions per handle type */
#define MAX_TRIES        8    /* plans per contract */
#define MAX_PLAN_MATCHES 64   /* stored states considered per plan */
#define SMALL_RANGE      1024 /* bounds are inferred on answers this close together */

/* Relation masks: what was seen of lhs against rhs. */
enum { REL_LT = 1, REL_EQ = 2, REL_GT = 4, REL_ALL = 7 };

typedef struct var_sum {
  uint64_t n;
  int64_t min, max, first;
  bool varied;
} var_sum;

typedef struct pair_sum {
  uint64_t n;
  uint8_t mask;
  bool delta_varied;
  int64_t delta; /* lhs - rhs of the first pair */
} pair_sum;

typedef struct slot_info {
  uint8_t param; /* parameter index, or SF_OBS_RESULT */
  uint32_t htype;
  bool input, nullable;
} slot_info;

/* What the calls of one function showed. */
typedef struct func_sum {
  bool dirty; /* learned from since contracts were last derived */
  uint32_t nslots, nargs;
  slot_info slots[MAX_SLOTS];
  uint8_t args[MAX_ARGS]; /* integer parameters */
  var_sum pre[MAX_SLOTS][MAX_Q], post[MAX_SLOTS][MAX_Q];
  pair_sum arg_pre[MAX_ARGS][MAX_SLOTS][MAX_Q];
  pair_sum post_pre[MAX_SLOTS][MAX_Q];
  pair_sum post_arg[MAX_SLOTS][MAX_Q][MAX_ARGS];
  uint64_t null_n[MAX_SLOTS], nonnull_n[MAX_SLOTS];
  uint64_t same_n[MAX_SLOTS][MAX_SLOTS], diff_n[MAX_SLOTS][MAX_SLOTS];
  uint32_t *contracts; /* indexes into c->ct, every one ever reported */
  uint32_t ncontracts, ctcap;
} func_sum;

/* The numeric state observers of a handle type. */
typedef struct type_obs {
  uint32_t nq;
  uint32_t func[MAX_Q];             /* observer function of q */
  int8_t q_of[SF_FB_MAX_OBSERVERS]; /* record's observer index -> q, or -1 */
  bool is_signed[MAX_Q];
} type_obs;

typedef struct stored_state {
  uint64_t hash, entry;
  uint32_t prefix, vid, known;
  int64_t vals[MAX_Q];
} stored_state;

typedef struct transition {
  uint64_t pre_hash, entry;
  uint32_t func, param, call, known;
  int64_t post[MAX_Q];
} transition;

typedef struct type_store {
  stored_state st[STATES_PER_TYPE];
  uint32_t nst, nextst;
  transition tr[TRANS_PER_TYPE];
  uint32_t ntr, nexttr;
} type_store;

typedef enum ct_kind {
  CT_PRE_EQ,       /* obs(p) == c */
  CT_PRE_GE,       /* obs(p) >= c */
  CT_PRE_LE,       /* obs(p) <= c */
  CT_ARG_REL,      /* arg REL obs(p) */
  CT_NONNULL,      /* p != null */
  CT_DISTINCT,     /* p != p2 */
  CT_POST_EQ,      /* obs(p) == c after */
  CT_POST_DELTA,   /* obs(p) == old(obs(p)) + c */
  CT_POST_OLD_REL, /* obs(p) REL old(obs(p)) */
  CT_POST_ARG_REL, /* obs(p) REL arg after */
} ct_kind;

typedef enum ct_status { CT_HOLDS, CT_REFUTED_RUN, CT_REFUTED_RAN, CT_REFUTED_FAILED } ct_status;

typedef struct contract {
  uint64_t key;
  uint32_t func;
  uint8_t kind, slot, q, arg, slot2, rel;
  int64_t c;
  uint64_t support;
  uint8_t status;
  bool seen; /* derivation scratch */
  uint32_t tries;
  uint64_t miss_version; /* store version of the last plan that found nothing (+1) */
} contract;

struct sf_contracts {
  const sf_api *api;
  func_sum **funcs; /* per function, made when first learned from */
  type_obs *tobs;   /* per handle type */
  type_store **store;
  contract *ct;
  uint32_t nct, ctcap;
  uint64_t store_version;
  uint32_t capacity; /* states per type */
  sf_contracts_stats stats;
};

sf_contracts *sf_contracts_new(const sf_api *api) {
  sf_contracts *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->api = api;
  c->capacity = STATES_PER_TYPE;
  c->funcs = calloc(api->nfuncs + 1, sizeof *c->funcs);
  c->tobs = calloc(api->nhandles + 1, sizeof *c->tobs);
  c->store = calloc(api->nhandles + 1, sizeof *c->store);
  if (!c->funcs || !c->tobs || !c->store) {
    sf_contracts_free(c);
    return NULL;
  }
  for (uint32_t h = 0; h < api->nhandles; h++) {
    type_obs *t = &c->tobs[h];
    uint32_t fns[SF_FB_MAX_OBSERVERS];
    uint32_t n = sf_api_state_observers(api, h, fns, SF_FB_MAX_OBSERVERS);
    memset(t->q_of, -1, sizeof t->q_of);
    for (uint32_t k = 0; k < n && k < SF_FB_MAX_OBSERVERS && t->nq < MAX_Q; k++) {
      const sf_param *r = &api->funcs[fns[k]].ret;
      sf_kind kind = r->kind == SF_ENUM ? api->enums[r->type_index].base : r->kind;
      if (!sf_kind_is_int(kind) && kind != SF_BOOL) continue; /* as the executor keeps them */
      t->q_of[k] = (int8_t)t->nq;
      t->is_signed[t->nq] = sf_kind_is_signed(kind);
      t->func[t->nq++] = fns[k];
    }
  }
  return c;
}

void sf_contracts_set_capacity(sf_contracts *c, uint32_t n) {
  c->capacity = n && n < STATES_PER_TYPE ? n : STATES_PER_TYPE;
}

void sf_contracts_free(sf_contracts *c) {
  if (!c) return;
  for (uint32_t i = 0; c->funcs && i < c->api->nfuncs; i++) {
    if (c->funcs[i]) free(c->funcs[i]->contracts);
    free(c->funcs[i]);
  }
  for (uint32_t h = 0; c->store && h < c->api->nhandles; h++)
    free(c->store[h]);
  free(c->funcs);
  free(c->tobs);
  free(c->store);
  free(c->ct);
  free(c);
}

/* ---- learning ----------------------------------------------------------- */

static bool is_int_param(const sf_param *p) {
  if (!sf_param_is_input(p) || (p->flags & (SF_P_CONST | SF_P_LENGTH | SF_P_GIVEN))) return false;
  return sf_kind_is_int(p->kind) || p->kind == SF_BOOL; /* an enum's argument is its index */
}

static func_sum *func_get(sf_contracts *c, uint32_t fi) {
  if (c->funcs[fi]) return c->funcs[fi];
  func_sum *fs = calloc(1, sizeof *fs);
  if (!fs) return NULL;
  const sf_func *f = &c->api->funcs[fi];
  if (f->ret.kind == SF_HANDLE)
    fs->slots[fs->nslots++] = (slot_info){SF_OBS_RESULT, f->ret.type_index, false, false};
  for (uint32_t i = 0; i < f->nparams && i < SF_OBS_RESULT; i++) {
    const sf_param *p = &f->params[i];
    if (p->kind == SF_HANDLE && fs->nslots < MAX_SLOTS)
      fs->slots[fs->nslots++] = (slot_info){(uint8_t)i, p->type_index, sf_param_is_input(p),
                                            (p->flags & SF_P_NULLABLE) != 0};
    else if (is_int_param(p) && fs->nargs < MAX_ARGS)
      fs->args[fs->nargs++] = (uint8_t)i;
  }
  return c->funcs[fi] = fs;
}

static int slot_of(const func_sum *fs, uint8_t param) {
  for (uint32_t s = 0; s < fs->nslots; s++)
    if (fs->slots[s].param == param) return (int)s;
  return -1;
}

static void var_add(var_sum *v, int64_t x) {
  if (v->n == 0) {
    v->min = v->max = v->first = x;
  } else {
    if (x != v->first) v->varied = true;
    if (x < v->min) v->min = x;
    if (x > v->max) v->max = x;
  }
  v->n++;
}

static void pair_add(pair_sum *p, int64_t lhs, int64_t rhs) {
  int64_t d = (int64_t)((uint64_t)lhs - (uint64_t)rhs);
  if (p->n == 0)
    p->delta = d;
  else if (d != p->delta)
    p->delta_varied = true;
  p->mask |= lhs < rhs ? REL_LT : lhs == rhs ? REL_EQ : REL_GT;
  p->n++;
}

/* One call's observations, by slot and q. */
typedef struct call_obs {
  uint32_t pre_known[MAX_SLOTS], post_known[MAX_SLOTS], vid[MAX_SLOTS];
  int64_t pre[MAX_SLOTS][MAX_Q], post[MAX_SLOTS][MAX_Q];
} call_obs;

static uint64_t state_hash(uint32_t htype, uint32_t known, const int64_t *vals) {
  uint64_t h = sf_hash_mix(0x57a7e, ((uint64_t)htype << 32) | known);
  for (uint32_t q = 0; q < MAX_Q; q++)
    if (known >> q & 1) h = sf_hash_mix(h, (uint64_t)vals[q]);
  return h;
}

static type_store *store_get(sf_contracts *c, uint32_t htype) {
  if (!c->store[htype]) c->store[htype] = calloc(1, sizeof(type_store));
  return c->store[htype];
}

/* Keep a state (the newest entry that made it: the pool keeps newer ones). */
static void store_state(sf_contracts *c, uint32_t htype, uint32_t known, const int64_t *vals,
                        uint64_t entry, uint32_t prefix, uint32_t vid) {
  type_store *ts = store_get(c, htype);
  if (!ts) return;
  uint64_t h = state_hash(htype, known, vals);
  stored_state *slot = NULL;
  for (uint32_t i = 0; i < ts->nst && !slot; i++)
    if (ts->st[i].hash == h) slot = &ts->st[i];
  if (!slot) {
    if (ts->nst < c->capacity) {
      slot = &ts->st[ts->nst++];
    } else {
      slot = &ts->st[ts->nextst];
      ts->nextst = (ts->nextst + 1) % c->capacity;
    }
    c->store_version++;
  }
  slot->hash = h;
  slot->entry = entry;
  slot->prefix = prefix;
  slot->vid = vid;
  slot->known = known;
  memcpy(slot->vals, vals, sizeof slot->vals);
}

static void store_transition(sf_contracts *c, uint32_t htype, uint64_t pre_hash, uint32_t fi,
                             uint32_t param, uint64_t entry, uint32_t call, uint32_t known,
                             const int64_t *post) {
  type_store *ts = store_get(c, htype);
  if (!ts) return;
  uint64_t post_hash = state_hash(htype, known, post);
  for (uint32_t i = 0; i < ts->ntr; i++) {
    transition *t = &ts->tr[i];
    if (t->pre_hash == pre_hash && t->func == fi && t->param == param &&
        state_hash(htype, t->known, t->post) == post_hash) {
      t->entry = entry; /* the newest example */
      t->call = call;
      return;
    }
  }
  transition *t;
  if (ts->ntr < TRANS_PER_TYPE) {
    t = &ts->tr[ts->ntr++];
  } else {
    t = &ts->tr[ts->nexttr];
    ts->nexttr = (ts->nexttr + 1) % TRANS_PER_TYPE;
  }
  *t = (transition){pre_hash, entry, fi, param, call, known, {0}};
  memcpy(t->post, post, sizeof t->post);
  c->store_version++;
}

static void learn_call(sf_contracts *c, uint64_t entry, const sf_seq *s, uint32_t ci,
                       const call_obs *co, bool passed, bool extendable) {
  uint32_t fi = s->calls[ci].func;
  func_sum *fs = func_get(c, fi);
  if (!fs) return;
  /* Observers are queries: the harness calls them on every state anyway. */
  if (sf_func_state_observer(&c->api->funcs[fi]) >= 0) return;
  const sf_arg *a = sf_seq_args(s, ci);
  fs->dirty = true;
  c->stats.calls++;
  int64_t args[MAX_ARGS];
  for (uint32_t j = 0; j < fs->nargs; j++)
    args[j] = (int64_t)a[fs->args[j]].bits;
  for (uint32_t si = 0; si < fs->nslots; si++) {
    const slot_info *sl = &fs->slots[si];
    if (!sl->input) continue;
    uint64_t bits = a[sl->param].bits;
    if (sl->nullable) {
      if (bits == SF_NULL_REF)
        fs->null_n[si]++;
      else
        fs->nonnull_n[si]++;
    }
    for (uint32_t s2 = si + 1; s2 < fs->nslots; s2++)
      if (fs->slots[s2].input && fs->slots[s2].htype == sl->htype && bits != SF_NULL_REF &&
          a[fs->slots[s2].param].bits != SF_NULL_REF) {
        if (a[fs->slots[s2].param].bits == bits)
          fs->same_n[si][s2]++;
        else
          fs->diff_n[si][s2]++;
      }
    for (uint32_t q = 0; q < MAX_Q; q++) {
      if (!(co->pre_known[si] >> q & 1)) continue;
      var_add(&fs->pre[si][q], co->pre[si][q]);
      for (uint32_t j = 0; j < fs->nargs; j++)
        pair_add(&fs->arg_pre[j][si][q], args[j], co->pre[si][q]);
    }
  }
  if (!passed) return;
  for (uint32_t si = 0; si < fs->nslots; si++) {
    uint32_t htype = fs->slots[si].htype;
    for (uint32_t q = 0; q < MAX_Q; q++) {
      if (!(co->post_known[si] >> q & 1)) continue;
      var_add(&fs->post[si][q], co->post[si][q]);
      if (co->pre_known[si] >> q & 1)
        pair_add(&fs->post_pre[si][q], co->post[si][q], co->pre[si][q]);
      for (uint32_t j = 0; j < fs->nargs; j++)
        pair_add(&fs->post_arg[si][q][j], co->post[si][q], args[j]);
    }
    if (co->post_known[si] && extendable)
      store_state(c, htype, co->post_known[si], co->post[si], entry, ci + 1, co->vid[si]);
    if (co->post_known[si] && co->pre_known[si] == co->post_known[si] &&
        memcmp(co->pre[si], co->post[si], sizeof co->pre[si]) != 0)
      store_transition(c, htype, state_hash(htype, co->pre_known[si], co->pre[si]), fi,
                       fs->slots[si].param, entry, ci, co->post_known[si], co->post[si]);
  }
}

void sf_contracts_learn(sf_contracts *c, uint64_t entry, const sf_seq *s, const sf_feedback *fb) {
  if (!c || !fb || fb->stop_call > s->ncalls || fb->nobs > SF_FB_MAX_OBS) return;
  uint32_t legal = fb->stop_call;
  bool fails_last = sf_feedback_fails_last(fb);
  c->stats.runs++;
  uint32_t o = 0;
  call_obs co;
  for (uint32_t ci = 0; ci < legal; ci++) {
    func_sum *fs = func_get(c, s->calls[ci].func);
    if (!fs) return;
    memset(&co, 0, sizeof co);
    for (; o < fb->nobs && fb->obs[o].call <= ci; o++) {
      const sf_fb_obs *ob = &fb->obs[o];
      if (ob->call != ci) continue; /* a call not made: never recorded */
      int si = slot_of(fs, ob->slot);
      if (si < 0 || ob->observer >= SF_FB_MAX_OBSERVERS) continue;
      int q = c->tobs[fs->slots[si].htype].q_of[ob->observer];
      if (q < 0) continue;
      co.vid[si] = ob->vid;
      if (ob->known & SF_OBS_PRE) {
        co.pre_known[si] |= 1u << q;
        co.pre[si][q] = ob->pre;
      }
      if (ob->known & SF_OBS_POST) {
        co.post_known[si] |= 1u << q;
        co.post[si][q] = ob->post;
      }
    }
    bool failed = fails_last && ci + 1 == legal;
    learn_call(c, entry, s, ci, &co, !failed, !failed);
  }
}

/* ---- inference ---------------------------------------------------------- */

static uint64_t contract_key(const contract *k) {
  uint64_t h = sf_hash_mix(0xc0417, k->func);
  h = sf_hash_mix(h, (uint64_t)k->kind << 40 | (uint64_t)k->slot << 32 | (uint64_t)k->q << 24 |
                         (uint64_t)k->arg << 16 | (uint64_t)k->slot2 << 8 | k->rel);
  return sf_hash_mix(h, (uint64_t)k->c);
}

/* Note candidate k of fs (support n) as holding, unless it was refuted. */
static void propose(sf_contracts *c, func_sum *fs, contract k, uint64_t n) {
  k.key = contract_key(&k);
  for (uint32_t i = 0; i < fs->ncontracts; i++) {
    contract *e = &c->ct[fs->contracts[i]];
    if (e->key != k.key) continue;
    e->seen = true;
    e->support = n;
    return;
  }
  if (c->nct == c->ctcap) {
    uint32_t cap = c->ctcap ? c->ctcap * 2 : 256;
    contract *p = realloc(c->ct, cap * sizeof *p);
    if (!p) return;
    c->ct = p;
    c->ctcap = cap;
  }
  if (fs->ncontracts == fs->ctcap) {
    uint32_t cap = fs->ctcap ? fs->ctcap * 2 : 16;
    uint32_t *p = realloc(fs->contracts, cap * sizeof *p);
    if (!p) return;
    fs->contracts = p;
    fs->ctcap = cap;
  }
  k.support = n;
  k.status = CT_HOLDS;
  k.seen = true;
  c->ct[c->nct] = k;
  fs->contracts[fs->ncontracts++] = c->nct++;
  c->stats.inferred++;
  c->stats.holding++;
}

static contract make(uint32_t fi, ct_kind kind, uint32_t slot, uint32_t q) {
  contract k;
  memset(&k, 0, sizeof k);
  k.func = fi;
  k.kind = (uint8_t)kind;
  k.slot = (uint8_t)slot;
  k.q = (uint8_t)q;
  return k;
}

static void derive(sf_contracts *c, uint32_t fi) {
  func_sum *fs = c->funcs[fi];
  fs->dirty = false;
  for (uint32_t i = 0; i < fs->ncontracts; i++)
    c->ct[fs->contracts[i]].seen = false;
  for (uint32_t si = 0; si < fs->nslots; si++) {
    const slot_info *sl = &fs->slots[si];
    uint32_t nq = c->tobs[sl->htype].nq;
    if (sl->input) {
      if (sl->nullable && fs->nonnull_n[si] >= SF_CONTRACT_SUPPORT && !fs->null_n[si])
        propose(c, fs, make(fi, CT_NONNULL, si, 0), fs->nonnull_n[si]);
      for (uint32_t s2 = si + 1; s2 < fs->nslots; s2++)
        if (fs->diff_n[si][s2] >= SF_CONTRACT_SUPPORT && !fs->same_n[si][s2]) {
          contract k = make(fi, CT_DISTINCT, si, 0);
          k.slot2 = (uint8_t)s2;
          propose(c, fs, k, fs->diff_n[si][s2]);
        }
      for (uint32_t q = 0; q < nq; q++) {
        const var_sum *v = &fs->pre[si][q];
        if (v->n < SF_CONTRACT_SUPPORT) continue;
        contract k = make(fi, CT_PRE_EQ, si, q);
        k.c = v->first;
        if (!v->varied) propose(c, fs, k, v->n);
        /* Bounds of a count or a size, not of a hash; and not the floor of
         * an unsigned answer (nothing is below it). */
        bool small = v->varied && (uint64_t)v->max - (uint64_t)v->min <= SMALL_RANGE;
        /* Arguments compare with counts and sizes, not flags or constants. */
        bool counts = small && (uint64_t)v->max - (uint64_t)v->min >= 2;
        if (small && (v->min > 0 || (v->min < 0 && c->tobs[sl->htype].is_signed[q]))) {
          k = make(fi, CT_PRE_GE, si, q);
          k.c = v->min;
          propose(c, fs, k, v->n);
        }
        if (small) {
          k = make(fi, CT_PRE_LE, si, q);
          k.c = v->max;
          propose(c, fs, k, v->n);
        }
        for (uint32_t j = 0; j < fs->nargs && counts; j++) {
          const pair_sum *p = &fs->arg_pre[j][si][q];
          if (p->n < SF_CONTRACT_SUPPORT || p->mask == REL_ALL) continue;
          k = make(fi, CT_ARG_REL, si, q);
          k.arg = (uint8_t)j;
          k.rel = p->mask;
          propose(c, fs, k, p->n);
        }
      }
    }
    for (uint32_t q = 0; q < nq; q++) {
      const var_sum *v = &fs->post[si][q];
      if (v->n < SF_CONTRACT_SUPPORT) continue;
      if (!v->varied) {
        contract k = make(fi, CT_POST_EQ, si, q);
        k.c = v->first;
        propose(c, fs, k, v->n);
      }
      const pair_sum *p = &fs->post_pre[si][q];
      /* A constant after the call says the rest; a hash compares with nothing. */
      if (!v->varied || (uint64_t)v->max - (uint64_t)v->min > SMALL_RANGE) continue;
      if (p->n >= SF_CONTRACT_SUPPORT && !p->delta_varied) {
        contract k = make(fi, CT_POST_DELTA, si, q);
        k.c = p->delta;
        propose(c, fs, k, p->n);
      } else if (p->n >= SF_CONTRACT_SUPPORT && p->mask != REL_ALL) {
        contract k = make(fi, CT_POST_OLD_REL, si, q);
        k.rel = p->mask;
        propose(c, fs, k, p->n);
      }
      for (uint32_t j = 0; j < fs->nargs && (uint64_t)v->max - (uint64_t)v->min >= 2; j++) {
        const pair_sum *pa = &fs->post_arg[si][q][j];
        if (pa->n < SF_CONTRACT_SUPPORT || pa->mask == REL_ALL) continue;
        contract k = make(fi, CT_POST_ARG_REL, si, q);
        k.arg = (uint8_t)j;
        k.rel = pa->mask;
        propose(c, fs, k, pa->n);
      }
    }
  }
  /* What held and no longer does was refuted by a run. */
  for (uint32_t i = 0; i < fs->ncontracts; i++) {
    contract *e = &c->ct[fs->contracts[i]];
    if (e->status == CT_HOLDS && !e->seen) {
      e->status = CT_REFUTED_RUN;
      c->stats.holding--;
      c->stats.refuted_runs++;
    }
  }
}

static void derive_dirty(sf_contracts *c) {
  for (uint32_t fi = 0; fi < c->api->nfuncs; fi++)
    if (c->funcs[fi] && c->funcs[fi]->dirty) derive(c, fi);
}

/* ---- plans -------------------------------------------------------------- */

static bool is_precondition(const contract *k) {
  return k->kind <= CT_DISTINCT;
}

/* Does value x break precondition k (a kind on an observer alone)? */
static bool breaks(const contract *k, int64_t x) {
  switch (k->kind) {
  case CT_PRE_EQ:
    return x != k->c;
  case CT_PRE_GE:
    return x < k->c;
  case CT_PRE_LE:
    return x > k->c;
  default:
    return false;
  }
}

static void bind(sf_contract_plan *p, uint32_t param, sf_plan_bind how, uint64_t bits) {
  if (p->nbind < 4) {
    p->bind[p->nbind].param = param;
    p->bind[p->nbind].how = how;
    p->bind[p->nbind].bits = bits;
    p->nbind++;
  }
}

/* A stored state of htype (alive, and breaking k when k constrains the
 * observer alone), chosen by r; NULL when none. */
static const stored_state *pick_state(sf_contracts *c, uint32_t htype, const contract *k,
                                      bool need_break, uint64_t r, sf_entry_alive_fn alive,
                                      void *ctx) {
  const type_store *ts = c->store[htype];
  if (!ts) return NULL;
  const stored_state *match[MAX_PLAN_MATCHES];
  uint32_t n = 0;
  for (uint32_t i = 0; i < ts->nst && n < MAX_PLAN_MATCHES; i++) {
    const stored_state *st = &ts->st[(i + r) % ts->nst];
    if (need_break && !((st->known >> k->q & 1) && breaks(k, st->vals[k->q]))) continue;
    if (!need_break && k && k->kind == CT_ARG_REL && !(st->known >> k->q & 1)) continue;
    if (alive && !alive(ctx, st->entry)) continue;
    match[n++] = st;
  }
  return n ? match[(r >> 8) % n] : NULL;
}

/* A transition of htype whose result breaks k, from a stored state (alive). */
static bool plan_via(sf_contracts *c, uint32_t htype, const contract *k, uint64_t r,
                     sf_entry_alive_fn alive, void *ctx, sf_contract_plan *p) {
  const type_store *ts = c->store[htype];
  if (!ts) return false;
  for (uint32_t i = 0; i < ts->ntr; i++) {
    const transition *t = &ts->tr[(i + r) % ts->ntr];
    if (!((t->known >> k->q & 1) && breaks(k, t->post[k->q]))) continue;
    if (alive && !alive(ctx, t->entry)) continue;
    for (uint32_t j = 0; j < ts->nst; j++) {
      const stored_state *st = &ts->st[j];
      if (st->hash != t->pre_hash || (alive && !alive(ctx, st->entry))) continue;
      p->entry = st->entry;
      p->prefix = st->prefix;
      p->has_via = true;
      p->via_entry = t->entry;
      p->via_call = t->call;
      p->via_slot = t->param;
      p->via_vid = st->vid;
      return true;
    }
  }
  return false;
}

/* An integer argument value that breaks `arg REL x` (as signed 64 bits). */
static bool breaking_arg(const sf_param *prm, uint8_t rel, int64_t x, uint64_t r, int64_t *out) {
  int64_t cand[3];
  int n = 0;
  if (!(rel & REL_LT) && x != INT64_MIN) cand[n++] = x - 1;
  if (!(rel & REL_EQ)) cand[n++] = x;
  if (!(rel & REL_GT) && x != INT64_MAX) cand[n++] = x + 1;
  for (int t = 0; t < n; t++) {
    int64_t v = cand[(r + (uint64_t)t) % (uint64_t)n];
    bool in = sf_kind_is_signed(prm->kind)
                  ? v >= (int64_t)prm->lo && v <= (int64_t)prm->hi
                  : v >= 0 && (uint64_t)v >= prm->lo && (uint64_t)v <= prm->hi;
    if (in) {
      *out = v;
      return true;
    }
  }
  return false;
}

static bool try_plan(sf_contracts *c, uint32_t idx, uint64_t r, sf_entry_alive_fn alive, void *ctx,
                     sf_contract_plan *p) {
  const contract *k = &c->ct[idx];
  const func_sum *fs = c->funcs[k->func];
  const slot_info *sl = &fs->slots[k->slot];
  const sf_func *f = &c->api->funcs[k->func];
  memset(p, 0, sizeof *p);
  p->contract = idx;
  p->func = k->func;
  const stored_state *st = NULL;
  switch (k->kind) {
  case CT_PRE_EQ:
  case CT_PRE_GE:
  case CT_PRE_LE:
    st = pick_state(c, sl->htype, k, true, r, alive, ctx);
    if (!st) {
      if (!plan_via(c, sl->htype, k, r, alive, ctx, p)) return false;
      bind(p, sl->param, SF_BIND_VALUE, p->via_vid);
      return true;
    }
    bind(p, sl->param, SF_BIND_VALUE, st->vid);
    break;
  case CT_ARG_REL: {
    st = pick_state(c, sl->htype, k, false, r, alive, ctx);
    int64_t v;
    if (!st || !breaking_arg(&f->params[fs->args[k->arg]], k->rel, st->vals[k->q], r >> 16, &v))
      return false;
    bind(p, sl->param, SF_BIND_VALUE, st->vid);
    bind(p, fs->args[k->arg], SF_BIND_INT, (uint64_t)v);
    break;
  }
  case CT_NONNULL:
    /* Any state of another handle argument's type makes the rest of the call. */
    for (uint32_t s2 = 0; s2 < fs->nslots && !st; s2++)
      if (s2 != k->slot && fs->slots[s2].input) {
        st = pick_state(c, fs->slots[s2].htype, NULL, false, r, alive, ctx);
        if (st) bind(p, fs->slots[s2].param, SF_BIND_VALUE, st->vid);
      }
    bind(p, sl->param, SF_BIND_NULL, 0);
    break;
  case CT_DISTINCT:
    st = pick_state(c, sl->htype, NULL, false, r, alive, ctx);
    if (!st) return false;
    bind(p, sl->param, SF_BIND_VALUE, st->vid);
    bind(p, fs->slots[k->slot2].param, SF_BIND_VALUE, st->vid);
    break;
  default:
    return false;
  }
  if (st) {
    p->entry = st->entry;
    p->prefix = st->prefix;
  }
  return true;
}

/* A precondition that holds, not tried too often, and not found without a
 * state to plan from since the store last changed. */
static bool plannable(const sf_contracts *c, const contract *k) {
  return k->status == CT_HOLDS && is_precondition(k) && k->tries < MAX_TRIES &&
         k->miss_version != c->store_version + 1;
}

int sf_contracts_plan(sf_contracts *c, uint64_t r, sf_entry_alive_fn alive, void *ctx,
                      sf_contract_plan *plan) {
  derive_dirty(c);
  uint32_t n = 0;
  for (uint32_t i = 0; i < c->nct; i++)
    n += plannable(c, &c->ct[i]);
  if (!n) return -1;
  uint64_t start = r % n;
  for (uint32_t i = 0, seen = 0; i < c->nct; i++) {
    contract *k = &c->ct[(i + (uint32_t)start) % c->nct];
    if (!plannable(c, k)) continue;
    seen++;
    uint32_t idx = (uint32_t)(k - c->ct);
    if (try_plan(c, idx, sf_hash_mix(r, seen), alive, ctx, plan)) {
      k->tries++;
      c->stats.plans++;
      c->stats.plans_via += plan->has_via;
      return 0;
    }
    k->miss_version = c->store_version + 1;
  }
  return -1;
}

void sf_contracts_outcome(sf_contracts *c, const sf_contract_plan *plan, sf_plan_result result) {
  if (!c || plan->contract >= c->nct) return;
  contract *k = &c->ct[plan->contract];
  if (result == SF_PLAN_NOT_MADE) {
    c->stats.not_made++;
    return;
  }
  if (k->status != CT_HOLDS) return;
  k->status = result == SF_PLAN_RAN ? CT_REFUTED_RAN : CT_REFUTED_FAILED;
  c->stats.holding--;
  c->stats.refuted_stage++;
}

void sf_contracts_get_stats(sf_contracts *c, sf_contracts_stats *st) {
  derive_dirty(c);
  *st = c->stats;
  st->states = st->transitions = 0;
  for (uint32_t h = 0; h < c->api->nhandles; h++)
    if (c->store[h]) {
      st->states += c->store[h]->nst;
      st->transitions += c->store[h]->ntr;
    }
}

/* ---- the report --------------------------------------------------------- */

static const char *rel_op(uint8_t rel) {
  switch (rel) {
  case REL_LT:
    return "<";
  case REL_LT | REL_EQ:
    return "<=";
  case REL_EQ:
    return "==";
  case REL_GT:
    return ">";
  case REL_GT | REL_EQ:
    return ">=";
  default:
    return "!=";
  }
}

static const char *slot_name(const sf_func *f, const slot_info *sl) {
  return sl->param == SF_OBS_RESULT ? "ret" : f->params[sl->param].name;
}

static void print_contract(sf_contracts *c, const contract *k, FILE *out) {
  const sf_func *f = &c->api->funcs[k->func];
  const func_sum *fs = c->funcs[k->func];
  const slot_info *sl = &fs->slots[k->slot];
  const char *p = slot_name(f, sl);
  const char *obs =
      c->tobs[sl->htype].nq > k->q ? c->api->funcs[c->tobs[sl->htype].func[k->q]].name : "?";
  const char *arg = fs->nargs > k->arg ? f->params[fs->args[k->arg]].name : "?";
  long long v = (long long)k->c;
  switch (k->kind) {
  case CT_PRE_EQ:
    fprintf(out, "requires %s(%s) == %lld", obs, p, v);
    break;
  case CT_PRE_GE:
    fprintf(out, "requires %s(%s) >= %lld", obs, p, v);
    break;
  case CT_PRE_LE:
    fprintf(out, "requires %s(%s) <= %lld", obs, p, v);
    break;
  case CT_ARG_REL:
    fprintf(out, "requires %s %s %s(%s)", arg, rel_op(k->rel), obs, p);
    break;
  case CT_NONNULL:
    fprintf(out, "requires %s != null", p);
    break;
  case CT_DISTINCT:
    fprintf(out, "requires %s != %s", p, slot_name(f, &fs->slots[k->slot2]));
    break;
  case CT_POST_EQ:
    fprintf(out, "ensures %s(%s) == %lld", obs, p, v);
    break;
  case CT_POST_DELTA:
    if (v == 0)
      fprintf(out, "ensures %s(%s) == old(%s(%s))", obs, p, obs, p);
    else
      fprintf(out, "ensures %s(%s) == old(%s(%s)) %c %lld", obs, p, obs, p, v < 0 ? '-' : '+',
              v < 0 ? -v : v);
    break;
  case CT_POST_OLD_REL:
    fprintf(out, "ensures %s(%s) %s old(%s(%s))", obs, p, rel_op(k->rel), obs, p);
    break;
  case CT_POST_ARG_REL:
    fprintf(out, "ensures %s(%s) %s %s", obs, p, rel_op(k->rel), arg);
    break;
  }
}

void sf_contracts_write(sf_contracts *c, FILE *out) {
  derive_dirty(c);
  sf_contracts_stats st;
  sf_contracts_get_stats(c, &st);
  fprintf(out,
          "# seqfuzz contracts: inferred from %llu runs (%llu calls); %llu holding, %llu refuted "
          "by later runs, %llu by the stage's calls (%llu plans).\n"
          "# Each holds on every call seen (support: how many). Postconditions count the calls\n"
          "# that succeeded: guard them with the error convention in the grammar.\n",
          (unsigned long long)st.runs, (unsigned long long)st.calls, (unsigned long long)st.holding,
          (unsigned long long)st.refuted_runs, (unsigned long long)st.refuted_stage,
          (unsigned long long)st.plans);
  for (uint32_t fi = 0; fi < c->api->nfuncs; fi++) {
    const func_sum *fs = c->funcs[fi];
    if (!fs || !fs->ncontracts) continue;
    fprintf(out, "\n# %s\n", c->api->funcs[fi].name);
    for (int pass = 0; pass < 2; pass++)
      for (uint32_t i = 0; i < fs->ncontracts; i++) {
        const contract *k = &c->ct[fs->contracts[i]];
        if ((k->status == CT_HOLDS) != (pass == 0)) continue;
        static const char *const why[] = {"", "a later run", "the stage: the call ran",
                                          "the stage: the call failed by its error convention"};
        fputs(pass ? "#   refuted (" : "  ", out);
        if (pass) fprintf(out, "%s): ", why[k->status]);
        print_contract(c, k, out);
        fprintf(out, pass ? "\n" : "  # support %llu\n", (unsigned long long)k->support);
      }
  }
}

int sf_contracts_save(sf_contracts *c, const char *path) {
  char tmp[4200];
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) return -1;
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  sf_contracts_write(c, f);
  if (fclose(f) != 0 || rename(tmp, path) != 0) return -1;
  return 0;
}
