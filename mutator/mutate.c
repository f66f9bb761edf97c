/* Structure-aware mutation (contract in mutate.h). */
#include "mutate.h"

#include <stdlib.h>
#include <string.h>

#include "../base/sf_rng.h"

#define DANGLING (UINT64_MAX - 1) /* a value id that repair will treat as gone */
#define MAX_PRODUCER_DEPTH 3

struct sf_mutator {
  const sf_api *api;
  sf_mutator_options opt;
  sf_rng rng;
  uint32_t **producers; /* per handle type: functions producing it */
  uint32_t *nproducers;
  sf_seq cur, next;     /* scratch sequences */
  sf_seq other;
  sf_life life;
  sf_buf enc;
  uint32_t *cands;
  uint32_t ncap;
};

sf_mutator *sf_mutator_new(const sf_api *api, const sf_mutator_options *opt) {
  sf_mutator *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->api = api;
  m->opt.max_calls = opt && opt->max_calls ? opt->max_calls : 64;
  if (m->opt.max_calls > SF_SEQ_MAX_CALLS) m->opt.max_calls = SF_SEQ_MAX_CALLS;
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
    for (uint32_t h = 0; h < m->api->nhandles; h++) free(m->producers[h]);
  free(m->producers);
  free(m->nproducers);
  sf_seq_free(&m->cur);
  sf_seq_free(&m->next);
  sf_seq_free(&m->other);
  sf_life_free(&m->life);
  sf_buf_free(&m->enc);
  free(m->cands);
  free(m);
}

/* ---- primitive values --------------------------------------------------- */

static uint64_t interesting_int(sf_mutator *m, const sf_param *p) {
  static const int64_t table[] = {0,   1,   -1,    2,     3,     4,     7,     8,    15,
                                  16,  31,  32,    63,    64,    100,   127,   128,  255,
                                  256, 512, 1000,  1024,  4096,  32767, 32768, 65535, 65536,
                                  INT32_MAX, INT32_MIN, (int64_t)UINT32_MAX, INT64_MAX, INT64_MIN};
  sf_rng *r = &m->rng;
  switch (sf_rng_below(r, 6)) {
  case 0: return p->lo;
  case 1: return p->hi;
  case 2: return p->lo + sf_rng_below(r, 3);
  case 3: return p->hi - sf_rng_below(r, 3);
  default: return (uint64_t)table[sf_rng_below(r, sizeof table / sizeof *table)];
  }
}

static uint64_t gen_int(sf_mutator *m, const sf_param *p) {
  sf_rng *r = &m->rng;
  const sf_api *api = m->api;
  uint64_t v;
  switch (sf_rng_below(r, 10)) {
  case 0:
  case 1:
  case 2: v = interesting_int(m, p); break;
  case 3:
    if (api->nenums) {
      const sf_enum *e = &api->enums[sf_rng_below(r, api->nenums)];
      v = (uint64_t)e->consts[sf_rng_below(r, e->nconsts)].value;
      break;
    }
    /* fall through */
  case 4:
  case 5:
  case 6: v = sf_rng_below(r, 17); break;
  default: v = sf_rng_next(r) >> sf_rng_below(r, 64);
  }
  return sf_arg_prim_repair(api, p, v);
}

static uint64_t gen_float(sf_mutator *m, sf_kind k) {
  static const double table[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 10.0, 1e-300, 1e300, 1e30,
                                 3.4028234663852886e38, 1.0 / 0.0, -1.0 / 0.0};
  sf_rng *r = &m->rng;
  double d;
  if (sf_rng_chance(r, 1, 10)) return k == SF_F32 ? 0x7fc00000ULL : 0x7ff8000000000000ULL;
  if (sf_rng_chance(r, 2, 3)) d = table[sf_rng_below(r, sizeof table / sizeof *table)];
  else d = (double)(int64_t)sf_rng_next(r) / (double)(1ULL << sf_rng_below(r, 63));
  if (k == SF_F32) {
    float f = (float)d;
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
  }
  uint64_t b;
  memcpy(&b, &d, 8);
  return b;
}

static uint64_t gen_prim(sf_mutator *m, const sf_param *p) {
  sf_rng *r = &m->rng;
  switch (p->kind) {
  case SF_BOOL: return sf_rng_below(r, 2);
  case SF_F32:
  case SF_F64: return sf_arg_prim_repair(m->api, p, gen_float(m, p->kind));
  case SF_ENUM: return sf_rng_below(r, m->api->enums[p->type_index].nconsts);
  case SF_FLAGS: {
    uint32_t n = m->api->enums[p->type_index].nconsts;
    uint64_t mask = 0;
    if (sf_rng_chance(r, 1, 2)) mask = 1ULL << sf_rng_below(r, n);
    else if (sf_rng_chance(r, 1, 2)) mask = sf_rng_next(r);
    return sf_arg_prim_repair(m->api, p, mask);
  }
  default: return gen_int(m, p);
  }
}

