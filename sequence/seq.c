/* The sequence model: storage, lifetimes, validity and repair. */
#include "seq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/sf_hash.h"
#include "seq_internal.h"

/* ---- storage ------------------------------------------------------------ */

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t size) {
  if (need <= *cap && *arr) return 0; /* always allocated: &arr[n] must be valid */
  uint32_t c = *cap ? *cap : 16;
  while (c < need)
    c *= 2;
  void *p = realloc(*arr, (size_t)c * size);
  if (!p) return -1;
  *arr = p;
  *cap = c;
  return 0;
}

void sf_seq_init(sf_seq *s, const sf_api *api) {
  memset(s, 0, sizeof *s);
  s->api = api;
}

sf_seq_work *sf_seq_work_get(const sf_seq *s) {
  sf_seq *m = (sf_seq *)s; /* the scratch is not part of the value */
  if (!m->work) {
    m->work = calloc(1, sizeof *m->work);
    if (!m->work) return NULL;
  }
  m->work->life.api = s->api;
  sf_life_clear(&m->work->life);
  m->work->spare.api = s->api;
  return m->work;
}

int sf_seq_work_cands(sf_seq_work *w, uint32_t n) {
  if (n <= w->candcap) return 0;
  uint32_t *c = realloc(w->cands, (n + 16) * sizeof *c);
  if (!c) return -1;
  w->cands = c;
  w->candcap = n + 16;
  return 0;
}

int sf_seq_work_map(sf_seq_work *w, uint32_t n) {
  if (n <= w->mapcap) return 0;
  uint64_t *m = realloc(w->map, (n + 16) * sizeof *m);
  if (!m) return -1;
  w->map = m;
  w->mapcap = n + 16;
  return 0;
}

void sf_seq_free(sf_seq *s) {
  if (s->work) {
    sf_life_free(&s->work->life);
    free(s->work->cands);
    free(s->work->map);
    sf_seq_free(&s->work->spare);
    free(s->work);
  }
  free(s->calls);
  free(s->args);
  free(s->vals);
  sf_buf_free(&s->blob);
  memset(s, 0, sizeof *s);
}

void sf_seq_clear(sf_seq *s) {
  s->ncalls = s->nargs = s->nvals = 0;
  s->observed = false;
  sf_buf_reset(&s->blob);
}

int sf_seq_copy(sf_seq *dst, const sf_seq *src) {
  sf_seq_clear(dst);
  dst->api = src->api;
  if (grow((void **)&dst->calls, &dst->callcap, src->ncalls, sizeof *dst->calls) ||
      grow((void **)&dst->args, &dst->argcap, src->nargs, sizeof *dst->args) ||
      grow((void **)&dst->vals, &dst->valcap, src->nvals, sizeof *dst->vals) ||
      sf_buf_append(&dst->blob, src->blob.data, src->blob.len))
    return -1;
  if (src->ncalls) memcpy(dst->calls, src->calls, src->ncalls * sizeof *dst->calls);
  if (src->nargs) memcpy(dst->args, src->args, src->nargs * sizeof *dst->args);
  if (src->nvals) memcpy(dst->vals, src->vals, src->nvals * sizeof *dst->vals);
  dst->ncalls = src->ncalls;
  dst->nargs = src->nargs;
  dst->nvals = src->nvals;
  dst->observed = src->observed;
  return 0;
}

sf_arg *sf_seq_add_call(sf_seq *s, uint32_t func) {
  const sf_func *f = &s->api->funcs[func];
  if (grow((void **)&s->calls, &s->callcap, s->ncalls + 1, sizeof *s->calls) ||
      grow((void **)&s->args, &s->argcap, s->nargs + f->nparams, sizeof *s->args) ||
      grow((void **)&s->vals, &s->valcap, s->nvals + f->nproduced, sizeof *s->vals))
    return NULL;
  sf_call *c = &s->calls[s->ncalls];
  c->func = func;
  c->arg0 = s->nargs;
  c->val0 = s->nvals;
  sf_arg *args = &s->args[s->nargs];
  for (uint32_t i = 0; i < f->nparams; i++) /* a loop, not memset: see sf_copy_bytes */
    args[i] = (sf_arg){.bits = f->params[i].kind == SF_HANDLE && !(f->params[i].flags & SF_P_OUT)
                                   ? SF_NULL_REF
                                   : 0};
  if (f->ret.kind == SF_HANDLE) s->vals[s->nvals++] = (sf_value){s->ncalls, -1, f->ret.type_index};
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == SF_HANDLE && (f->params[i].flags & SF_P_OUT))
      s->vals[s->nvals++] = (sf_value){s->ncalls, (int32_t)i, f->params[i].type_index};
  s->nargs += f->nparams;
  s->ncalls++;
  return args;
}

