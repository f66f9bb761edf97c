/* solver.c: one attempt on a frontier: variables of the witness, perturbed
 * runs, influence and transfer functions, the Z3 query, the write-back. */
#include "solver.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/sf_rng.h"
#include "../harness/feedback.h"
#include "frontier.h"
#include "internal.h"

#define MAX_VARS   96
#define MAX_KEYS   33   /* the target comparison and up to 32 before it */
#define NPROBES    6    /* runs per variable: odd step, random, then four more */
#define MAX_ELEMS  64   /* buffer elements taken as variables, per argument */
#define MAX_LENGTH 4096 /* longest buffer the solver makes, in elements */
#define NCONFIRM   256
#define SHARED_MAX (1u << 20) /* largest input an isolated attempt hands back */

/* What an attempt in a child process leaves for its parent. */
typedef struct shared {
  uint32_t done; /* the child finished (else it crashed or hung) */
  int32_t rc;
  bool give_up, grown;
  sf_solver_stats st;
  uint32_t input_len, result_len;
  uint8_t input[SHARED_MAX];  /* the input being run (a crash's reproducer) */
  uint8_t result[SHARED_MAX]; /* the attempt's output */
  uint32_t nflip;             /* records of the flip's check run (input: its input) */
  sf_cmp_record flip[SF_CMP_MAX_RECORDS];
} shared;

struct sf_solver {
  const sf_api *api;
  sf_solver_options opt;
  sf_solver_runner run;
  void *ctx;
  sf_frontier fr;
  sf_smt *smt;
  sf_rng rng;
  sf_solver_stats st;
  sf_seq w;    /* the witness of the current attempt (up to the target's call) */
  sf_seq full; /* the whole witness, when w was cut */
  sf_seq orig; /* w as it was, to restore buffers after a length probe */
  sf_buf scratch;
  uint64_t emitted[NCONFIRM]; /* hashes of recent results, for confirmations */
  uint32_t nemitted;
  shared *sh;   /* NULL: attempts run in-process */
  bool debug;   /* SEQFUZZ_SOLVER_DEBUG: a line per attempt on stderr */
  bool give_up; /* the attempt found the site hopeless (operands not deterministic) */
  bool grown;   /* the attempt's result is the witness with a longer buffer */
  /* The flip's check run (in-process attempts): learnt from right away, so
   * comparisons behind the flipped one become frontiers even when the
   * engine's coverage does not keep the result. */
  sf_cmp_record *flip;
  uint32_t nflip;
  const sf_cmp_record *last_rec; /* of the last run */
  uint32_t last_n;
};

/* A comparison occurrence, identified across runs of the same calls. */
typedef struct key {
  uint64_t site;
  uint32_t call;
  uint16_t occurrence;
  uint8_t width, kind;
  uint64_t a0, b0; /* operands in the witness's run */
} key;

/* Operands of each key in one run (found: reached). */
typedef struct obs {
  uint64_t a[MAX_KEYS], b[MAX_KEYS];
  bool found[MAX_KEYS];
} obs;