/* Pick bytes for a string or buffer: from the dictionary, from another bytes
 * argument of the sequence (so keys match across calls), or random. */
static void pick_bytes(sf_mutator *m, const sf_seq *s, sf_buf *out, uint64_t max_len) {
  sf_rng *r = &m->rng;
  sf_buf_reset(out);
  uint32_t choice = (uint32_t)sf_rng_below(r, 10);
  if (choice < 3 && m->api->ndict) {
    const char *d = m->api->dict[sf_rng_below(r, m->api->ndict)];
    sf_buf_append(out, d, strlen(d));
  } else if (choice < 7 && s->ncalls) {
    /* Reuse the bytes of an existing argument. */
    for (int tries = 0; tries < 8; tries++) {
      uint32_t ci = (uint32_t)sf_rng_below(r, s->ncalls);
      const sf_func *f = sf_seq_func(s, ci);
      if (!f->nparams) continue;
      uint32_t i = (uint32_t)sf_rng_below(r, f->nparams);
      sf_kind k = f->params[i].kind;
      if (!sf_param_is_input(&f->params[i]) || !(k == SF_STRING || k == SF_BUFFER)) continue;
      const sf_arg *a = &sf_seq_args(s, ci)[i];
      sf_buf_append(out, sf_seq_bytes(s, a), a->len);
      break;
    }
  }
  if (out->len == 0 || choice >= 7) {
    sf_buf_reset(out);
    uint64_t n = sf_rng_chance(r, 3, 4) ? sf_rng_below(r, 9) : sf_rng_below(r, 65);
    for (uint64_t i = 0; i < n; i++) {
      uint8_t c = sf_rng_chance(r, 3, 4) ? (uint8_t)('a' + sf_rng_below(r, 26))
                                         : (uint8_t)sf_rng_below(r, 256);
      sf_buf_putc(out, c);
    }
  }
  if (out->len > max_len) out->len = (size_t)max_len;
}

/* Fill a bytes argument (string, buffer, array) of p. */
static int gen_bytes(sf_mutator *m, sf_seq *s, const sf_func *f, const sf_param *p, sf_arg *a) {
  sf_buf tmp = {0};
  int rc = 0;
  if (p->kind == SF_STRING) {
    if ((p->flags & SF_P_NULLABLE) && sf_rng_chance(&m->rng, 1, 16)) {
      a->bits = 1;
      a->len = 0;
      return 0;
    }
    pick_bytes(m, s, &tmp, SF_MAX_STRING);
    uint8_t *nul = tmp.len ? memchr(tmp.data, 0, tmp.len) : NULL;
    if (nul) tmp.len = (size_t)(nul - tmp.data);
    a->bits = 0;
  } else {
    unsigned es = sf_kind_size(p->elem);
    uint64_t lo = p->array_len, hi = p->array_len;
    if (p->kind == SF_BUFFER) sf_seq_buffer_bounds(f, p, &lo, &hi);
    if (es == 1) {
      pick_bytes(m, s, &tmp, hi);
    } else {
      uint64_t n = lo + sf_rng_below(&m->rng, (hi - lo < 16 ? hi - lo : 16) + 1);
      for (uint64_t i = 0; i < n; i++) {
        sf_param ep = {0};
        ep.kind = p->elem;
        ep.hi = UINT64_MAX;
        if (sf_kind_is_signed(p->elem)) {
          ep.lo = 1ULL << 63;
          ep.hi = INT64_MAX;
        }
        uint64_t v = gen_prim(m, &ep);
        sf_buf_append(&tmp, &v, es);
      }
    }
    while (tmp.len / es < lo) sf_buf_putc(&tmp, 0);
    tmp.len -= tmp.len % es;
    if (tmp.len / es > hi) tmp.len = (size_t)(hi * es);
  }
  rc = sf_seq_set_bytes(s, a, tmp.data ? tmp.data : (const uint8_t *)"", tmp.len);
  sf_buf_free(&tmp);
  return rc;
}

/* ---- building calls ----------------------------------------------------- */

static uint32_t candidates(sf_mutator *m, uint32_t htype) {
  if (m->ncap < m->life.n + 1) {
    uint32_t *c = realloc(m->cands, (m->life.n + 16) * sizeof *c);
    if (!c) return 0;
    m->cands = c;
    m->ncap = m->life.n + 16;
  }
  return sf_life_candidates(&m->life, htype, m->cands, m->ncap);
}