int sf_seq_set_bytes(sf_seq *s, sf_arg *a, const void *data, size_t len) {
  if (len > UINT32_MAX || s->blob.len + len > UINT32_MAX) return -1;
  /* `data` may point into the blob itself; reserve first, then copy. */
  size_t src_off = SIZE_MAX;
  if (s->blob.data && (const uint8_t *)data >= s->blob.data &&
      (const uint8_t *)data < s->blob.data + s->blob.len)
    src_off = (size_t)((const uint8_t *)data - s->blob.data);
  if (sf_buf_reserve(&s->blob, len)) return -1;
  if (src_off != SIZE_MAX) data = s->blob.data + src_off;
  a->off = (uint32_t)s->blob.len;
  a->len = (uint32_t)len;
  if (len) sf_copy_bytes(s->blob.data + s->blob.len, data, len); /* data ends before blob.len */
  s->blob.len += len;
  return 0;
}

static bool has_bytes(const sf_param *p) {
  return p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY;
}

sf_arg *sf_seq_append_from(sf_seq *dst, const sf_seq *src, uint32_t ci, const uint64_t *map) {
  uint32_t fi = src->calls[ci].func;
  const sf_func *f = &src->api->funcs[fi];
  sf_arg *out = sf_seq_add_call(dst, fi);
  if (!out) return NULL;
  const sf_arg *in = sf_seq_args(src, ci);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (!sf_param_is_input(p)) continue;
    if (p->kind == SF_HANDLE) {
      out[i].bits = in[i].bits == SF_NULL_REF ? SF_NULL_REF : map[in[i].bits];
    } else if (has_bytes(p)) {
      out[i].bits = in[i].bits; /* NULL string marker */
      if (sf_seq_set_bytes(dst, &out[i], sf_seq_bytes(src, &in[i]), in[i].len)) return NULL;
    } else {
      out[i].bits = in[i].bits;
    }
  }
  return out;
}

int sf_seq_without_call(const sf_seq *src, uint32_t skip, sf_seq *dst) {
  sf_seq_clear(dst);
  dst->api = src->api;
  dst->observed = src->observed;
  uint64_t *map = malloc(((size_t)src->nvals + 1) * sizeof *map);
  if (!map) return -1;
  /* Values of the skipped call dangle; repair drops the calls using them. */
  for (uint32_t v = 0; v <= src->nvals; v++)
    map[v] = UINT64_MAX - 1;
  int rc = 0;
  for (uint32_t ci = 0; ci < src->ncalls && rc == 0; ci++) {
    if (ci == skip) continue;
    uint32_t v0 = dst->nvals;
    if (!sf_seq_append_from(dst, src, ci, map)) rc = -1;
    for (uint32_t k = 0; k < sf_seq_func(src, ci)->nproduced; k++)
      map[src->calls[ci].val0 + k] = v0 + k;
  }
  free(map);
  return rc == 0 && sf_seq_repair(dst) >= 0 ? 0 : -1;
}

void sf_seq_truncate(sf_seq *s, uint32_t n) {
  if (n >= s->ncalls) return;
  s->ncalls = n;
  s->nargs = n ? s->calls[n - 1].arg0 + sf_seq_func(s, n - 1)->nparams : 0;
  s->nvals = n ? s->calls[n - 1].val0 + sf_seq_func(s, n - 1)->nproduced : 0;
}

bool sf_seq_equal(const sf_seq *a, const sf_seq *b) {
  if (a->ncalls != b->ncalls || a->observed != b->observed) return false;
  for (uint32_t ci = 0; ci < a->ncalls; ci++) {
    if (a->calls[ci].func != b->calls[ci].func) return false;
    const sf_func *f = sf_seq_func(a, ci);
    const sf_arg *x = sf_seq_args(a, ci), *y = sf_seq_args(b, ci);
    for (uint32_t i = 0; i < f->nparams; i++) {
      if (!sf_param_is_input(&f->params[i])) continue;
      if (has_bytes(&f->params[i])) {
        if (x[i].bits != y[i].bits || x[i].len != y[i].len ||
            (x[i].len && memcmp(sf_seq_bytes(a, &x[i]), sf_seq_bytes(b, &y[i]), x[i].len)))
          return false;
      } else if (x[i].bits != y[i].bits) {
        return false;
      }
    }
  }
  return true;
}