sf_solver *sf_solver_new(const sf_api *api, const sf_solver_options *opt, sf_solver_runner run,
                         void *ctx) {
  sf_solver *sv = calloc(1, sizeof *sv);
  if (!sv) return NULL;
  sv->api = api;
  sv->run = run;
  sv->ctx = ctx;
  if (opt) sv->opt = *opt;
  if (!sv->opt.timeout_ms) sv->opt.timeout_ms = 500;
  if (!sv->opt.max_runs) sv->opt.max_runs = 400;
  if (!sv->opt.max_tries) sv->opt.max_tries = 2;
  sf_rng_seed(&sv->rng, sv->opt.seed ^ 0x5EC0F022u);
  sf_frontier_init(&sv->fr);
  sf_seq_init(&sv->w, api);
  sf_seq_init(&sv->full, api);
  sf_seq_init(&sv->orig, api);
  sv->smt = sf_smt_new();
  if (!sv->smt) {
    sf_solver_free(sv);
    return NULL;
  }
  const char *debug = getenv("SEQFUZZ_SOLVER_DEBUG");
  sv->debug = debug != NULL;
  if (debug && !strcmp(debug, "in-process")) sv->opt.in_process = true;
  if (!sv->opt.in_process) {
    void *m = mmap(NULL, sizeof(shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    sv->sh = m == MAP_FAILED ? NULL : m;
  }
  return sv;
}

void sf_solver_free(sf_solver *sv) {
  if (!sv) return;
  sf_frontier_free(&sv->fr);
  sf_smt_free(sv->smt);
  sf_seq_free(&sv->w);
  sf_seq_free(&sv->full);
  sf_seq_free(&sv->orig);
  sf_buf_free(&sv->scratch);
  if (sv->sh) munmap(sv->sh, sizeof(shared));
  free(sv->flip);
  free(sv);
}

void sf_solver_observe(sf_solver *sv, const sf_seq *s, const sf_cmp_record *rec, uint32_t n) {
  sf_frontier_observe(&sv->fr, s, rec, n);
}

bool sf_solver_has_work(const sf_solver *sv) {
  sf_site *site;
  sf_goal goal;
  return sf_frontier_pick((sf_frontier *)&sv->fr, sv->opt.max_tries, &site, &goal);
}

void sf_solver_note_input(sf_solver *sv, uint64_t input_hash) {
  for (uint32_t i = 0; i < sv->nemitted && i < NCONFIRM; i++)
    if (sv->emitted[i] == input_hash) {
      sv->st.confirmed++;
      sv->emitted[i] = 0;
      return;
    }
}

void sf_solver_get_stats(const sf_solver *sv, sf_solver_stats *st) {
  *st = sv->st;
  st->sites = sv->fr.n;
  st->frontiers = sv->fr.open;
}

/* ---- variables ---- */

static bool int_kind(sf_kind k) {
  return sf_kind_is_int(k) && k != SF_BOOL;
}

static void kind_range(sf_kind k, uint64_t *lo, uint64_t *hi) {
  unsigned bits = 8u * sf_kind_size(k);
  if (sf_kind_is_signed(k)) {
    *hi = bits == 64 ? (uint64_t)INT64_MAX : (1ull << (bits - 1)) - 1;
    *lo = ~*hi;
  } else {
    *lo = 0;
    *hi = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
  }
}

static uint64_t elem_get(const uint8_t *p, unsigned size, bool is_signed) {
  uint64_t v = 0;
  memcpy(&v, p, size); /* little-endian host */
  if (is_signed && size < 8 && (v >> (8 * size - 1)) & 1) v |= ~0ull << (8 * size);
  return v;
}

/* Variables of calls [0, last]: nearest calls first (they matter most). */
static uint32_t collect_vars(const sf_seq *w, uint32_t last, sf_var *vars) {
  uint32_t n = 0;
  if (last >= w->ncalls) last = w->ncalls ? w->ncalls - 1 : 0;
  for (int64_t c = last; c >= 0 && w->ncalls; c--) {
    const sf_func *f = sf_seq_func(w, (uint32_t)c);
    const sf_arg *args = sf_seq_args(w, (uint32_t)c);
    for (uint32_t p = 0; p < f->nparams && n < MAX_VARS; p++) {
      const sf_param *pr = &f->params[p];
      if (pr->flags & (SF_P_OUT | SF_P_LENGTH | SF_P_CONST)) continue;
      if (pr->flags & SF_P_CALLBACK) { /* a mock: its script's fields */
        sf_var proto = {.call = (uint32_t)c, .param = p};
        n += sf_script_vars(&w->api->callbacks[pr->type_index], sf_seq_bytes(w, &args[p]),
                            args[p].len, &proto, vars + n, MAX_VARS - n);
        continue;
      }
      if (pr->flags & SF_P_VTABLE) { /* mocks: each member's script's fields */
        const sf_vtable *vt = &w->api->vtables[pr->type_index];
        const uint8_t *scripts[SF_MAX_VTABLE_SLOTS];
        uint32_t lens[SF_MAX_VTABLE_SLOTS];
        sf_vtable_scripts(vt, sf_seq_bytes(w, &args[p]), args[p].len, scripts, lens);
        for (uint32_t k = 0; k < vt->nslots; k++) {
          if (!lens[k] && vt->slots[k].nullable) continue; /* NULL */
          sf_var proto = {.call = (uint32_t)c, .param = p, .member = (uint8_t)(k + 1)};
          n += sf_script_vars(&w->api->callbacks[vt->slots[k].callback], scripts[k], lens[k],
                              &proto, vars + n, MAX_VARS - n);
        }
        continue;
      }
      if (int_kind(pr->kind)) {
        sf_var *v = &vars[n++];
        memset(v, 0, sizeof *v);
        v->call = (uint32_t)c;
        v->param = p;
        v->elem = -1;
        v->size = (uint8_t)sf_kind_size(pr->kind);
        v->is_signed = sf_kind_is_signed(pr->kind);
        v->lo = pr->lo;
        v->hi = pr->hi;
        v->nexcluded = pr->nexcluded > 4 ? 4 : pr->nexcluded;
        memcpy(v->excluded, pr->excluded, v->nexcluded * sizeof(uint64_t));
        v->value = args[p].bits;
      } else if ((pr->kind == SF_BUFFER || pr->kind == SF_ARRAY) && int_kind(pr->elem)) {
        unsigned esize = sf_kind_size(pr->elem);
        if (pr->kind == SF_BUFFER && n < MAX_VARS) { /* its length, as the callee sees it */
          sf_var *v = &vars[n++];
          memset(v, 0, sizeof *v);
          v->call = (uint32_t)c;
          v->param = p;
          v->elem = SF_VAR_LENGTH;
          v->size = 4;
          sf_seq_buffer_bounds(f, pr, &v->lo, &v->hi);
          if (v->hi > MAX_LENGTH) v->hi = MAX_LENGTH;
          if (v->lo > v->hi) v->lo = v->hi;
          v->value = args[p].len / esize;
        }
        unsigned size = sf_kind_size(pr->elem);
        uint32_t count = args[p].len / size;
        for (uint32_t e = 0; e < count && e < MAX_ELEMS && n < MAX_VARS; e++) {
          sf_var *v = &vars[n++];
          memset(v, 0, sizeof *v);
          v->call = (uint32_t)c;
          v->param = p;
          v->elem = (int32_t)e;
          v->size = (uint8_t)size;
          v->is_signed = sf_kind_is_signed(pr->elem);
          kind_range(pr->elem, &v->lo, &v->hi);
          v->value = elem_get(sf_seq_bytes(w, &args[p]) + e * size, size, v->is_signed);
        }
      }
    }
  }
  return n;
}

static bool var_legal(const sf_var *v, uint64_t x) {
  bool in = v->is_signed ? (int64_t)x >= (int64_t)v->lo && (int64_t)x <= (int64_t)v->hi
                         : x >= v->lo && x <= v->hi;
  for (uint32_t i = 0; in && i < v->nexcluded; i++)
    in = x != v->excluded[i];
  return in;
}

/* Normalize x to the variable's size and signedness. */
static uint64_t var_norm(const sf_var *v, uint64_t x) {
  unsigned bits = 8u * v->size;
  if (bits == 64) return x;
  x &= (1ull << bits) - 1;
  if (v->is_signed && (x >> (bits - 1)) & 1) x |= ~0ull << bits;
  return x;
}

/* Write x into the witness (in place). */
static void var_set(sf_seq *w, const sf_var *v, uint64_t x) {
  sf_arg *a = &sf_seq_args(w, v->call)[v->param];
  if (v->elem == SF_VAR_SCRIPT) {
    const sf_param *p = &sf_seq_func(w, v->call)->params[v->param];
    sf_buf script = {0}, value = {0};
    if (!v->member) {
      if (!sf_script_set(&w->api->callbacks[p->type_index], sf_seq_bytes(w, a), a->len, v, x,
                         &script))
        sf_seq_set_bytes(w, a, script.data ? script.data : (const uint8_t *)"", script.len);
    } else { /* the member's script, the others as they are */
      const sf_vtable *vt = &w->api->vtables[p->type_index];
      const uint8_t *scripts[SF_MAX_VTABLE_SLOTS];
      uint32_t lens[SF_MAX_VTABLE_SLOTS], k = v->member - 1u;
      sf_vtable_scripts(vt, sf_seq_bytes(w, a), a->len, scripts, lens);
      if (!sf_script_set(&w->api->callbacks[vt->slots[k].callback], scripts[k], lens[k], v, x,
                         &script)) {
        for (uint32_t j = 0; j < vt->nslots; j++) {
          const uint8_t *d = j == k ? script.data : scripts[j];
          uint32_t n = j == k ? (uint32_t)script.len : lens[j];
          sf_buf_putc(&value, (uint8_t)n);
          sf_buf_putc(&value, (uint8_t)(n >> 8));
          if (n) sf_buf_append(&value, d, n);
        }
        if (value.len <= SF_MAX_SCRIPT) sf_seq_set_bytes(w, a, value.data, value.len);
      }
    }
    sf_buf_free(&script);
    sf_buf_free(&value);
    return;
  }
  if (v->elem == SF_VAR_LENGTH) {
    /* A buffer's length: keep the prefix, zero-fill the rest. */
    uint32_t esize = (uint32_t)sf_kind_size(sf_seq_func(w, v->call)->params[v->param].elem);
    size_t want = (size_t)x * esize;
    if (want == a->len) return;
    uint8_t *bytes = calloc(want ? want : 1, 1);
    if (!bytes) return;
    memcpy(bytes, sf_seq_bytes(w, a), want < a->len ? want : a->len);
    sf_seq_set_bytes(w, a, bytes, want);
    free(bytes);
    return;
  }
  if (v->elem < 0) {
    a->bits = x;
    return;
  }
  if ((uint32_t)(v->elem + 1) * v->size <= a->len) /* (a length change may have cut it) */
    memcpy(w->blob.data + a->off + (uint32_t)v->elem * v->size, &x, v->size);
}

/* A script variable the model left alone is not written back: a chunk's
 * byte would grow the chunk again after its length was solved shorter. */
static bool unchanged_script_var(const sf_var *v, uint64_t x) {
  return v->elem == SF_VAR_SCRIPT && x == v->value;
}

/* Put variable v of the witness back as it was (a buffer with its bytes). */
static void var_restore(sf_solver *sv, const sf_var *v) {
  if (v->elem != SF_VAR_LENGTH && v->elem != SF_VAR_SCRIPT) {
    var_set(&sv->w, v, v->value);
    return;
  }
  const sf_arg *o = &sf_seq_args(&sv->orig, v->call)[v->param];
  sf_seq_set_bytes(&sv->w, &sf_seq_args(&sv->w, v->call)[v->param], sf_seq_bytes(&sv->orig, o),
                   o->len);
}

/* The probe values of a variable: an odd step, a random value, then more. */
static uint64_t probe_value(sf_solver *sv, const sf_var *v, int k) {
  uint64_t x0 = v->value, x;
  unsigned bits = 8u * v->size;
  for (int attempt = 0; attempt < 8; attempt++) {
    switch (k) {
    case 0:
      x = attempt & 1 ? x0 - 1 - 2 * (uint64_t)(attempt / 2) : x0 + 1 + 2 * (uint64_t)(attempt / 2);
      break;
    case 2:
      x = x0 + 2;
      break;
    case 3:
      x = x0 ^ (1ull << (bits / 2));
      break;
    default:
      x = sf_rng_next(&sv->rng);
      break;
    }
    x = var_norm(v, x);
    if (x != x0 && var_legal(v, x)) return x;
    if (k >= 1) k = 1; /* fall back to random values */
  }
  /* A small legal range: any other legal value, or none. */
  uint64_t span = v->hi - v->lo;
  for (uint64_t i = 0; i <= span && i < 64; i++) {
    x = var_norm(v, v->lo + i);
    if (x != x0 && var_legal(v, x)) return x;
  }
  return x0;
}

/* ---- runs ---- */

static uint32_t find_key(const key *keys, uint32_t nkeys, const sf_cmp_record *r) {
  for (uint32_t k = 0; k < nkeys; k++)
    if (keys[k].site == r->site && keys[k].call == r->call && keys[k].occurrence == r->occurrence)
      return k;
  return UINT32_MAX;
}

/* Run s; in a child, first leave it where the parent finds it if the run
 * crashes. */
static uint32_t run(sf_solver *sv, const sf_seq *s, const sf_cmp_record **rec) {
  if (sv->sh) {
    sf_buf_reset(&sv->scratch);
    sv->sh->input_len = 0;
    if (sf_seq_encode(s, &sv->scratch) == 0 && sv->scratch.len <= SHARED_MAX) {
      memcpy(sv->sh->input, sv->scratch.data, sv->scratch.len);
      sv->sh->input_len = (uint32_t)sv->scratch.len;
    }
  }
  sv->st.runs++;
  sv->last_n = sv->run(sv->ctx, s, rec);
  sv->last_rec = *rec;
  return sv->last_n;
}

static uint32_t last_records(const sf_solver *sv, const sf_cmp_record **rec) {
  *rec = sv->last_rec;
  return sv->last_n;
}

static void run_obs(sf_solver *sv, const sf_seq *s, const key *keys, uint32_t nkeys, obs *o) {
  const sf_cmp_record *rec;
  uint32_t n = run(sv, s, &rec);
  memset(o->found, 0, sizeof o->found);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t k = find_key(keys, nkeys, &rec[i]);
    if (k == UINT32_MAX || o->found[k]) continue;
    o->found[k] = true;
    o->a[k] = rec[i].a;
    o->b[k] = rec[i].b;
  }
}

/* ---- influence and fitting ---- */

typedef struct probes {
  uint64_t x[MAX_VARS][NPROBES];
  obs o[MAX_VARS][NPROBES];
  int n[MAX_VARS]; /* probes run per variable */
} probes;

static uint64_t side(const obs *o, uint32_t k, int b) {
  return b ? o->b[k] : o->a[k];
}

/* Fit operand `b` (0: a, 1: b) of key k from the probes; false if nothing
 * explains the runs. */
static bool fit_with(const sf_var *vars, uint32_t nvars, const probes *pr, const obs *base,
                     const key *keys, uint32_t k, int b, sf_fit *out, bool *influenced,
                     bool lengths);
static bool fit_linear(const sf_var *vars, uint32_t nvars, const probes *pr, uint32_t k, int b,
                       const key *kk, const uint32_t *inf, uint32_t ninf, uint64_t y0, sf_fit *out);

/* Operand b of key k as a function of variable j alone (its probes, the
 * others at the witness). */
static bool fit_alone(const sf_var *vars, const probes *pr, uint32_t k, int b, uint32_t j,
                      uint64_t y0, uint8_t width, sf_fit *out) {
  uint64_t x[NPROBES + 1], y[NPROBES + 1];
  uint32_t n = 0;
  x[n] = vars[j].value;
  y[n++] = y0;
  for (int p = 0; p < pr->n[j]; p++)
    if (pr->o[j][p].found[k]) {
      x[n] = pr->x[j][p];
      y[n++] = side(&pr->o[j][p], k, b) & sf_width_mask(width);
    }
  /* sf_fit_single wants the odd step second: probe 0 is it when found. */
  return n >= 3 && sf_fit_single(j, &vars[j], x, y, n, width, out);
}

/* Lengths change what a buffer holds, rarely linearly: when a fit with them
 * fails, fit without them (they then keep their values). */
static bool fit_operand(const sf_var *vars, uint32_t nvars, const probes *pr, const obs *base,
                        const key *keys, uint32_t k, int b, sf_fit *out, bool *influenced) {
  return fit_with(vars, nvars, pr, base, keys, k, b, out, influenced, true) ||
         fit_with(vars, nvars, pr, base, keys, k, b, out, influenced, false);
}

static bool fit_with(const sf_var *vars, uint32_t nvars, const probes *pr, const obs *base,
                     const key *keys, uint32_t k, int b, sf_fit *out, bool *influenced,
                     bool lengths) {
  const key *kk = &keys[k];
  uint64_t mask = sf_width_mask(kk->width);
  uint32_t inf[SF_FIT_MAX_VARS], ninf = 0;
  uint64_t y0 = side(base, k, b) & mask;
  for (uint32_t j = 0; j < nvars; j++) {
    if (!lengths && vars[j].elem == SF_VAR_LENGTH) continue;
    bool changes = false;
    for (int p = 0; p < pr->n[j]; p++)
      if (pr->o[j][p].found[k] && (side(&pr->o[j][p], k, b) & mask) != y0) changes = true;
    if (changes) {
      if (ninf == SF_FIT_MAX_VARS) return false;
      inf[ninf++] = j;
    }
  }
  *influenced = ninf > 0;
  if (ninf == 0) {
    *out = (sf_fit){.kind = SF_FIT_CONST, .width = kk->width, .base = y0};
    return true;
  }
  if (ninf == 1) return fit_alone(vars, pr, k, b, inf[0], y0, kk->width, out);
  /* Several: linear, from each variable's odd step, checked on the others;
   * else the sum of what each does on its own (disjoint fields). */
  if (fit_linear(vars, nvars, pr, k, b, kk, inf, ninf, y0, out)) return true;
  sf_fit singles[SF_FIT_MAX_VARS];
  for (uint32_t i = 0; i < ninf; i++)
    if (!fit_alone(vars, pr, k, b, inf[i], y0, kk->width, &singles[i])) return false;
  return sf_fit_separable(singles, ninf, y0, kk->width, out);
}

/* Linear in several variables, from each one's odd step, checked on the
 * other probes. */
static bool fit_linear(const sf_var *vars, uint32_t nvars, const probes *pr, uint32_t k, int b,
                       const key *kk, const uint32_t *inf, uint32_t ninf, uint64_t y0,
                       sf_fit *out) {
  uint64_t mask = sf_width_mask(kk->width);
  uint64_t x0[SF_FIT_MAX_VARS], x1[SF_FIT_MAX_VARS], y1[SF_FIT_MAX_VARS];
  for (uint32_t i = 0; i < ninf; i++) {
    uint32_t j = inf[i];
    if (!pr->o[j][0].found[k]) return false;
    x0[i] = vars[j].value;
    x1[i] = pr->x[j][0];
    y1[i] = side(&pr->o[j][0], k, b) & mask;
  }
  if (!sf_fit_linear_multi(inf, ninf, x0, x1, y0, y1, kk->width, out)) return false;
  uint64_t xs[MAX_VARS];
  for (uint32_t j = 0; j < nvars; j++)
    xs[j] = vars[j].value;
  for (uint32_t i = 0; i < ninf; i++) {
    uint32_t j = inf[i];
    for (int p = 1; p < pr->n[j]; p++) {
      if (!pr->o[j][p].found[k]) continue;
      xs[j] = pr->x[j][p];
      bool ok = sf_fit_eval(out, vars, xs) == (side(&pr->o[j][p], k, b) & mask);
      xs[j] = vars[j].value;
      if (!ok) return false;
    }
  }
  return true;
}

/* When no single change of a variable moves the target's operands (each
 * breaks an equality the path needs, so the target is not reached, as in
 * `if (a + b == K) if (a - b == 77)`), probe with changes that keep those
 * equalities: Z3 picks the other variables. The target's operands are then
 * fitted as linear functions of the joint observations. */
static bool joint_probes(sf_solver *sv, const sf_var *vars, uint32_t nvars, const probes *pr,
                         const obs *base, const key *keys, uint32_t tk, const bool *noisy,
                         sf_fit *fa, sf_fit *fb) {
  sf_query q = {.vars = vars, .nvars = nvars, .timeout_ms = sv->opt.timeout_ms};
  uint32_t in[SF_FIT_MAX_VARS], nin = 0;
  for (uint32_t k = 0; k < tk && q.npath < SF_QUERY_MAX_PATH; k++) {
    if (noisy[k] || ((keys[k].a0 ^ keys[k].b0) & sf_width_mask(keys[k].width))) continue;
    sf_query_cmp c = {.goals = 1u << SF_GOAL_EQ};
    bool ia, ib;
    if (!fit_operand(vars, nvars, pr, base, keys, k, 0, &c.a, &ia) ||
        !fit_operand(vars, nvars, pr, base, keys, k, 1, &c.b, &ib) || (!ia && !ib))
      continue;
    q.path[q.npath++] = c;
    if (sv->debug)
      fprintf(stderr,
              "seqfuzz: solver:   path equality: key %u site %#llx: a kind %d (%u vars, base "
              "%#llx) b kind %d (%u vars: %u %u, coef %#llx %#llx, base %#llx)\n",
              k, (unsigned long long)keys[k].site, c.a.kind, c.a.nvars,
              (unsigned long long)c.a.base, c.b.kind, c.b.nvars, c.b.var[0], c.b.var[1],
              (unsigned long long)c.b.coef[0], (unsigned long long)c.b.coef[1],
              (unsigned long long)c.b.base);
    const sf_fit *fs[2] = {&c.a, &c.b};
    for (int f = 0; f < 2; f++)
      for (uint32_t i = 0; i < fs[f]->nvars; i++) {
        uint32_t v = fs[f]->var[i], j = 0;
        while (j < nin && in[j] != v)
          j++;
        if (j == nin && nin < SF_FIT_MAX_VARS && nin < 8) in[nin++] = v;
      }
  }
  if (!q.npath || !nin) return false;
  uint64_t x0[SF_FIT_MAX_VARS], xs[64 * 8], ya[64], yb[64], values[MAX_VARS];
  uint32_t m = 0;
  for (uint32_t i = 0; i < nin; i++)
    x0[i] = vars[in[i]].value;
  for (uint32_t i = 0; i < nin; i++) {
    /* Two runs that reach the target per variable, from up to NPROBES
     * steps (a random step often breaks a guard the equalities do not
     * cover: `end >= pos` before `pos + end == K`). */
    uint32_t reached = 0;
    for (int step = 0; step < NPROBES && reached < 2 && m < 64; step++) {
      const sf_var *v = &vars[in[i]];
      uint64_t want = probe_value(sv, v, step);
      sf_fit self = {
          .kind = SF_FIT_LINEAR, .width = v->size, .nvars = 1, .var = {in[i]}, .coef = {1}};
      sf_fit k = {.kind = SF_FIT_CONST, .width = v->size, .base = want & sf_width_mask(v->size)};
      q.target = (sf_query_cmp){self, k, 1u << SF_GOAL_EQ};
      sv->st.queries++;
      sf_smt_result r = sf_smt_solve(sv->smt, &q, values);
      if (sv->debug)
        fprintf(stderr, "seqfuzz: solver:   joint probe of var %u (%u path equalities): %s\n",
                in[i], q.npath, (const char *[]){"sat", "unsat", "timeout", "error"}[r]);
      if (r != SF_SMT_SAT) continue;
      for (uint32_t j = 0; j < nin; j++)
        var_set(&sv->w, &vars[in[j]], values[in[j]]);
      obs o;
      run_obs(sv, &sv->w, keys, tk + 1, &o);
      for (uint32_t j = 0; j < nin; j++)
        var_restore(sv, &vars[in[j]]);
      if (!o.found[tk]) continue;
      for (uint32_t j = 0; j < nin; j++)
        xs[m * nin + j] = values[in[j]];
      ya[m] = o.a[tk] & sf_width_mask(keys[tk].width);
      yb[m] = o.b[tk] & sf_width_mask(keys[tk].width);
      m++;
      reached++;
    }
  }
  if (m < 2) return false;
  uint64_t y0[2] = {base->a[tk] & sf_width_mask(keys[tk].width),
                    base->b[tk] & sf_width_mask(keys[tk].width)};
  const uint64_t *ys[2] = {ya, yb};
  sf_fit *outs[2] = {fa, fb};
  bool moved = false;
  for (int side = 0; side < 2; side++) {
    bool varies = false;
    for (uint32_t r = 0; r < m; r++)
      varies |= ys[side][r] != y0[side];
    if (!varies) {
      *outs[side] = (sf_fit){.kind = SF_FIT_CONST, .width = keys[tk].width, .base = y0[side]};
      continue;
    }
    if (!sf_fit_linear_system(in, nin, x0, y0[side], xs, ys[side], m, keys[tk].width, outs[side]))
      return false;
    moved = true;
  }
  return moved;
}

static bool uses(const sf_fit *f, uint32_t var) {
  if (f->kind == SF_FIT_CONST) return false;
  for (uint32_t i = 0; i < f->nvars; i++)
    if (f->var[i] == var) return true;
  return false;
}

static bool shares_variable(const sf_query_cmp *c, const sf_query_cmp *target) {
  const sf_fit *fs[2] = {&c->a, &c->b};
  for (int f = 0; f < 2; f++)
    for (uint32_t i = 0; fs[f]->kind != SF_FIT_CONST && i < fs[f]->nvars; i++)
      if (uses(&target->a, fs[f]->var[i]) || uses(&target->b, fs[f]->var[i])) return true;
  return false;
}

/* Grow (to twice its length plus 8, within its legal length) the first
 * buffer whose elements the target uses and that can grow, in w and full.
 * false if none can. */
static bool grow_buffer(sf_solver *sv, const sf_var *vars, const sf_query_cmp *target) {
  const sf_fit *fs[2] = {&target->a, &target->b};
  for (int f = 0; f < 2; f++) {
    for (uint32_t i = 0; fs[f]->kind != SF_FIT_CONST && i < fs[f]->nvars; i++) {
      const sf_var *v = &vars[fs[f]->var[i]];
      if (v->elem < 0) continue;
      const sf_func *fn = sf_seq_func(&sv->w, v->call);
      const sf_param *p = &fn->params[v->param];
      if (p->kind != SF_BUFFER) continue;
      uint64_t lo, hi;
      sf_seq_buffer_bounds(fn, p, &lo, &hi);
      sf_arg *a = &sf_seq_args(&sv->w, v->call)[v->param];
      uint64_t count = a->len / v->size, want = 2 * count + 8;
      if (want > hi) want = hi;
      if (want > MAX_ELEMS) want = MAX_ELEMS;
      if (want <= count) continue;
      uint8_t *bytes = calloc(want, v->size);
      if (!bytes) return false;
      memcpy(bytes, sf_seq_bytes(&sv->w, a), a->len);
      sf_seq *seqs[2] = {&sv->w, &sv->full};
      bool ok = true;
      for (int k = 0; k < 2; k++) {
        if (!seqs[k]->ncalls) continue;
        sf_arg *b = &sf_seq_args(seqs[k], v->call)[v->param];
        ok &= sf_seq_set_bytes(seqs[k], b, bytes, want * v->size) == 0;
      }
      free(bytes);
      char err[128];
      return ok && !sf_seq_validate(sv->full.ncalls ? &sv->full : &sv->w, err, sizeof err);
    }
  }
  return false;
}

/* The records of the run just made (the flip's check), for the frontier. */
static void keep_flip_records(sf_solver *sv) {
  const sf_cmp_record *rec;
  uint32_t n = last_records(sv, &rec);
  if (sv->sh) {
    memcpy(sv->sh->flip, rec, n * sizeof *rec);
    sv->sh->nflip = n;
  } else if ((sv->flip = realloc(sv->flip, (n ? n : 1) * sizeof *rec))) {
    memcpy(sv->flip, rec, n * sizeof *rec);
    sv->nflip = n;
  }
}

/* Query q at decreasing strictness of its path: every kept outcome, then
 * only equalities, then none. */
static sf_smt_result solve_levels(sf_solver *sv, sf_query *q, const sf_query_cmp *path,
                                  uint32_t npath, uint64_t *values) {
  sf_smt_result r = SF_SMT_UNSAT;
  for (int level = 0; level < 3 && r != SF_SMT_SAT; level++) {
    if (level > 0 && npath == 0) break;
    q->npath = 0;
    for (uint32_t i = 0; i < npath && level < 2; i++) {
      q->path[q->npath] = path[i];
      if (level == 1) q->path[q->npath].goals &= (1u << SF_GOAL_EQ) | (1u << SF_GOAL_NE);
      q->npath++;
    }
    sv->st.queries++;
    r = sf_smt_solve(sv->smt, q, values);
    if (sv->debug)
      fprintf(stderr, "seqfuzz: solver:   query with %u path comparisons (level %d): %s\n",
              q->npath, level, (const char *[]){"sat", "unsat", "timeout", "error"}[r]);
    if (r == SF_SMT_TIMEOUT) {
      sv->st.timeouts++;
      if (level == 2 || npath == 0) {
        /* Too hard even alone: the site's other outcomes would be too. */
        sv->give_up = true;
        break;
      }
      level = 1; /* straight to no path constraints */
    }
    if (r == SF_SMT_ERROR) {
      sv->st.errors++;
      break;
    }
  }
  if (r == SF_SMT_SAT) sv->st.sat++;
  if (r == SF_SMT_UNSAT) sv->st.unsat++;
  return r;
}

/* An earlier comparison the model broke that a variable's copy can mend
 * (Redqueen's input-to-state repair, for checksums): equal in the witness's
 * run, unequal in this one, and one operand the value of an integer
 * argument in both runs. Z3 could not model the other operand (a CRC of
 * another argument, unfit), so the query left it out of the path; its new
 * value is what the argument must become. The variable's index, its new
 * value in *to; UINT32_MAX when there is none (variable `skip` is never
 * the one). */
static uint32_t repairable(const sf_var *vars, uint32_t nvars, const uint64_t *values,
                           uint32_t skip, const key *keys, uint32_t tk, const obs *after,
                           uint64_t *to) {
  for (uint32_t k = 0; k < tk; k++) {
    uint64_t mask = sf_width_mask(keys[k].width);
    /* Two computed values (a constant's equality the fit solves); one byte
     * matches by chance too often to tell a copy. */
    if (!after->found[k] || keys[k].kind != SF_TRACE_VAR || keys[k].width < 2 ||
        ((keys[k].a0 ^ keys[k].b0) & mask) || !((after->a[k] ^ after->b[k]) & mask))
      continue;
    for (int side = 0; side < 2; side++) {
      uint64_t was = side ? keys[k].b0 : keys[k].a0, now = side ? after->b[k] : after->a[k];
      uint64_t other = side ? after->a[k] : after->b[k];
      for (uint32_t j = 0; j < nvars; j++) {
        const sf_var *v = &vars[j];
        if (j == skip || v->elem != -1 || v->size < keys[k].width || ((v->value ^ was) & mask) ||
            ((values[j] ^ now) & mask))
          continue;
        uint64_t x = var_norm(v, (values[j] & ~mask) | (other & mask));
        if (!var_legal(v, x)) continue;
        *to = x;
        return j;
      }
    }
  }
  return UINT32_MAX;
}

#define MAX_MENDS 4

/* Runs the witness as it is now (values[]: its variables' values), mending
 * what repairable() finds until the target is reached (goal < 0) or takes
 * that outcome; the mended variables' indexes in mended[MAX_MENDS]
 * (UINT32_MAX-filled), their values updated in values[] and the witness. */
static void run_mending(sf_solver *sv, const sf_var *vars, uint32_t nvars, uint64_t *values,
                        uint32_t skip, const key *keys, uint32_t nkeys, uint32_t tk, int goal,
                        obs *after, uint32_t mended[MAX_MENDS]) {
  for (int m = 0; m < MAX_MENDS; m++)
    mended[m] = UINT32_MAX;
  for (int m = 0;; m++) {
    run_obs(sv, &sv->w, keys, nkeys, after);
    bool done =
        after->found[tk] &&
        (goal < 0 || (sf_goal_outcomes(after->a[tk], after->b[tk], keys[tk].width) & (1u << goal)));
    uint64_t x;
    uint32_t j;
    if (done || m == MAX_MENDS ||
        (j = repairable(vars, nvars, values, skip, keys, tk, after, &x)) == UINT32_MAX)
      return;
    if (sv->debug)
      fprintf(stderr, "seqfuzz: solver:   variable %u mended to %#llx\n", j, (unsigned long long)x);
    values[j] = x;
    var_set(&sv->w, &vars[j], x);
    mended[m] = j;
  }
}

/* Probe p of variable j: the witness with j at its probe value, run (the
 * comparisons j broke on the way to the target mended, so that the probe
 * still tells how j moves the target: a length behind a checksum), then as
 * it was but for j (var_restore puts j back). */
static void probe_once(sf_solver *sv, probes *pr, const sf_var *vars, uint32_t nvars, uint64_t *cur,
                       uint32_t j, int p, const key *keys, uint32_t nkeys, uint32_t tk) {
  pr->x[j][p] = cur[j] = probe_value(sv, &vars[j], p);
  var_set(&sv->w, &vars[j], cur[j]);
  uint32_t mended[MAX_MENDS];
  run_mending(sv, vars, nvars, cur, j, keys, nkeys, tk, -1, &pr->o[j][p], mended);
  for (int m = 0; m < MAX_MENDS && mended[m] != UINT32_MAX; m++) {
    var_restore(sv, &vars[mended[m]]);
    cur[mended[m]] = vars[mended[m]].value;
  }
  cur[j] = vars[j].value;
  pr->n[j]++;
}

/* Write a model into the witness and run it (mended, run_mending): did the
 * target take the goal's outcome? */
static bool check_model(sf_solver *sv, const sf_var *vars, uint32_t nvars, uint64_t *values,
                        const key *keys, uint32_t nkeys, uint32_t tk, sf_goal goal) {
  for (uint32_t j = 0; j < nvars; j++)
    if (!unchanged_script_var(&vars[j], values[j])) var_set(&sv->w, &vars[j], values[j]);
  char err[128];
  if (sf_seq_validate(&sv->w, err, sizeof err)) {
    if (sv->debug)
      fprintf(stderr, "seqfuzz: solver:   the model is not a valid sequence: %s\n", err);
    return false;
  }
  obs after;
  uint32_t mended[MAX_MENDS];
  run_mending(sv, vars, nvars, values, UINT32_MAX, keys, nkeys, tk, (int)goal, &after, mended);
  bool ok = after.found[tk] &&
            (sf_goal_outcomes(after.a[tk], after.b[tk], keys[tk].width) & (1u << goal));
  if (!ok && sv->debug)
    fprintf(stderr, "seqfuzz: solver:   the check run %s (a %#llx b %#llx)\n",
            after.found[tk] ? "did not flip it" : "did not reach it",
            (unsigned long long)after.a[tk], (unsigned long long)after.b[tk]);
  return ok;
}

/* Appends the witness with the model's values (the whole witness when the
 * attempt's was cut) to out, encoded: 1, or 0 when that is not a valid
 * sequence, -1 out of memory. */
static int encode_result(sf_solver *sv, const sf_var *vars, uint32_t nvars, const uint64_t *values,
                         sf_buf *out) {
  sf_seq *result = &sv->w;
  if (sv->full.ncalls) {
    char err[128];
    result = &sv->full;
    for (uint32_t j = 0; j < nvars; j++)
      if (!unchanged_script_var(&vars[j], values[j])) var_set(result, &vars[j], values[j]);
    if (sf_seq_validate(result, err, sizeof err)) return 0;
  }
  return sf_seq_encode(result, out) ? -1 : 1;
}

/* A copy of vars where those the target's fits do not use keep their
 * witness value; NULL when there are none (or no memory). */
static sf_var *pin_others(const sf_var *vars, uint32_t nvars, const sf_query_cmp *target) {
  sf_var *p = malloc(nvars * sizeof *p);
  if (!p) return NULL;
  memcpy(p, vars, nvars * sizeof *p);
  const sf_fit *fs[2] = {&target->a, &target->b};
  uint32_t npinned = 0;
  for (uint32_t j = 0; j < nvars; j++) {
    bool used = false;
    for (int f = 0; f < 2 && !used; f++)
      for (uint32_t i = 0; fs[f]->kind != SF_FIT_CONST && i < fs[f]->nvars; i++)
        used |= fs[f]->var[i] == j;
    if (used) continue;
    p[j].lo = p[j].hi = p[j].value;
    p[j].nexcluded = 0;
    npinned++;
  }
  if (!npinned) {
    free(p);
    return NULL;
  }
  return p;
}

/* ---- the attempt ---- */

static void remember(sf_solver *sv, const sf_buf *out, size_t start) {
  sv->emitted[sv->nemitted++ % NCONFIRM] =
      sf_feedback_input_hash(out->data + start, out->len - start);
}

static int attempt(sf_solver *sv, uint64_t site_id, uint32_t witness, sf_goal goal, sf_buf *out) {
  const sf_buf *wb = &sv->fr.witness[witness];
  if (sf_seq_decode(&sv->w, sv->api, wb->data, wb->len) != SF_DECODE_OK) return 0;
  sf_seq_clear(&sv->full);

  /* The witness's run: the target occurrence and the comparisons before it. */
  const sf_cmp_record *rec;
  uint32_t n = run(sv, &sv->w, &rec);
  uint32_t t = UINT32_MAX;
  for (uint32_t i = 0; i < n && t == UINT32_MAX; i++)
    if (rec[i].site == site_id) t = i;
  if (t != UINT32_MAX && rec[t].call + 1 < sv->w.ncalls) {
    /* Calls after the target's cannot change it: the attempt's runs leave
     * them out (the result keeps them). */
    if (sf_seq_copy(&sv->full, &sv->w)) return -1;
    sf_seq_truncate(&sv->w, rec[t].call + 1);
    n = run(sv, &sv->w, &rec);
    for (t = 0; t < n && rec[t].site != site_id; t++) {
    }
    if (t == n) t = UINT32_MAX;
  }
  if (t == UINT32_MAX) { /* not reached again: the target is not deterministic */
    if (sv->debug)
      fprintf(stderr, "seqfuzz: solver: site %#llx not reached again (%u records)\n",
              (unsigned long long)site_id, n);
    sv->give_up = true;
    return 0;
  }
  key keys[MAX_KEYS];
  uint32_t nkeys = 0;
  for (uint32_t i = t + 1 > MAX_KEYS ? t + 1 - MAX_KEYS : 0; i <= t; i++) {
    if (i != t && find_key(keys, nkeys, &rec[i]) != UINT32_MAX) continue;
    keys[nkeys++] = (key){rec[i].site, rec[i].call, rec[i].occurrence, rec[i].width,
                          rec[i].kind, rec[i].a,    rec[i].b};
  }
  uint32_t tk = nkeys - 1;
  obs base;
  for (uint32_t k = 0; k < nkeys; k++) {
    base.a[k] = keys[k].a0;
    base.b[k] = keys[k].b0;
    base.found[k] = true;
  }
  /* Operands that change between two runs of the same input (addresses,
   * clocks) say nothing about the arguments. */
  bool noisy[MAX_KEYS];
  obs again;
  run_obs(sv, &sv->w, keys, nkeys, &again);
  for (uint32_t k = 0; k < nkeys; k++)
    noisy[k] = !again.found[k] || again.a[k] != base.a[k] || again.b[k] != base.b[k];
  if (noisy[tk]) {
    if (sv->debug)
      fprintf(stderr, "seqfuzz: solver: site %#llx: operands differ between runs\n",
              (unsigned long long)site_id);
    sv->give_up = true;
    return 0;
  }

  sf_var vars[MAX_VARS];
  uint32_t nvars = collect_vars(&sv->w, keys[tk].call, vars);
  if (sf_seq_copy(&sv->orig, &sv->w)) return -1;
  probes *pr = calloc(1, sizeof *pr);
  if (!pr) return -1;
  /* Two probes per variable find what influences the target; the variables
   * that do get the rest. */
  uint32_t budget = sv->opt.max_runs;
  bool target_moved = false;
  uint64_t cur[MAX_VARS]; /* the variables' values in the witness as it is now */
  for (uint32_t j = 0; j < nvars; j++)
    cur[j] = vars[j].value;
  for (uint32_t j = 0; j < nvars && budget >= 2; j++) {
    /* Variables come nearest call first. Once the target's call moves it,
     * earlier calls are left alone: a fit over fewer variables is exact
     * while the others keep their values. */
    if (j > 0 && vars[j].call != vars[j - 1].call && target_moved) {
      nvars = j;
      break;
    }
    for (int p = 0; p < 2; p++, budget--)
      probe_once(sv, pr, vars, nvars, cur, j, p, keys, nkeys, tk);
    var_restore(sv, &vars[j]);
    bool moves = false;
    for (int p = 0; p < 2; p++) {
      bool changed = pr->o[j][p].found[tk] &&
                     (pr->o[j][p].a[tk] != base.a[tk] || pr->o[j][p].b[tk] != base.b[tk]);
      target_moved |= changed;
      moves |= changed || !pr->o[j][p].found[tk];
    }
    for (int p = 2; moves && p < NPROBES && budget; p++, budget--)
      probe_once(sv, pr, vars, nvars, cur, j, p, keys, nkeys, tk);
    var_restore(sv, &vars[j]);
  }

  sf_query *q = calloc(1, sizeof *q);
  uint64_t *values = calloc(MAX_VARS, sizeof *values);
  int rc = 0;
  if (!q || !values) {
    rc = -1;
    goto done;
  }
  q->vars = vars;
  q->nvars = nvars;
  q->timeout_ms = sv->opt.timeout_ms;
  bool inf_a = false, inf_b = false;
  bool fit_a = fit_operand(vars, nvars, pr, &base, keys, tk, 0, &q->target.a, &inf_a);
  bool fit_b = fit_operand(vars, nvars, pr, &base, keys, tk, 1, &q->target.b, &inf_b);
  if (!inf_a && !inf_b &&
      joint_probes(sv, vars, nvars, pr, &base, keys, tk, noisy, &q->target.a, &q->target.b)) {
    fit_a = fit_b = true;
    inf_a = q->target.a.kind != SF_FIT_CONST;
    inf_b = q->target.b.kind != SF_FIT_CONST;
  }
  /* One side explained, the other not (x == (seed ^ C) * 7919): hold the
   * other at its witness value; the check run tells if that was wrong. */
  if (fit_a != fit_b && (fit_a ? inf_a : inf_b)) {
    sf_fit *held = fit_a ? &q->target.b : &q->target.a;
    *held = (sf_fit){.kind = SF_FIT_CONST,
                     .width = keys[tk].width,
                     .base = (fit_a ? base.b[tk] : base.a[tk]) & sf_width_mask(keys[tk].width)};
    fit_a = fit_b = true;
  }
  if (sv->debug)
    fprintf(stderr,
            "seqfuzz: solver: site %#llx goal %d in call %u: %u variables, %u keys; operand a "
            "%s (%s, kind %d), b %s (%s, kind %d)\n",
            (unsigned long long)site_id, goal, keys[tk].call, nvars, nkeys,
            inf_a ? "influenced" : "fixed", fit_a ? "fit" : "unfit", q->target.a.kind,
            inf_b ? "influenced" : "fixed", fit_b ? "fit" : "unfit", q->target.b.kind);
  if (!fit_a || !fit_b || (!inf_a && !inf_b)) {
    if (sv->debug)
      for (uint32_t j = 0; j < nvars; j++)
        for (int p = 0; p < pr->n[j]; p++)
          fprintf(stderr,
                  "seqfuzz: solver:   var %u = %#llx -> %s a %#llx b %#llx (witness %#llx: a %#llx "
                  "b %#llx)\n",
                  j, (unsigned long long)pr->x[j][p],
                  pr->o[j][p].found[tk] ? "reached" : "not reached",
                  (unsigned long long)pr->o[j][p].a[tk], (unsigned long long)pr->o[j][p].b[tk],
                  (unsigned long long)vars[j].value, (unsigned long long)base.a[tk],
                  (unsigned long long)base.b[tk]);
    if (!fit_a || !fit_b)
      sv->st.unfit++;
    else
      sv->st.no_influence++;
    goto done;
  }
  q->target.goals = 1u << goal;
  /* Comparisons before it that the same variables move: keep their outcome. */
  sf_query_cmp path[SF_QUERY_MAX_PATH];
  uint32_t npath = 0;
  for (uint32_t k = 0; k < tk && npath < SF_QUERY_MAX_PATH; k++) {
    sf_query_cmp c;
    bool ia, ib;
    if (noisy[k]) continue;
    if (!fit_operand(vars, nvars, pr, &base, keys, k, 0, &c.a, &ia) ||
        !fit_operand(vars, nvars, pr, &base, keys, k, 1, &c.b, &ib) || (!ia && !ib) ||
        !shares_variable(&c, &q->target))
      continue; /* comparisons of other variables hold: those keep their values */
    c.goals = sf_goal_outcomes(keys[k].a0, keys[k].b0, keys[k].width);
    path[npath++] = c;
  }
  sf_smt_result r = solve_levels(sv, q, path, npath, values);
  if (r != SF_SMT_SAT) {
    if (r == SF_SMT_UNSAT) {
      /* A checksum over a short buffer may need more bytes than it has: hand
       * the engine the witness with that buffer grown (it becomes the site's
       * witness for the next attempt). */
      if (grow_buffer(sv, vars, &q->target) &&
          !sf_seq_encode(sv->full.ncalls ? &sv->full : &sv->w, out)) {
        sv->grown = true;
        rc = 1;
      }
    }
    goto done;
  }
  bool flipped = check_model(sv, vars, nvars, values, keys, nkeys, tk, goal);
  /* A variable the target did not move alone (it made the target
   * unreachable: a guard's operand) may still be one of its operands' terms;
   * a model that moved it to keep the path broke the fit. Again with only
   * the target's variables free. */
  sf_var *pinned = NULL;
  if (!flipped && (pinned = pin_others(vars, nvars, &q->target))) {
    if (sf_seq_copy(&sv->w, &sv->orig)) {
      rc = -1;
      goto done;
    }
    q->vars = pinned;
    if (solve_levels(sv, q, path, npath, values) == SF_SMT_SAT)
      flipped = check_model(sv, vars, nvars, values, keys, nkeys, tk, goal);
    free(pinned);
  }
  if (!flipped) goto done;
  sv->st.flips++;
  keep_flip_records(sv);
  size_t start = out->len;
  rc = encode_result(sv, vars, nvars, values, out);
  if (rc == 1 && !sv->sh) remember(sv, out, start); /* (the child's parent does it) */
done:
  free(pr);
  free(q);
  free(values);
  return rc;
}

/* The sanitizers' hook libFuzzer uses to save the input that crashed: a
 * child must not save the engine's input for its own crash. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

/* In the child: die quietly and quickly; the parent hands the input on. */
static void child_setup(uint32_t seconds) {
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(NULL);
  int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
    signal(sigs[i], SIG_DFL);
  if (!getenv("SEQFUZZ_SOLVER_DEBUG")) {
    FILE *null = freopen("/dev/null", "w", stderr);
    (void)null;
  }
  alarm(seconds);
}

/* After an attempt that flipped: learn from the flip's check run. */
static void learn_flip(sf_solver *sv) {
  const uint8_t *in = NULL;
  uint32_t len = 0, n = 0;
  const sf_cmp_record *rec = NULL;
  if (sv->sh && sv->sh->done && sv->sh->rc == 1 && !sv->sh->grown && sv->sh->nflip) {
    in = sv->sh->input;
    len = sv->sh->input_len;
    rec = sv->sh->flip;
    n = sv->sh->nflip;
    sv->sh->nflip = 0;
  } else if (!sv->sh && sv->nflip) {
    sf_buf_reset(&sv->scratch);
    if (sf_seq_encode(&sv->w, &sv->scratch)) return;
    in = sv->scratch.data;
    len = (uint32_t)sv->scratch.len;
    rec = sv->flip;
    n = sv->nflip;
    sv->nflip = 0;
  }
  if (!n || sf_seq_decode(&sv->w, sv->api, in, len) != SF_DECODE_OK) return;
  sf_frontier_observe(&sv->fr, &sv->w, rec, n);
}

int sf_solver_step(sf_solver *sv, sf_buf *out) {
  sf_site *site;
  sf_goal goal;
  if (!sf_frontier_pick(&sv->fr, sv->opt.max_tries, &site, &goal)) return 0;
  site->tries[goal]++;
  sv->st.attempts++;
  uint64_t site_id = site->site;
  uint32_t witness = site->witness;
  int rc;
  size_t before = out->len;
  struct timespec t_fork;
  sv->give_up = sv->grown = false;
  pid_t pid = -1;
  if (sv->sh) {
    fflush(stdout);
    fflush(stderr);
    sv->sh->done = 0;
    sv->sh->input_len = 0;
    sv->sh->nflip = 0;
    clock_gettime(CLOCK_MONOTONIC, &t_fork);
    pid = fork();
  }
  if (pid == 0) { /* the child: attempt, report, leave without exit handlers */
    child_setup(60);
    sf_buf res = {0};
    sv->sh->rc = attempt(sv, site_id, witness, goal, &res);
    sv->sh->result_len = 0;
    if (sv->sh->rc == 1 && res.len <= SHARED_MAX) {
      memcpy(sv->sh->result, res.data, res.len);
      sv->sh->result_len = (uint32_t)res.len;
    }
    sv->sh->st = sv->st;
    sv->sh->give_up = sv->give_up;
    sv->sh->grown = sv->grown;
    __atomic_store_n(&sv->sh->done, 1, __ATOMIC_RELEASE);
    _exit(0);
  }
  if (pid < 0) {
    rc = attempt(sv, site_id, witness, goal, out); /* no isolation available */
  } else {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (sv->debug) {
      struct timespec t_end;
      clock_gettime(CLOCK_MONOTONIC, &t_end);
      fprintf(stderr, "seqfuzz: solver: attempt took %.1f ms (in a child process)\n",
              1e3 * (double)(t_end.tv_sec - t_fork.tv_sec) +
                  1e-6 * (double)(t_end.tv_nsec - t_fork.tv_nsec));
    }
    if (__atomic_load_n(&sv->sh->done, __ATOMIC_ACQUIRE)) {
      sv->st = sv->sh->st;
      sv->give_up = sv->sh->give_up;
      sv->grown = sv->sh->grown;
      rc = sv->sh->rc;
      if (rc == 1 && sf_buf_append(out, sv->sh->result, sv->sh->result_len)) rc = -1;
      if (rc == 1 && !sv->grown) remember(sv, out, out->len - sv->sh->result_len);
    } else {
      /* The target crashed or hung on an input of the attempt: hand it to
       * the engine, which runs it and reports the crash with that input. */
      sv->st.crashes++;
      rc = sv->sh->input_len && !sf_buf_append(out, sv->sh->input, sv->sh->input_len) ? 1 : 0;
    }
  }
  learn_flip(sv);
  site = sf_frontier_find(&sv->fr, site_id, false);
  if (site && rc == 1 && sv->grown) {
    /* The grown input is the site's witness from now on: try again. */
    sf_frontier_set_witness(&sv->fr, site, out->data + before, out->len - before);
    site->tries[goal]--;
  } else if (site && rc == 1) {
    site->seen |= 1u << goal; /* do not solve it again */
  }
  if (site && sv->give_up) memset(site->tries, 0xff, sizeof site->tries);
  return rc;
}