static bool can_make(const sf_mutator *m, uint32_t htype) { return m->nproducers[htype] > 0; }

/* Append a call of fi to s (whose lifetimes are in m->life), producing any
 * missing handle first. Returns false if it could not be formed. */
static bool append_call(sf_mutator *m, sf_seq *s, uint32_t fi, int depth) {
  const sf_func *f = &m->api->funcs[fi];
  sf_arg args[64];
  memset(args, 0, sizeof args);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (!sf_param_is_input(p)) continue;
    if (p->kind == SF_HANDLE) {
      uint32_t n = candidates(m, p->type_index);
      bool use_null = (p->flags & SF_P_NULLABLE) && (n == 0 || sf_rng_chance(&m->rng, 1, 10));
      if (use_null) {
        args[i].bits = SF_NULL_REF;
        continue;
      }
      if (n == 0 || (depth == 0 && sf_rng_chance(&m->rng, 1, 8))) {
        /* Produce a fresh value of this type first (Randoop's option b). */
        if (depth >= MAX_PRODUCER_DEPTH || !can_make(m, p->type_index)) {
          if (n == 0) return false;
        } else {
          uint32_t pf = m->producers[p->type_index]
                                    [sf_rng_below(&m->rng, m->nproducers[p->type_index])];
          if (!append_call(m, s, pf, depth + 1) && n == 0) return false;
          n = candidates(m, p->type_index);
          if (n == 0) return false;
          args[i].bits = m->cands[0]; /* the newest */
          continue;
        }
      }
      /* Favour recent values: half the time the newest. */
      args[i].bits = m->cands[sf_rng_chance(&m->rng, 1, 2) ? 0 : sf_rng_below(&m->rng, n)];
    } else if (p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY) {
      if (gen_bytes(m, s, f, p, &args[i])) return false;
    } else {
      args[i].bits = gen_prim(m, p);
    }
  }
  /* A handle argument may have been consumed by a producer call made for a
   * later parameter: check before committing. */
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (p->kind == SF_HANDLE && sf_param_is_input(p) && args[i].bits != SF_NULL_REF &&
        !sf_life_usable(&m->life, args[i].bits, p->type_index))
      return false;
  }
  sf_arg *a = sf_seq_add_call(s, fi);
  if (!a) return false;
  memcpy(a, args, f->nparams * sizeof *a);
  return sf_life_apply(&m->life, fi, a) == 0;
}

static uint32_t random_func(sf_mutator *m) {
  return (uint32_t)sf_rng_below(&m->rng, m->api->nfuncs);
}

/* Copy calls [from, to) of src onto dst, mapping values; values of calls not
 * copied keep whatever map holds (DANGLING by default). */
static int copy_calls(sf_mutator *m, sf_seq *dst, const sf_seq *src, uint32_t from, uint32_t to,
                      uint64_t *map) {
  for (uint32_t ci = from; ci < to; ci++) {
    uint32_t newval = dst->nvals;
    sf_arg *a = sf_seq_append_from(dst, src, ci, map);
    if (!a) return -1;
    const sf_func *f = sf_seq_func(src, ci);
    for (uint32_t k = 0; k < f->nproduced; k++) map[src->calls[ci].val0 + k] = newval + k;
    /* Lifetimes only for values that exist in dst. */
    bool ok = true;
    for (uint32_t i = 0; i < f->nparams; i++)
      if (f->params[i].kind == SF_HANDLE && sf_param_is_input(&f->params[i]) &&
          a[i].bits != SF_NULL_REF && a[i].bits >= dst->nvals)
        ok = false;
    if (ok && sf_life_apply(&m->life, dst->calls[dst->ncalls - 1].func, a)) return -1;
    if (!ok) { /* keep life in step: the call's values exist but are unusable */
      sf_arg none[64];
      memset(none, 0, sizeof none);
      for (uint32_t i = 0; i < f->nparams; i++) none[i].bits = SF_NULL_REF;
      if (sf_life_apply(&m->life, dst->calls[dst->ncalls - 1].func, none)) return -1;
    }
  }
  return 0;
}

static uint64_t *make_map(uint32_t n) {
  uint64_t *map = malloc(((size_t)n + 1) * sizeof *map);
  if (map)
    for (uint32_t i = 0; i <= n; i++) map[i] = DANGLING;
  return map;
}

/* ---- mutations (each reads m->cur, writes m->next) ---------------------- */