uint64_t sf_seq_hash(const sf_seq *s) {
  uint64_t h = 0x5e9f + s->observed;
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    h = sf_hash_mix(h, s->calls[ci].func);
    const sf_func *f = sf_seq_func(s, ci);
    const sf_arg *a = sf_seq_args(s, ci);
    for (uint32_t i = 0; i < f->nparams; i++) {
      if (!sf_param_is_input(&f->params[i])) continue;
      if (has_bytes(&f->params[i]))
        h = sf_hash_mix(h, sf_hash_bytes(sf_seq_bytes(s, &a[i]), a[i].len, a[i].len + a[i].bits));
      else
        h = sf_hash_mix(h, a[i].bits);
    }
  }
  return h;
}

/* ---- lifetimes ---------------------------------------------------------- */

void sf_life_init(sf_life *l, const sf_api *api) {
  memset(l, 0, sizeof *l);
  l->api = api;
}

void sf_life_free(sf_life *l) {
  free(l->alive);
  free(l->owner);
  free(l->htype);
  free(l->producer);
  free(l->dependee);
  free(l->locker);
  memset(l, 0, sizeof *l);
}

void sf_life_clear(sf_life *l) {
  l->n = l->nowned = l->ndependent = 0;
}

static bool locked(const sf_life *l, uint32_t v) {
  return l->locker[v] != UINT32_MAX && l->alive[l->locker[v]];
}

bool sf_life_usable(const sf_life *l, uint64_t vid, uint32_t htype) {
  return vid < l->n && l->alive[vid] && l->htype[vid] == htype && !locked(l, (uint32_t)vid);
}

uint32_t sf_life_candidates(const sf_life *l, uint32_t htype, uint32_t *out, uint32_t cap) {
  uint32_t n = 0;
  for (uint32_t v = l->n; v-- > 0;) {
    if (l->alive[v] && l->htype[v] == htype && !locked(l, v)) {
      if (n < cap) out[n] = v;
      n++;
    }
  }
  return n;
}

uint32_t sf_life_choice(const sf_life *l, uint64_t vid, uint32_t htype) {
  if (vid != SF_NULL_REF && !sf_life_usable(l, vid, htype)) return UINT32_MAX;
  uint32_t n = 0;
  for (uint32_t v = l->n; v-- > 0 && (vid == SF_NULL_REF || v > vid);)
    n += l->alive[v] && l->htype[v] == htype && !locked(l, v);
  return n;
}

static int life_push(sf_life *l, uint32_t htype, uint32_t owner, uint32_t producer,
                     uint32_t dependee) {
  if (l->n == l->cap) {
    uint32_t c = l->cap ? l->cap * 2 : 32;
    uint8_t *a = realloc(l->alive, c);
    if (!a) return -1;
    l->alive = a;
    uint32_t *o = realloc(l->owner, c * sizeof *o);
    if (!o) return -1;
    l->owner = o;
    uint32_t *t = realloc(l->htype, c * sizeof *t);
    if (!t) return -1;
    l->htype = t;
    uint32_t *p = realloc(l->producer, c * sizeof *p);
    if (!p) return -1;
    l->producer = p;
    uint32_t *d = realloc(l->dependee, c * sizeof *d);
    if (!d) return -1;
    l->dependee = d;
    uint32_t *k = realloc(l->locker, c * sizeof *k);
    if (!k) return -1;
    l->locker = k;
    l->cap = c;
  }
  l->alive[l->n] = 1;
  l->owner[l->n] = owner;
  l->htype[l->n] = htype;
  l->producer[l->n] = producer;
  l->dependee[l->n] = dependee;
  l->locker[l->n] = UINT32_MAX;
  l->n++;
  l->nowned += owner != UINT32_MAX;
  l->ndependent += dependee != UINT32_MAX;
  return 0;
}

/* The values a call of func produces, its handle result then its out
 * handles; a call that was made also records what its result depends on and
 * locks (one refused by a recoverable error made neither). -1 on OOM. */
