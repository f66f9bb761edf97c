/* The binary encoding of sequences (format in seq.h).
 *
 * Decoding is total: it reads only what is there, maps every field into its
 * legal range (the map is the identity on legal values, which makes
 * encode(decode(x)) a fixed point), picks handle arguments among the values
 * alive at that point, and drops a call whose handle has no candidate or
 * whose choices break the consume rule (seq.h). */
#include <stdlib.h>
#include <string.h>

#include "seq.h"
#include "seq_internal.h"

typedef struct reader {
  const uint8_t *p, *end;
} reader;

static bool rd_varint(reader *r, uint64_t *out) {
  uint64_t v = 0;
  for (unsigned shift = 0; r->p < r->end; shift += 7) {
    uint8_t b = *r->p++;
    if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

static bool rd_bytes(reader *r, size_t n, const uint8_t **out) {
  if ((size_t)(r->end - r->p) < n) return false;
  *out = r->p;
  r->p += n;
  return true;
}

static uint64_t load_le(const uint8_t *d, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++)
    v |= (uint64_t)d[i] << (8 * i);
  return v;
}

int sf_seq_encode_header(const sf_api *api, sf_buf *out) {
  uint8_t h[SF_HEADER_SIZE] = {'S', SF_FORMAT_VERSION};
  for (int i = 0; i < 4; i++)
    h[2 + i] = (uint8_t)(api->fingerprint >> (8 * i));
  return sf_buf_append(out, h, sizeof h);
}

/* Alive candidates of a handle type, most recent first, in the scratch. */
typedef struct cands {
  sf_seq_work *w;
  uint32_t *v;
  uint32_t n;
} cands;

static int collect(cands *c, const sf_life *l, uint32_t htype) {
  if (sf_seq_work_cands(c->w, l->n)) return -1;
  c->v = c->w->cands;
  c->n = sf_life_candidates(l, htype, c->v, c->w->candcap);
  return 0;
}

typedef enum { ARG_OK, ARG_TRUNCATED, ARG_NO_CANDIDATE, ARG_OOM } arg_status;

static arg_status decode_arg(reader *r, sf_seq *s, const sf_life *life, cands *cs, const sf_func *f,
                             const sf_param *p, sf_arg *a) {
  const sf_api *api = s->api;
  uint64_t v;
  const uint8_t *d;
  switch (p->kind) {
  case SF_HANDLE: {
    if (!rd_varint(r, &v)) return ARG_TRUNCATED;
    if (collect(cs, life, p->type_index)) return ARG_OOM;
    uint64_t options = cs->n + ((p->flags & SF_P_NULLABLE) ? 1 : 0);
    if (options == 0) return ARG_NO_CANDIDATE;
    v %= options;
    a->bits = v < cs->n ? cs->v[v] : SF_NULL_REF;
    return ARG_OK;
  }
  case SF_ENUM:
  case SF_FLAGS:
    if (!rd_varint(r, &v)) return ARG_TRUNCATED;
    a->bits = sf_arg_prim_repair(api, p, v);
    return ARG_OK;
  case SF_STRING: {
    if (!rd_varint(r, &v)) return ARG_TRUNCATED;
    if (p->flags & SF_P_NULLABLE) { /* 0 is NULL, n + 1 a string of n bytes */
      if (v == 0) {
        a->bits = 1;
        return ARG_OK;
      }
      v--;
    }
    if (v > SF_MAX_STRING) v = SF_MAX_STRING;
    if (!rd_bytes(r, (size_t)v, &d)) return ARG_TRUNCATED;
    const uint8_t *nul = memchr(d, 0, (size_t)v);
    size_t len = nul ? (size_t)(nul - d) : (size_t)v;
    return sf_seq_set_bytes(s, a, d, len) ? ARG_OOM : ARG_OK;
  }
  case SF_BUFFER:
  case SF_ARRAY: {
    unsigned es = sf_kind_size(p->elem);
    uint64_t n = p->array_len;
    if (p->kind == SF_BUFFER) {
      uint64_t lo, hi;
      sf_seq_buffer_bounds(f, p, &lo, &hi);
      if (!rd_varint(r, &n)) return ARG_TRUNCATED;
      if (n > hi) n = hi;
      if (n < lo) n = lo;
    }
    if (!rd_bytes(r, (size_t)(n * es), &d)) return ARG_TRUNCATED;
    if (sf_seq_set_bytes(s, a, d, (size_t)(n * es))) return ARG_OOM;
    if (a->len) sf_seq_canon_elems(p->elem, s->blob.data + a->off, a->len);
    return ARG_OK;
  }
  default: {
    unsigned sz = sf_kind_size(p->kind);
    if (!rd_bytes(r, sz, &d)) return ARG_TRUNCATED;
    a->bits = sf_arg_prim_repair(api, p, load_le(d, sz));
    return ARG_OK;
  }
  }
}

sf_decode_status sf_seq_decode(sf_seq *s, const sf_api *api, const uint8_t *data, size_t size) {
  sf_seq_clear(s);
  s->api = api;
  if (size < SF_HEADER_SIZE || data[0] != 'S' ||
      (data[1] & ~SF_HEADER_OBSERVED) != SF_FORMAT_VERSION ||
      load_le(data + 2, 4) != api->fingerprint)
    return SF_DECODE_REJECT;
  s->observed = (data[1] & SF_HEADER_OBSERVED) != 0;
  reader r = {data + SF_HEADER_SIZE, data + size};
  sf_seq_work *w = sf_seq_work_get(s);
  if (!w) return SF_DECODE_OOM;
  sf_life *life = &w->life;
  cands cs = {w, NULL, 0};
  sf_arg tmp[64];
  sf_decode_status st = SF_DECODE_OK;
  while (r.p < r.end && s->ncalls < SF_SEQ_MAX_CALLS) {
    uint64_t fi;
    if (!rd_varint(&r, &fi)) break;
    fi %= api->nfuncs;
    const sf_func *f = &api->funcs[fi];
    size_t blob_mark = s->blob.len;
    arg_status as = ARG_OK;
    for (uint32_t i = 0; i < f->nparams && as == ARG_OK; i++) {
      memset(&tmp[i], 0, sizeof tmp[i]);
      if (sf_param_is_input(&f->params[i]))
        as = decode_arg(&r, s, life, &cs, f, &f->params[i], &tmp[i]);
    }
    if (as == ARG_OK && (sf_call_consume_conflict(life, f, tmp, NULL, NULL) ||
                         !sf_call_requires_possible(s, (uint32_t)fi, tmp)))
      as = ARG_NO_CANDIDATE;
    if (as != ARG_OK) {
      s->blob.len = blob_mark;
      if (as == ARG_NO_CANDIDATE) continue;
      if (as == ARG_OOM) st = SF_DECODE_OOM;
      break;
    }
    sf_arg *a = sf_seq_add_call(s, (uint32_t)fi);
    if (!a || sf_life_apply(life, (uint32_t)fi, tmp)) {
      st = SF_DECODE_OOM;
      break;
    }
    memcpy(a, tmp, f->nparams * sizeof *a);
  }
  return st;
}

int sf_seq_encode_arg(const sf_seq *s, const sf_life *l, const sf_param *p, const sf_arg *a,
                      sf_buf *out) {
  switch (p->kind) {
  case SF_HANDLE: {
    uint32_t choice = sf_life_choice(l, a->bits, p->type_index);
    if (choice == UINT32_MAX) return -1; /* invalid sequence */
    return sf_buf_put_varint(out, choice);
  }
  case SF_ENUM:
  case SF_FLAGS:
    return sf_buf_put_varint(out, a->bits);
  case SF_STRING:
    if (a->bits) return sf_buf_put_varint(out, 0); /* NULL */
    return sf_buf_put_varint(out, a->len + ((p->flags & SF_P_NULLABLE) ? 1 : 0)) ||
           sf_buf_append(out, sf_seq_bytes(s, a), a->len);
  case SF_BUFFER:
    if (sf_buf_put_varint(out, a->len / sf_kind_size(p->elem))) return -1;
    /* fall through */
  case SF_ARRAY:
    return sf_buf_append(out, sf_seq_bytes(s, a), a->len);
  default: {
    uint8_t le[8];
    unsigned sz = sf_kind_size(p->kind);
    for (unsigned k = 0; k < sz; k++)
      le[k] = (uint8_t)(a->bits >> (8 * k));
    return sf_buf_append(out, le, sz);
  }
  }
}

int sf_seq_encode_start(const sf_seq *s, sf_buf *out) {
  if (sf_seq_encode_header(s->api, out)) return -1;
  if (s->observed) out->data[out->len - SF_HEADER_SIZE + 1] |= SF_HEADER_OBSERVED;
  return 0;
}

int sf_seq_encode(const sf_seq *s, sf_buf *out) {
  if (sf_seq_encode_start(s, out)) return -1;
  sf_seq_work *w = sf_seq_work_get(s);
  if (!w) return -1;
  sf_life *life = &w->life;
  int rc = 0;
  for (uint32_t ci = 0; ci < s->ncalls && rc == 0; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    const sf_arg *a = sf_seq_args(s, ci);
    rc |= sf_buf_put_varint(out, s->calls[ci].func);
    for (uint32_t i = 0; i < f->nparams && rc == 0; i++)
      if (sf_param_is_input(&f->params[i]))
        rc = sf_seq_encode_arg(s, life, &f->params[i], &a[i], out);
    if (rc == 0) rc = sf_life_apply(life, s->calls[ci].func, a);
  }
  return rc ? -1 : 0;
}