static int mut_insert(sf_mutator *m, bool at_end) {
  const sf_seq *src = &m->cur;
  uint32_t pos = at_end ? src->ncalls : (uint32_t)sf_rng_below(&m->rng, src->ncalls + 1);
  uint64_t *map = make_map(src->nvals);
  if (!map) return -1;
  sf_seq_clear(&m->next);
  sf_life_clear(&m->life);
  int rc = copy_calls(m, &m->next, src, 0, pos, map);
  if (rc == 0) {
    for (int tries = 0; tries < 4; tries++)
      if (append_call(m, &m->next, random_func(m), 0)) break;
    rc = copy_calls(m, &m->next, src, pos, src->ncalls, map);
  }
  free(map);
  return rc;
}

static int mut_remove(sf_mutator *m) {
  const sf_seq *src = &m->cur;
  if (!src->ncalls) return mut_insert(m, true);
  uint32_t victim = (uint32_t)sf_rng_below(&m->rng, src->ncalls);
  uint64_t *map = make_map(src->nvals);
  if (!map) return -1;
  sf_seq_clear(&m->next);
  sf_life_clear(&m->life);
  int rc = copy_calls(m, &m->next, src, 0, victim, map);
  if (rc == 0) rc = copy_calls(m, &m->next, src, victim + 1, src->ncalls, map);
  free(map);
  return rc;
}

/* Change one input argument of one call. */
static int mut_arg(sf_mutator *m) {
  if (sf_seq_copy(&m->next, &m->cur)) return -1;
  sf_seq *s = &m->next;
  if (!s->ncalls) return mut_insert(m, true);
  for (int tries = 0; tries < 8; tries++) {
    uint32_t ci = (uint32_t)sf_rng_below(&m->rng, s->ncalls);
    const sf_func *f = sf_seq_func(s, ci);
    if (!f->nparams) continue;
    uint32_t i = (uint32_t)sf_rng_below(&m->rng, f->nparams);
    const sf_param *p = &f->params[i];
    if (!sf_param_is_input(p)) continue;
    sf_arg *a = &sf_seq_args(s, ci)[i];
    if (p->kind == SF_HANDLE) {
      /* Another alive value of the same type at that point. */
      sf_life_clear(&m->life);
      for (uint32_t k = 0; k < ci; k++) sf_life_apply(&m->life, s->calls[k].func, sf_seq_args(s, k));
      uint32_t n = candidates(m, p->type_index);
      if (n < 2 && !(p->flags & SF_P_NULLABLE)) continue;
      uint64_t pick = sf_rng_below(&m->rng, n + ((p->flags & SF_P_NULLABLE) ? 1 : 0));
      a->bits = pick < n ? m->cands[pick] : SF_NULL_REF;
    } else if (p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY) {
      sf_arg na = *a;
      if (sf_rng_chance(&m->rng, 1, 2) && a->len && !(p->kind == SF_STRING && a->bits)) {
        /* Small edit of the existing bytes. */
        sf_buf tmp = {0};
        sf_buf_append(&tmp, sf_seq_bytes(s, a), a->len);
        size_t at = (size_t)sf_rng_below(&m->rng, tmp.len);
        switch (sf_rng_below(&m->rng, 3)) {
        case 0: tmp.data[at] ^= (uint8_t)(1u << sf_rng_below(&m->rng, 8)); break;
        case 1: tmp.data[at] = (uint8_t)sf_rng_below(&m->rng, 256); break;
        default: sf_buf_append(&tmp, tmp.data + at, tmp.len - at); break; /* duplicate a tail */
        }
        int rc = sf_seq_set_bytes(s, &na, tmp.data, tmp.len);
        sf_buf_free(&tmp);
        if (rc) return -1;
      } else if (gen_bytes(m, s, f, p, &na)) {
        return -1;
      }
      *a = na; /* repair fixes lengths, NULs and element canonical forms */
    } else if (sf_kind_is_int(p->kind) && sf_rng_chance(&m->rng, 1, 3)) {
      int64_t delta = (int64_t)sf_rng_below(&m->rng, 33) - 16;
      a->bits = sf_arg_prim_repair(m->api, p, a->bits + (uint64_t)delta);
    } else {
      a->bits = gen_prim(m, p);
    }
    return 0;
  }
  return 0;
}