static int push_produced(sf_life *l, uint32_t func, const sf_arg *args, bool made) {
  const sf_func *f = &l->api->funcs[func];
  if (f->ret.kind == SF_HANDLE) {
    uint32_t owner = UINT32_MAX;
    if (f->owner_param >= 0 && args[f->owner_param].bits != SF_NULL_REF)
      owner = (uint32_t)args[f->owner_param].bits;
    uint32_t dependee = UINT32_MAX;
    if (made && f->depends_param >= 0 && args[f->depends_param].bits != SF_NULL_REF)
      dependee = (uint32_t)args[f->depends_param].bits;
    if (life_push(l, f->ret.type_index, owner, func, dependee)) return -1;
    if (made && f->locks_param >= 0 && args[f->locks_param].bits != SF_NULL_REF)
      l->locker[args[f->locks_param].bits] = l->n - 1;
  }
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == SF_HANDLE && (f->params[i].flags & SF_P_OUT))
      if (life_push(l, f->params[i].type_index, UINT32_MAX, func, UINT32_MAX)) return -1;
  return 0;
}

int sf_life_apply(sf_life *l, uint32_t func, const sf_arg *args) {
  const sf_func *f = &l->api->funcs[func];
  bool any_killed = false;
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (p->kind != SF_HANDLE || (p->flags & SF_P_OUT) || args[i].bits == SF_NULL_REF) continue;
    if (p->flags & SF_P_CONSUME) {
      l->alive[args[i].bits] = 0;
      any_killed = true;
    }
  }
  /* Invalidation: owned values whose producer lists this function, when the
   * call touches their owner. */
  for (uint32_t v = 0; v < l->n && l->nowned && (f->flags & SF_F_INVALIDATOR); v++) {
    if (!l->alive[v] || l->owner[v] == UINT32_MAX) continue;
    const sf_func *pf = &l->api->funcs[l->producer[v]];
    bool listed = false;
    for (uint32_t k = 0; k < pf->ninvalidated_by && !listed; k++)
      listed = pf->invalidated_by[k] == func;
    if (!listed) continue;
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (p->kind == SF_HANDLE && !(p->flags & SF_P_OUT) && args[i].bits == l->owner[v]) {
        l->alive[v] = 0;
        any_killed = true;
        break;
      }
    }
  }
  /* Owners precede what they own, so one forward pass propagates deaths. */
  if (any_killed && l->nowned)
    for (uint32_t v = 0; v < l->n; v++)
      if (l->alive[v] && l->owner[v] != UINT32_MAX && !l->alive[l->owner[v]]) l->alive[v] = 0;
  if (push_produced(l, func, args, true)) return -1;
  if (f->rebind_param >= 0 && args[f->rebind_param].bits != SF_NULL_REF &&
      args[f->rebind_to].bits != SF_NULL_REF) { /* `P depends_on Q` */
    l->dependee[args[f->rebind_param].bits] = (uint32_t)args[f->rebind_to].bits;
    l->ndependent++;
  }
  return 0;
}

int sf_life_apply_failed(sf_life *l, uint32_t func, const sf_arg *args) {
  return push_produced(l, func, args, false);
}

/* ---- primitive values --------------------------------------------------- */

static uint64_t sign_extend(uint64_t v, unsigned bytes) {
  if (bytes >= 8) return v;
  unsigned shift = 64 - bytes * 8;
  return (uint64_t)((int64_t)(v << shift) >> shift);
}

static uint64_t truncate_to(uint64_t v, unsigned bytes) {
  return bytes >= 8 ? v : v & ((1ULL << (bytes * 8)) - 1);
}

#define F32_NAN 0x7fc00000ULL
#define F64_NAN 0x7ff8000000000000ULL

static bool is_nan_bits(sf_kind k, uint64_t b) {
  if (k == SF_F32) return (b & 0x7f800000ULL) == 0x7f800000ULL && (b & 0x7fffffULL);
  return (b & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL && (b & 0xfffffffffffffULL);
}

bool sf_arg_prim_ok(const sf_api *api, const sf_param *p, uint64_t bits) {
  switch (p->kind) {
  case SF_BOOL:
    return bits <= 1;
  case SF_F32:
    return bits <= 0xffffffffULL && (!is_nan_bits(SF_F32, bits) || bits == F32_NAN);
  case SF_F64:
    return !is_nan_bits(SF_F64, bits) || bits == F64_NAN;
  case SF_ENUM:
    return bits < api->enums[p->type_index].nconsts;
  case SF_FLAGS: {
    uint32_t n = api->enums[p->type_index].nconsts;
    return n >= 64 || bits < (1ULL << n);
  }
  default:
    if (!sf_kind_is_int(p->kind)) return false;
    unsigned sz = sf_kind_size(p->kind);
    uint64_t canon = sf_kind_is_signed(p->kind) ? sign_extend(bits, sz) : truncate_to(bits, sz);
    return canon == bits && sf_param_accepts(p, bits);
  }
}

/* Integers: wrap into [lo, hi]; an excluded value moves to the next legal one. */
static uint64_t repair_int(const sf_param *p, uint64_t bits) {
  unsigned sz = sf_kind_size(p->kind);
  bool sgn = sf_kind_is_signed(p->kind);
  uint64_t v = sgn ? sign_extend(bits, sz) : truncate_to(bits, sz);
  uint64_t span = p->hi - p->lo; /* modular arithmetic works for both signednesses */
  bool inside = sgn ? ((int64_t)v >= (int64_t)p->lo && (int64_t)v <= (int64_t)p->hi)
                    : (v >= p->lo && v <= p->hi);
  if (!inside) v = span == UINT64_MAX ? v : p->lo + (v - p->lo) % (span + 1);
  for (uint32_t tries = 0; tries <= p->nexcluded; tries++) {
    bool excluded = false;
    for (uint32_t i = 0; i < p->nexcluded; i++)
      excluded |= p->excluded[i] == v;
    if (!excluded) return v;
    v = (v == p->hi) ? p->lo : v + 1;
  }
  return v; /* unreachable when the parser guaranteed a legal value exists */
}

uint64_t sf_arg_prim_repair(const sf_api *api, const sf_param *p, uint64_t bits) {
  switch (p->kind) {
  case SF_BOOL:
    return bits & 1;
  case SF_F32:
    bits &= 0xffffffffULL;
    return is_nan_bits(SF_F32, bits) ? F32_NAN : bits;
  case SF_F64:
    return is_nan_bits(SF_F64, bits) ? F64_NAN : bits;
  case SF_ENUM:
    return bits % api->enums[p->type_index].nconsts;
  case SF_FLAGS: {
    uint32_t n = api->enums[p->type_index].nconsts;
    return n >= 64 ? bits : bits & ((1ULL << n) - 1);
  }
  default:
    return sf_kind_is_int(p->kind) ? repair_int(p, bits) : bits;
  }
}

/* Bytes of buffer/array/string args: canonical element values. */
static bool elems_ok(sf_kind elem, const uint8_t *d, uint32_t len) {
  unsigned es = sf_kind_size(elem);
  if (len % es) return false;
  if (elem != SF_BOOL && elem != SF_F32 && elem != SF_F64) return true; /* no value to reject */
  for (uint32_t i = 0; i < len; i += es) {
    uint64_t b = 0;
    memcpy(&b, d + i, es);
    if (elem == SF_BOOL && b > 1) return false;
    if ((elem == SF_F32 || elem == SF_F64) && is_nan_bits(elem, b) &&
        b != (elem == SF_F32 ? F32_NAN : F64_NAN))
      return false;
  }
  return true;
}

void sf_seq_canon_elems(sf_kind elem, uint8_t *d, uint32_t len) {
  if (elem != SF_BOOL && elem != SF_F32 && elem != SF_F64) return; /* every value is canonical */
  unsigned es = sf_kind_size(elem);
  for (uint32_t i = 0; i + es <= len; i += es) {
    uint64_t b = 0;
    memcpy(&b, d + i, es);
    if (elem == SF_BOOL) b &= 1;
    if ((elem == SF_F32 || elem == SF_F64) && is_nan_bits(elem, b))
      b = elem == SF_F32 ? F32_NAN : F64_NAN;
    memcpy(d + i, &b, es);
  }
}

void sf_seq_buffer_bounds(const sf_func *f, const sf_param *p, uint64_t *lo, uint64_t *hi) {
  if (p->len_param < 0) { /* a memfile or memfd: its contents; a mock's script */
    *lo = 0;
    *hi = (p->flags & (SF_P_CALLBACK | SF_P_VTABLE)) ? SF_MAX_SCRIPT : SF_MAX_FILE;
    return;
  }
  const sf_param *lp = &f->params[p->len_param];
  *lo = lp->lo;
  *hi = lp->hi;
  uint64_t kind_max =
      sf_kind_size(lp->kind) >= 8
          ? UINT64_MAX
          : (1ULL << (sf_kind_size(lp->kind) * 8 - sf_kind_is_signed(lp->kind))) - 1;
  if (*hi > kind_max) *hi = kind_max;
  uint64_t max_elems = (1u << 20) / sf_kind_size(p->elem);
  if (*hi > max_elems) *hi = max_elems;
  if (*lo > *hi) *lo = *hi;
}

/* ---- validation --------------------------------------------------------- */

/* Is u owned by v, directly or through owned values? Owners precede what
 * they own, so the walk ends. */
static bool owned_through(const sf_life *l, uint64_t u, uint64_t v) {
  if (!l->nowned) return false;
  while (u < l->n && l->owner[u] != UINT32_MAX) {
    u = l->owner[u];
    if (u == v) return true;
  }
  return false;
}

/* Does a live value depend on v, or on a value v owns? */
static bool has_dependent(const sf_life *l, uint64_t v) {
  for (uint32_t d = 0; d < l->n && l->ndependent; d++)
    if (l->alive[d] && l->dependee[d] != UINT32_MAX &&
        (l->dependee[d] == v || owned_through(l, l->dependee[d], v)))
      return true;
  return false;
}

sf_consume_conflict sf_call_consume_conflict(const sf_life *l, const sf_func *f, const sf_arg *args,
                                             uint32_t *consumed, uint32_t *other) {
  for (uint32_t i = 0; i < f->nparams; i++) {
    if (!(f->params[i].flags & SF_P_CONSUME) || args[i].bits == SF_NULL_REF) continue;
    uint64_t v = args[i].bits;
    sf_consume_conflict c = SF_CONSUME_OK;
    uint32_t j = i;
    if (l->nowned && v < l->n && l->owner[v] != UINT32_MAX) c = SF_CONSUME_OWNED;
    if (!c && has_dependent(l, v)) c = SF_CONSUME_DEPENDED;
    for (uint32_t k = 0; k < f->nparams && !c; k++) {
      if (k == i || f->params[k].kind != SF_HANDLE || !sf_param_is_input(&f->params[k])) continue;
      if (args[k].bits == v)
        c = SF_CONSUME_TWICE;
      else if (owned_through(l, args[k].bits, v))
        c = SF_CONSUME_OWNS_OTHER;
      if (c) j = k;
    }
    if (c) {
      if (consumed) *consumed = i;
      if (other) *other = j;
      return c;
    }
  }
  return SF_CONSUME_OK;
}

static int verr(char *err, size_t errlen, uint32_t ci, const sf_func *f, const char *what,
                const char *pname) {
  if (err && errlen)
    snprintf(err, errlen, "call %u (%s): %s%s%s", ci + 1, f ? f->name : "?", what,
             pname ? " in parameter " : "", pname ? pname : "");
  return -1;
}

/* sf_seq_validate, and with out the encoding of what it checked appended
 * (sf_seq_encode_checked): both simulate the lifetimes, so one pass does
 * both. *oom: set when memory ran out (the result is then -1 too). */
static int check(const sf_seq *s, char *err, size_t errlen, sf_buf *out, bool *oom) {
  const sf_api *api = s->api;
  sf_seq_work *w = sf_seq_work_get(s);
  if (!w) {
    *oom = true;
    return verr(err, errlen, 0, NULL, "out of memory", NULL);
  }
  sf_life *lp = &w->life;
  int rc = 0;
  uint32_t nvals = 0, nargs = 0;
  for (uint32_t ci = 0; ci < s->ncalls && rc == 0; ci++) {
    const sf_call *c = &s->calls[ci];
    if (out && c->func < api->nfuncs && sf_buf_put_varint(out, c->func)) {
      *oom = true;
      return -1;
    }
    if (c->func >= api->nfuncs) {
      rc = verr(err, errlen, ci, NULL, "unknown function", NULL);
      break;
    }
    const sf_func *f = &api->funcs[c->func];
    if (c->arg0 != nargs || c->val0 != nvals) {
      rc = verr(err, errlen, ci, f, "argument or value numbering is inconsistent", NULL);
      break;
    }
    nargs += f->nparams;
    nvals += f->nproduced;
    if (nargs > s->nargs || nvals > s->nvals) {
      rc = verr(err, errlen, ci, f, "arguments or values missing", NULL);
      break;
    }
    const sf_arg *a = sf_seq_args(s, ci);
    for (uint32_t i = 0; i < f->nparams && rc == 0; i++) {
      const sf_param *p = &f->params[i];
      const char *bad = NULL;
      if (!sf_param_is_input(p)) {
        if (a[i].bits || a[i].len) bad = "out or length parameter carries a value";
      } else if (p->kind == SF_HANDLE) {
        if (a[i].bits == SF_NULL_REF) {
          if (!(p->flags & SF_P_NULLABLE)) bad = "NULL handle";
        } else if (a[i].bits < lp->n && lp->alive[a[i].bits] &&
                   lp->htype[a[i].bits] == p->type_index && locked(lp, (uint32_t)a[i].bits)) {
          bad = "handle is locked by a live value (locks)";
        } else if (!sf_life_usable(lp, a[i].bits, p->type_index)) {
          bad = "handle is not alive or has the wrong type";
        }
      } else if (has_bytes(p)) {
        if ((uint64_t)a[i].off + a[i].len > s->blob.len) {
          bad = "bytes out of bounds";
        } else if (p->kind == SF_STRING) {
          if (a[i].bits > 1 || (a[i].bits && (a[i].len || !(p->flags & SF_P_NULLABLE))))
            bad = "bad NULL string";
          else if (a[i].len > SF_MAX_STRING || memchr(sf_seq_bytes(s, &a[i]), 0, a[i].len))
            bad = "string too long or contains NUL";
        } else if (p->kind == SF_ARRAY) {
          if (a[i].len != p->array_len * sf_kind_size(p->elem) ||
              !elems_ok(p->elem, sf_seq_bytes(s, &a[i]), a[i].len))
            bad = "array has the wrong size or a non-canonical element";
        } else {
          uint64_t lo, hi;
          sf_seq_buffer_bounds(f, p, &lo, &hi);
          unsigned es = sf_kind_size(p->elem);
          if (a[i].len % es || a[i].len / es < lo || a[i].len / es > hi ||
              !elems_ok(p->elem, sf_seq_bytes(s, &a[i]), a[i].len))
            bad = "buffer length violates its length constraint";
        }
      } else if (!sf_arg_prim_ok(api, p, a[i].bits)) {
        bad = "value violates the precondition or is not canonical";
      }
      if (bad) {
        rc = verr(err, errlen, ci, f, bad, p->name);
      } else if (out && sf_param_is_input(p) && sf_seq_encode_arg(s, lp, p, &a[i], out)) {
        *oom = true;
        return -1;
      }
    }
    uint32_t other = 0;
    sf_consume_conflict cc = rc ? SF_CONSUME_OK : sf_call_consume_conflict(lp, f, a, NULL, &other);
    if (cc == SF_CONSUME_TWICE)
      rc = verr(err, errlen, ci, f, "a consumed handle is also passed as another argument", NULL);
    else if (cc == SF_CONSUME_OWNED)
      rc = verr(err, errlen, ci, f, "an owned handle is consumed", f->params[other].name);
    else if (cc == SF_CONSUME_OWNS_OTHER)
      rc = verr(err, errlen, ci, f, "handle is owned by an argument the call consumes",
                f->params[other].name);
    else if (cc == SF_CONSUME_DEPENDED)
      rc = verr(err, errlen, ci, f, "a consumed handle has a live dependent (depends_on)",
                f->params[other].name);
    else if (rc == 0 && !sf_call_requires_possible(s, c->func, a))
      rc = verr(err, errlen, ci, f, "a precondition on the arguments does not hold", NULL);
    if (rc == 0) {
      for (uint32_t k = 0; k < f->nproduced; k++)
        if (s->vals[c->val0 + k].call != ci) rc = verr(err, errlen, ci, f, "value table", NULL);
      if (rc == 0 && sf_life_apply(lp, c->func, a)) {
        *oom = true;
        rc = verr(err, errlen, ci, f, "OOM", NULL);
      }
    }
  }
  if (rc == 0 && (nargs != s->nargs || nvals != s->nvals))
    rc = verr(err, errlen, s->ncalls ? s->ncalls - 1 : 0, NULL, "trailing arguments", NULL);
  return rc;
}

int sf_seq_validate(const sf_seq *s, char *err, size_t errlen) {
  bool oom = false;
  return check(s, err, errlen, NULL, &oom);
}

int sf_seq_encode_checked(const sf_seq *s, sf_buf *out) {
  if (sf_seq_encode_start(s, out)) return -1;
  bool oom = false;
  int rc = check(s, NULL, 0, out, &oom);
  return oom ? -1 : rc ? 1 : 0;
}

/* ---- repair ------------------------------------------------------------- */

int sf_seq_repair(sf_seq *s) {
  const sf_api *api = s->api;
  sf_seq_work *w = sf_seq_work_get(s);
  if (!w || sf_seq_work_map(w, s->nvals + 1)) return -1;
  sf_seq out = w->spare; /* built here, swapped into s at the end */
  out.api = api;
  sf_seq_clear(&out);
  sf_life *lp = &w->life;
  uint64_t *map = w->map;
  int dropped = 0;
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    const sf_arg *a = sf_seq_args(s, ci);
    bool ok = true;
    for (uint32_t i = 0; i < f->nparams && ok; i++) {
      const sf_param *p = &f->params[i];
      if (p->kind != SF_HANDLE || (p->flags & SF_P_OUT)) continue;
      uint64_t v = a[i].bits == SF_NULL_REF || a[i].bits >= s->nvals ? SF_NULL_REF : map[a[i].bits];
      if (v == SF_NULL_REF)
        ok = (p->flags & SF_P_NULLABLE) && a[i].bits == SF_NULL_REF;
      else
        ok = sf_life_usable(lp, v, p->type_index);
    }
    if (ok) { /* the consume rule, on the mapped handles */
      sf_arg mapped[64];
      for (uint32_t i = 0; i < f->nparams; i++) {
        mapped[i] = a[i];
        if (f->params[i].kind == SF_HANDLE && sf_param_is_input(&f->params[i]) &&
            a[i].bits != SF_NULL_REF)
          mapped[i].bits = a[i].bits < s->nvals ? map[a[i].bits] : SF_NULL_REF;
      }
      ok = !sf_call_consume_conflict(lp, f, mapped, NULL, NULL) &&
           sf_call_requires_possible(s, s->calls[ci].func, mapped);
    }
    uint32_t val0 = s->calls[ci].val0;
    if (!ok) {
      for (uint32_t k = 0; k < f->nproduced; k++)
        map[val0 + k] = SF_NULL_REF;
      dropped++;
      continue;
    }
    uint32_t new_val0 = out.nvals;
    sf_arg *na = sf_seq_append_from(&out, s, ci, map);
    if (!na) goto oom;
    for (uint32_t k = 0; k < f->nproduced; k++)
      map[val0 + k] = new_val0 + k;
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (!sf_param_is_input(p)) {
        na[i].bits = 0;
        na[i].off = na[i].len = 0;
      } else if (p->kind == SF_STRING) {
        na[i].bits = (na[i].bits & 1) && (p->flags & SF_P_NULLABLE);
        if (na[i].bits) na[i].len = 0;
        if (na[i].len) {
          uint8_t *d = out.blob.data + na[i].off;
          uint8_t *nul = memchr(d, 0, na[i].len);
          if (nul) na[i].len = (uint32_t)(nul - d);
        }
        if (na[i].len > SF_MAX_STRING) na[i].len = SF_MAX_STRING;
      } else if (p->kind == SF_ARRAY || p->kind == SF_BUFFER) {
        unsigned es = sf_kind_size(p->elem);
        uint64_t want_lo = p->array_len, want_hi = p->array_len;
        if (p->kind == SF_BUFFER) sf_seq_buffer_bounds(f, p, &want_lo, &want_hi);
        uint64_t n = na[i].len / es;
        if (n > want_hi) n = want_hi;
        if (n < want_lo) {
          /* Pad with zero elements: a fresh copy at the end of the blob. */
          size_t have = (size_t)n * es, need = (size_t)want_lo * es;
          uint32_t off = na[i].off;
          if (sf_buf_reserve(&out.blob, need)) goto oom;
          memmove(out.blob.data + out.blob.len, out.blob.data + off, have);
          memset(out.blob.data + out.blob.len + have, 0, need - have);
          na[i].off = (uint32_t)out.blob.len;
          out.blob.len += need;
          n = want_lo;
        }
        na[i].len = (uint32_t)(n * es);
        if (na[i].len) sf_seq_canon_elems(p->elem, out.blob.data + na[i].off, na[i].len);
      } else if (p->kind != SF_HANDLE) {
        na[i].bits = sf_arg_prim_repair(api, p, na[i].bits);
      }
    }
    if (sf_life_apply(lp, out.calls[out.ncalls - 1].func, na)) goto oom;
  }
  /* Swap storage: s takes out's arrays, the spare keeps s's old ones. */
  out.observed = s->observed;
  sf_seq old = *s;
  *s = out;
  s->work = w;
  old.work = NULL;
  w->spare = old;
  return dropped;
oom:
  w->spare = out;
  return -1;
}