/* Repeat a call a few times at the end (containers need repetition). */
static int mut_repeat(sf_mutator *m) {
  if (sf_seq_copy(&m->next, &m->cur)) return -1;
  sf_seq *s = &m->next;
  if (!s->ncalls) return mut_insert(m, true);
  uint32_t ci = (uint32_t)sf_rng_below(&m->rng, s->ncalls);
  uint32_t times = 1 + (uint32_t)sf_rng_below(&m->rng, 8);
  uint64_t *map = make_map(s->nvals);
  if (!map) return -1;
  for (uint32_t v = 0; v < s->nvals; v++) map[v] = v;
  int rc = 0;
  for (uint32_t k = 0; k < times && rc == 0; k++)
    if (!sf_seq_append_from(s, s, ci, map)) rc = -1;
  free(map);
  return rc;
}

/* Splice: a prefix of a with calls of b; b's handles are renamed onto a's
 * alive values of the same type where b's own producer was not taken. */
static int splice(sf_mutator *m, const sf_seq *a, const sf_seq *b) {
  uint32_t cut_a = a->ncalls ? (uint32_t)sf_rng_below(&m->rng, a->ncalls + 1) : 0;
  uint32_t from_b = b->ncalls ? (uint32_t)sf_rng_below(&m->rng, b->ncalls) : 0;
  uint64_t *amap = make_map(a->nvals), *bmap = make_map(b->nvals);
  int rc = -1;
  if (!amap || !bmap) goto out;
  sf_seq_clear(&m->next);
  sf_life_clear(&m->life);
  if (copy_calls(m, &m->next, a, 0, cut_a, amap)) goto out;
  for (uint32_t v = 0; v < b->nvals; v++) {
    if (b->vals[v].call >= from_b) continue;
    uint32_t n = candidates(m, b->vals[v].htype);
    if (n) bmap[v] = m->cands[sf_rng_below(&m->rng, n)];
  }
  rc = copy_calls(m, &m->next, b, from_b, b->ncalls, bmap);
out:
  free(amap);
  free(bmap);
  return rc;
}

/* ---- driver ------------------------------------------------------------- */

static void decode_or_empty(sf_mutator *m, sf_seq *s, const uint8_t *d, size_t n) {
  if (sf_seq_decode(s, m->api, d, n) != SF_DECODE_OK) sf_seq_clear(s);
}

/* Repair, bound the length, encode into out. */
static size_t finish(sf_mutator *m, sf_seq *s, uint8_t *out, size_t max_size) {
  if (max_size < SF_HEADER_SIZE) return 0;
  if (sf_seq_repair(s) < 0) sf_seq_clear(s);
  sf_seq_truncate(s, m->opt.max_calls);
  for (;;) {
    sf_buf_reset(&m->enc);
    if (sf_seq_encode(s, &m->enc)) return 0;
    if (m->enc.len <= max_size) break;
    /* Too big: drop calls from the end (a prefix stays valid). */
    if (s->ncalls == 0) return 0;
    sf_seq_truncate(s, s->ncalls / 2);
  }
  memcpy(out, m->enc.data, m->enc.len);
  return m->enc.len;
}

size_t sf_mutator_mutate(sf_mutator *m, const uint8_t *data, size_t size, uint8_t *out,
                         size_t max_size, uint64_t seed) {
  sf_rng_seed(&m->rng, seed);
  decode_or_empty(m, &m->cur, data, size);
  int rc;
  uint32_t op = (uint32_t)sf_rng_below(&m->rng, 100);
  if (m->cur.ncalls == 0 || op < 35) rc = mut_insert(m, true);
  else if (op < 50) rc = mut_insert(m, false);
  else if (op < 62) rc = mut_remove(m);
  else if (op < 90) rc = mut_arg(m);
  else rc = mut_repeat(m);
  if (rc) sf_seq_clear(&m->next);
  return finish(m, &m->next, out, max_size);
}

size_t sf_mutator_crossover(sf_mutator *m, const uint8_t *d1, size_t s1, const uint8_t *d2,
                            size_t s2, uint8_t *out, size_t max_size, uint64_t seed) {
  sf_rng_seed(&m->rng, seed);
  decode_or_empty(m, &m->cur, d1, s1);
  decode_or_empty(m, &m->other, d2, s2);
  if (splice(m, &m->cur, &m->other)) sf_seq_clear(&m->next);
  return finish(m, &m->next, out, max_size);
}

int sf_mutator_generate(sf_mutator *m, sf_seq *s, uint32_t ncalls, uint64_t seed) {
  sf_rng_seed(&m->rng, seed);
  sf_seq_clear(s);
  sf_life_clear(&m->life);
  for (uint32_t i = 0; i < ncalls * 4 && s->ncalls < ncalls; i++)
    append_call(m, s, random_func(m), 0);
  return sf_seq_repair(s) < 0 ? -1 : 0;
}
