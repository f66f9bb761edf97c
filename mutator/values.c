/* Values for arguments: integers from boundary values, range bounds, enum
 * constants and random bits; floats from special values; strings and
 * buffers from the grammar's dict, from bytes already in the sequence, or
 * random. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint64_t interesting_int(sf_mutator *m, const sf_param *p) {
  static const int64_t table[] = {0,         1,        -1,        2,         3,
                                  4,         7,        8,         15,        16,
                                  31,        32,       63,        64,        100,
                                  127,       128,      255,       256,       512,
                                  1000,      1024,     4096,      32767,     32768,
                                  65535,     65536,    INT32_MAX, INT32_MIN, (int64_t)UINT32_MAX,
                                  INT64_MAX, INT64_MIN};
  sf_rng *r = &m->rng;
  switch (sf_rng_below(r, 6)) {
  case 0:
    return p->lo;
  case 1:
    return p->hi;
  case 2:
    return p->lo + sf_rng_below(r, 3);
  case 3:
    return p->hi - sf_rng_below(r, 3);
  default:
    return (uint64_t)table[sf_rng_below(r, sizeof table / sizeof *table)];
  }
}

/* Constants the target compared against, and its separators (bit c of
 * seps[c / 64]), from a run record or from the solver server's hints. */
static void absorb_compared(sf_mutator *m, const uint64_t *vals, uint32_t n,
                            const uint64_t seps[4]) {
  for (uint32_t i = 0; i < n; i++) {
    if (!sf_hashset_insert(m->cmpseen, vals[i])) continue;
    m->cmpvals[m->cmpnext] = vals[i];
    m->cmpnext = (m->cmpnext + 1) % 256;
    if (m->ncmpvals < 256) m->ncmpvals++;
  }
  for (uint32_t w = 0; w < 4; w++) /* separators not seen before, in byte order */
    for (uint64_t fresh = seps[w] & ~m->separators[w]; fresh && m->nseps < sizeof m->seplist;
         fresh &= fresh - 1) {
      m->separators[w] |= fresh & -fresh;
      m->seplist[m->nseps++] = (uint8_t)(w * 64 + (uint32_t)__builtin_ctzll(fresh));
    }
}

void sf_mutator_learn_compared(sf_mutator *m, const uint64_t *vals, uint32_t n,
                               const uint64_t separators[4]) {
  if (m->cmpseen && !m->opt.no_compares) absorb_compared(m, vals, n, separators);
}

/* Keep the constants of a run record (corpus entries only: a handful per
 * entry, not per execution). */
void sf_mut_absorb_cmp(sf_mutator *m, const sf_feedback *fb) {
  if (!fb || !m->cmpseen || m->opt.no_compares) return;
  absorb_compared(m, fb->cmp, fb->ncmp < SF_FB_MAX_CMP ? fb->ncmp : SF_FB_MAX_CMP, fb->separators);
  for (uint32_t i = 0; i < fb->nanswer_cmp && i < SF_FB_MAX_ANSWER_CMP; i++) {
    uint32_t k = 0;
    while (k < m->nanswervals && m->answervals[k] != fb->answer_cmp[i][1])
      k++;
    if (k < m->nanswervals) continue;
    m->answervals[m->answernext] = fb->answer_cmp[i][1];
    m->answernext = (m->answernext + 1) % 64;
    if (m->nanswervals < 64) m->nanswervals++;
  }
}

static uint64_t gen_int(sf_mutator *m, const sf_param *p) {
  sf_rng *r = &m->rng;
  const sf_api *api = m->api;
  uint64_t v;
  if (m->ncmpvals && sf_rng_chance(r, 1, 6)) {
    /* A value the target compared against, or one off it (< vs <=). */
    v = m->cmpvals[sf_rng_below(r, m->ncmpvals)] + sf_rng_below(r, 3) - 1;
    return sf_arg_prim_repair(api, p, v);
  }
  switch (sf_rng_below(r, 10)) {
  case 0:
  case 1:
  case 2:
    v = interesting_int(m, p);
    break;
  case 3:
    if (api->nenums) {
      const sf_enum *e = &api->enums[sf_rng_below(r, api->nenums)];
      v = (uint64_t)e->consts[sf_rng_below(r, e->nconsts)].value;
      break;
    }
    /* fall through */
  case 4:
  case 5:
  case 6:
    v = sf_rng_below(r, 17);
    break;
  default:
    v = sf_rng_next(r) >> sf_rng_below(r, 64);
  }
  return sf_arg_prim_repair(api, p, v);
}

static uint64_t gen_float(sf_mutator *m, sf_kind k) {
  static const double table[] = {
      0.0,       -0.0,      1.0, -1.0, 0.5, 2.0, 10.0, 1e-300, 1e300, 1e30, 3.4028234663852886e38,
      1.0 / 0.0, -1.0 / 0.0};
  sf_rng *r = &m->rng;
  double d;
  if (sf_rng_chance(r, 1, 10)) return k == SF_F32 ? 0x7fc00000ULL : 0x7ff8000000000000ULL;
  if (sf_rng_chance(r, 2, 3))
    d = table[sf_rng_below(r, sizeof table / sizeof *table)];
  else
    d = (double)(int64_t)sf_rng_next(r) / (double)(1ULL << sf_rng_below(r, 63));
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

uint64_t sf_mut_gen_prim(sf_mutator *m, const sf_param *p) {
  sf_rng *r = &m->rng;
  switch (p->kind) {
  case SF_BOOL:
    return sf_rng_below(r, 2);
  case SF_F32:
  case SF_F64:
    return sf_arg_prim_repair(m->api, p, gen_float(m, p->kind));
  case SF_ENUM:
    return sf_rng_below(r, m->api->enums[p->type_index].nconsts);
  case SF_FLAGS: {
    uint32_t n = m->api->enums[p->type_index].nconsts;
    uint64_t mask = 0;
    if (sf_rng_chance(r, 1, 2))
      mask = 1ULL << sf_rng_below(r, n);
    else if (sf_rng_chance(r, 1, 2))
      mask = sf_rng_next(r);
    return sf_arg_prim_repair(m->api, p, mask);
  }
  default:
    return gen_int(m, p);
  }
}

/* Is argument i of call ci of s a non-empty input of like's kind and name? */
static bool same_role(const sf_seq *s, uint32_t ci, uint32_t i, const sf_param *like) {
  const sf_param *p = &sf_seq_func(s, ci)->params[i];
  return p->kind == like->kind && sf_param_is_input(p) && p->name &&
         strcmp(p->name, like->name) == 0 && sf_seq_args(s, ci)[i].len;
}

/* The argument of call ci of s in like's role, or NULL. */
static const sf_arg *role_arg(const sf_seq *s, uint32_t ci, const sf_param *like) {
  for (uint32_t i = 0; i < sf_seq_func(s, ci)->nparams; i++)
    if (same_role(s, ci, i, like)) return &sf_seq_args(s, ci)[i];
  return NULL;
}

/* The bytes of the argument named like like's of the call an earlier
 * argument of the call being made took its bytes from (m->reuse_call): a
 * user's password. False when there is none. */
static bool reuse_from_call(sf_mutator *m, const sf_seq *s, sf_buf *out, const sf_param *like) {
  if (!like || !like->name || m->reuse_call >= s->ncalls) return false;
  const sf_arg *a = role_arg(s, m->reuse_call, like);
  if (a) sf_buf_append(out, sf_seq_bytes(s, a), a->len);
  return a != NULL;
}

/* The bytes of a string or buffer argument of s, appended to out: two
 * times in three one of a parameter named like `like` (a key put, then
 * looked up and deleted: the same role across functions), else any. */
static void reuse_bytes(sf_mutator *m, const sf_seq *s, sf_buf *out, const sf_param *like) {
  sf_rng *r = &m->rng;
  if (like && like->name && sf_rng_chance(r, 2, 3)) {
    if (reuse_from_call(m, s, out, like)) return;
    /* One of all the calls' at random (not the first call's: a login must
     * reach every account). */
    uint32_t seen = 0, pick_call = 0, pick_param = 0;
    for (uint32_t ci = 0; ci < s->ncalls; ci++)
      for (uint32_t i = 0; i < sf_seq_func(s, ci)->nparams; i++)
        if (same_role(s, ci, i, like) && sf_rng_below(r, ++seen) == 0)
          pick_call = ci, pick_param = i;
    if (seen) {
      const sf_arg *a = &sf_seq_args(s, pick_call)[pick_param];
      sf_buf_append(out, sf_seq_bytes(s, a), a->len);
      m->reuse_call = pick_call;
      return;
    }
  }
  for (int tries = 0; tries < 8; tries++) {
    uint32_t ci = (uint32_t)sf_rng_below(r, s->ncalls);
    const sf_func *f = sf_seq_func(s, ci);
    if (!f->nparams) continue;
    uint32_t i = (uint32_t)sf_rng_below(r, f->nparams);
    sf_kind k = f->params[i].kind;
    if (!sf_param_is_input(&f->params[i]) || !(k == SF_STRING || k == SF_BUFFER)) continue;
    const sf_arg *a = &sf_seq_args(s, ci)[i];
    sf_buf_append(out, sf_seq_bytes(s, a), a->len);
    return;
  }
}

int sf_mut_follow_reuse(sf_mutator *m, sf_seq *s, uint32_t ci, uint32_t pi) {
  uint32_t from = m->reuse_call;
  if (from >= s->ncalls || from == ci) return 0;
  const sf_func *f = sf_seq_func(s, ci);
  for (uint32_t j = 0; j < f->nparams; j++) {
    const sf_param *like = &f->params[j];
    if (j == pi || !sf_param_is_input(like) ||
        !(like->kind == SF_STRING || like->kind == SF_BUFFER) ||
        (like->flags & (SF_P_CALLBACK | SF_P_VTABLE)) || !like->name)
      continue;
    const sf_arg *src = role_arg(s, from, like);
    if (!src) continue;
    sf_arg *dst = &sf_seq_args(s, ci)[j];
    if (sf_seq_set_bytes(s, dst, sf_seq_bytes(s, src), src->len)) return -1;
    if (like->kind == SF_STRING) dst->bits = 0; /* not NULL */
  }
  return 0;
}

/* A list ("a,b,c", which a parser splits): 2 to 15 names of letters and
 * digits, or dictionary words now and then, joined by a separator the target
 * compared bytes with. */
static void gen_list(sf_mutator *m, sf_buf *out) {
  sf_rng *r = &m->rng;
  uint8_t sep = m->seplist[sf_rng_below(r, m->nseps)];
  uint32_t n = 2 + (uint32_t)sf_rng_below(r, sf_rng_chance(r, 1, 2) ? 4 : 14);
  for (uint32_t i = 0; i < n; i++) {
    if (i) sf_buf_putc(out, sep);
    if (m->api->ndict && sf_rng_chance(r, 1, 4)) {
      const char *d = m->api->dict[sf_rng_below(r, m->api->ndict)];
      sf_buf_append(out, d, strlen(d));
      continue;
    }
    for (uint64_t k = 1 + sf_rng_below(r, 6); k > 0; k--)
      sf_buf_putc(out, sf_rng_chance(r, 4, 5) ? (uint8_t)('a' + sf_rng_below(r, 26))
                                              : (uint8_t)('0' + sf_rng_below(r, 10)));
  }
}

/* Bytes that the call which made one of this call's handles took: a
 * pattern's own text as the subject of a match with the compiled pattern
 * (how pcre2's own harness reaches deep into its matchers), a document's
 * text looked up in what was parsed from it. like: the parameter being
 * made, of f; args: the call's arguments, set before like's. False when no
 * such call took any. */
static bool producer_bytes(sf_mutator *m, const sf_seq *s, const sf_func *f, const sf_arg *args,
                           const sf_param *like, sf_buf *out) {
  uint32_t seen = 0, pick_call = 0, pick_param = 0;
  for (const sf_param *h = f->params; h < like; h++) {
    uint64_t v = args[h - f->params].bits;
    if (h->kind != SF_HANDLE || (h->flags & SF_P_OUT) || v >= s->nvals) continue;
    uint32_t pc = s->vals[v].call;
    const sf_func *pf = sf_seq_func(s, pc);
    for (uint32_t i = 0; i < pf->nparams; i++) {
      const sf_param *q = &pf->params[i];
      if (!sf_param_is_input(q) || (q->kind != SF_STRING && q->kind != SF_BUFFER) ||
          (q->flags & (SF_P_CALLBACK | SF_P_VTABLE)) || !sf_seq_args(s, pc)[i].len ||
          (q->kind == SF_STRING && sf_seq_args(s, pc)[i].bits))
        continue;
      if (sf_rng_below(&m->rng, ++seen) == 0) pick_call = pc, pick_param = i;
    }
  }
  if (!seen) return false;
  const sf_arg *a = &sf_seq_args(s, pick_call)[pick_param];
  sf_buf_append(out, sf_seq_bytes(s, a), a->len);
  return true;
}

/* New bytes for parameter like of f (NULL for none: a script's or a list's
 * piece), args: the call's arguments (NULL if unknown): a dictionary word,
 * the bytes of another argument of the sequence (so keys match across
 * calls), a list of names when the target compares separators, or letters
 * and bytes. */
static void pick_bytes(sf_mutator *m, const sf_seq *s, sf_buf *out, uint64_t max_len,
                       const sf_func *f, const sf_param *like, const sf_arg *args) {
  sf_rng *r = &m->rng;
  sf_buf_reset(out);
  uint32_t choice = (uint32_t)sf_rng_below(r, 10);
  /* A call's named arguments come from one earlier call, mostly. */
  if (like && m->reuse_call < s->ncalls && sf_rng_chance(r, 3, 4) &&
      reuse_from_call(m, s, out, like)) {
    if (out->len > max_len) out->len = (size_t)max_len;
    return;
  }
  if (m->nseps && sf_rng_chance(r, 1, 8)) {
    gen_list(m, out);
    if (out->len > max_len) out->len = (size_t)max_len;
    return;
  }
  if (choice < 3 && m->api->ndict) {
    const char *d = m->api->dict[sf_rng_below(r, m->api->ndict)];
    sf_buf_append(out, d, strlen(d));
  } else if (choice < 7 && s->ncalls) {
    if (!(args && like && sf_rng_chance(r, 1, 2) && producer_bytes(m, s, f, args, like, out)))
      reuse_bytes(m, s, out, like);
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

/* Do arguments a and b of s hold the same bytes? */
static bool same_bytes(const sf_seq *s, const sf_arg *a, const sf_arg *b) {
  return a->len == b->len && memcmp(sf_seq_bytes(s, a), sf_seq_bytes(s, b), a->len) == 0;
}

/* The walk of a burst: the (offset + k)-th of the distinct values that
 * calls before the burst gave parameters named like p, in order (keys put
 * before, now deleted one by one). NULL when there is none. */
static const sf_arg *walk_value(const sf_mutator *m, const sf_seq *s, const sf_param *p) {
  const sf_arg *found[64];
  uint32_t n = 0;
  for (uint32_t ci = 0; ci < m->burst.start && ci < s->ncalls && n < 64; ci++)
    for (uint32_t i = 0; i < sf_seq_func(s, ci)->nparams && n < 64; i++) {
      if (!same_role(s, ci, i, p)) continue;
      const sf_arg *a = &sf_seq_args(s, ci)[i];
      bool dup = false;
      for (uint32_t j = 0; j < n && !dup; j++)
        dup = same_bytes(s, a, found[j]);
      if (!dup) found[n++] = a;
    }
  return n ? found[(m->burst.offset + m->burst.k) % n] : NULL;
}

bool sf_mut_walkable(const sf_mutator *m, const sf_seq *s, const sf_func *f) {
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (sf_param_is_input(p) && (p->kind == SF_STRING || p->kind == SF_BUFFER) && p->name &&
        walk_value(m, s, p))
      return true;
  }
  return false;
}

/* Bytes for parameter p of f in a burst (m->burst) into out; false: pick
 * them as usual. A walk takes earlier values in turn (walk_value); a fresh
 * burst, and a walk with nothing to walk, gives each call after the first
 * the first call's bytes and a letter of its own (distinct keys, put one
 * after another). */
static bool burst_bytes(sf_mutator *m, const sf_seq *s, const sf_func *f, const sf_param *p,
                        sf_buf *out, uint64_t max_len) {
  if (m->burst.k == UINT32_MAX || m->burst.mode == SF_BURST_ANY || !p->name) return false;
  const sf_arg *a = m->burst.mode == SF_BURST_WALK ? walk_value(m, s, p) : NULL;
  uint32_t k = m->burst.k;
  if (!a && k == 0) return false;
  sf_buf_reset(out);
  if (a) {
    sf_buf_append(out, sf_seq_bytes(s, a), a->len);
  } else {
    a = &sf_seq_args(s, m->burst.first)[p - f->params];
    sf_buf_append(out, sf_seq_bytes(s, a), a->len);
    for (k--;; k = k / 26 - 1) {
      sf_buf_putc(out, (uint8_t)('a' + k % 26));
      if (k < 26) break;
    }
  }
  if (out->len > max_len) out->len = (size_t)max_len;
  return true;
}

/* Append v's low `size` bytes, little endian. */
static void put_le(sf_buf *out, uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; i++)
    sf_buf_putc(out, (uint8_t)(v >> (8 * i)));
}

/* A value the target compared a mock's answer of kind k with, if one fits
 * p (the comparison's operand, sign-extended from its width for a signed
 * kind); else one it compared anything with. */
static bool compared_answer(sf_mutator *m, const sf_param *p, uint64_t *v) {
  sf_rng *r = &m->rng;
  unsigned bits = 8 * sf_kind_size(p->kind);
  for (int tries = 0; tries < 8 && m->nanswervals; tries++) {
    uint64_t c = m->answervals[sf_rng_below(r, m->nanswervals)];
    if (sf_kind_is_signed(p->kind) && bits < 64 && (c >> (bits - 1)) & 1) c |= ~0ull << bits;
    if (sf_param_accepts(p, c)) return *v = c, true;
  }
  for (int tries = 0; tries < 8 && m->ncmpvals; tries++) {
    uint64_t c = m->cmpvals[sf_rng_below(r, m->ncmpvals)];
    if (sf_param_accepts(p, c)) return *v = c, true;
  }
  return false;
}

/* One answer of a mock: mostly the default (the ordinary case), else a
 * bound, a value the target compared an answer with (`if (hook() == 42)`:
 * the library checks a callback's result against what it expects), or
 * another legal value. */
static uint64_t gen_answer(sf_mutator *m, const sf_callback *cb) {
  sf_rng *r = &m->rng;
  const sf_param *p = &cb->ret;
  uint64_t span = p->hi - p->lo, v;
  switch (sf_rng_below(r, 8)) {
  case 0:
    return p->lo;
  case 1:
    return p->hi;
  case 2:
    if (compared_answer(m, p, &v)) return v;
    /* fall through */
  case 3:
    return span == UINT64_MAX ? sf_rng_next(r) : p->lo + sf_rng_below(r, span + 1);
  default:
    return cb->ret_default;
  }
}

/* One record of a mock's script (api.h: sf_callback), appended to out: a
 * chunk of a dictionary word (alone, or a header: a word and a few bytes),
 * bytes of other arguments or letters; small out numbers; an answer
 * (gen_answer); an allocator's failure now and then. */
static void gen_record(sf_mutator *m, const sf_seq *s, const sf_callback *cb, sf_buf *out) {
  sf_rng *r = &m->rng;
  if (cb->alloc_size >= 0) { /* 0 allocates, else fails */
    sf_buf_putc(out, sf_rng_chance(r, 1, 8));
    return;
  }
  for (uint32_t j = 0; j < cb->nparams; j++) {
    if (!(cb->params[j].flags & SF_P_OUT) || cb->params[j].kind != SF_BUFFER) continue;
    sf_buf piece = {0};
    pick_bytes(m, s, &piece, 255, NULL, NULL, NULL);
    if (m->api->ndict && sf_rng_chance(r, 1, 4)) {
      const char *d = m->api->dict[sf_rng_below(r, m->api->ndict)];
      sf_buf_reset(&piece);
      sf_buf_append(&piece, d, strlen(d));
      for (uint64_t n = sf_rng_below(r, 9); n-- > 0 && piece.len < 255;)
        sf_buf_putc(&piece, sf_rng_chance(r, 1, 2) ? (uint8_t)('a' + sf_rng_below(r, 26))
                                                   : (uint8_t)sf_rng_below(r, 256));
    }
    sf_buf_putc(out, (uint8_t)piece.len);
    sf_buf_append(out, piece.data, piece.len);
    sf_buf_free(&piece);
  }
  for (uint32_t j = 0; j < cb->nparams; j++) {
    const sf_param *q = &cb->params[j];
    if (!(q->flags & SF_P_OUT) || q->kind == SF_BUFFER || (q->flags & SF_P_LENGTH)) continue;
    uint64_t v = sf_rng_below(r, 4);
    if (sf_rng_chance(r, 1, 4) && !compared_answer(m, q, &v)) v = sf_rng_next(r);
    put_le(out, v, sf_kind_size(q->kind));
  }
  if (cb->ret.kind != SF_VOID && !cb->ret_is_count)
    put_le(out, gen_answer(m, cb), sf_kind_size(cb->ret.kind));
}

/* A mock's script: one to eight records (gen_record); one time in four,
 * bytes as for any buffer (the mutator's job then). */
static void gen_script(sf_mutator *m, const sf_seq *s, const sf_callback *cb, sf_buf *out) {
  sf_rng *r = &m->rng;
  if (sf_rng_chance(r, 1, 4)) {
    pick_bytes(m, s, out, SF_MAX_SCRIPT, NULL, NULL, NULL);
    return;
  }
  sf_buf_reset(out);
  for (uint64_t k = 1 + sf_rng_below(r, 8); k-- > 0 && out->len < SF_MAX_SCRIPT / 2;)
    gen_record(m, s, cb, out);
  if (out->len > SF_MAX_SCRIPT) out->len = SF_MAX_SCRIPT;
}

/* A vtable's value: each member's script after its 2-byte length (a
 * nullable member sometimes empty: NULL). */
static void gen_vtable(sf_mutator *m, const sf_seq *s, const sf_vtable *vt, sf_buf *out) {
  sf_buf script = {0};
  sf_buf_reset(out);
  for (uint32_t k = 0; k < vt->nslots; k++) {
    sf_buf_reset(&script);
    if (!vt->slots[k].nullable || !sf_rng_chance(&m->rng, 1, 8))
      gen_script(m, s, &m->api->callbacks[vt->slots[k].callback], &script);
    if (out->len + 2 > SF_MAX_SCRIPT) break;
    size_t room = SF_MAX_SCRIPT - out->len - 2;
    if (script.len > room) script.len = room;
    sf_buf_putc(out, (uint8_t)script.len);
    sf_buf_putc(out, (uint8_t)(script.len >> 8));
    sf_buf_append(out, script.data, script.len);
  }
  sf_buf_free(&script);
}

/* A printf format with its arguments (seq.h: sf_printf_parse): a few
 * pieces of text and conversions, each with an argument of its kind. */
static void gen_printf(sf_mutator *m, sf_buf *out, bool sqlite) {
  static const char *const c_convs[] = {"%d",  "%i",   "%u",  "%x",   "%X",  "%o",   "%c",
                                        "%ld", "%lld", "%zu", "%hhd", "%hd", "%s",   "%.3s",
                                        "%f",  "%g",   "%e",  "%a",   "%5d", "%-8s", "%+.2f",
                                        "%#x", "%05d", "%%",  "%.0e", "%lu"};
  static const char *const sqlite_convs[] = {
      "%d",    "%lld",   "%u",    "%x", "%o",   "%c",      "%.10c",   "%s",
      "%.3s",  "%q",     "%Q",    "%w", "%.5q", "%-20.5s", "%+08lld", "%#x",
      "%,lld", "%!.15g", "%.20f", "%e", "%G",   "%%",      "%5d",     "%-8s"};
  const char *const *convs = sqlite ? sqlite_convs : c_convs;
  size_t nconvs =
      sqlite ? sizeof sqlite_convs / sizeof *sqlite_convs : sizeof c_convs / sizeof *c_convs;
  static const char *const ints[] = {
      "0",     "1",          "-1",          "42",         "255",
      "65535", "2147483647", "-2147483648", "4294967295", "9223372036854775807"};
  static const char *const dbls[] = {"0",       "1.5", "-0.25", "1e308",
                                     "3.14159", "nan", "inf",   "1e-310"};
  sf_rng *r = &m->rng;
  sf_buf_reset(out);
  uint64_t pieces = 1 + sf_rng_below(r, 4);
  for (uint64_t k = 0; k < pieces; k++) {
    if (sf_rng_chance(r, 1, 3)) { /* text: no '%' of its own */
      uint64_t n = 1 + sf_rng_below(r, 8);
      for (uint64_t i = 0; i < n; i++)
        sf_buf_putc(out, sf_rng_chance(r, 1, 8) ? ' ' : (uint8_t)('a' + sf_rng_below(r, 26)));
      continue;
    }
    const char *c = convs[sf_rng_below(r, nconvs)];
    sf_buf_append(out, c, strlen(c));
    char last = c[strlen(c) - 1];
    if (last == '%') continue;
    sf_buf_putc(out, '{');
    if (strchr("sqQw", last)) {
      const char *d = m->api->ndict ? m->api->dict[sf_rng_below(r, m->api->ndict)] : "abc";
      for (; *d; d++)
        if (*d != '}') sf_buf_putc(out, (uint8_t)*d);
    } else if (strchr("fgeaG", last)) {
      const char *d = dbls[sf_rng_below(r, sizeof dbls / sizeof *dbls)];
      sf_buf_append(out, d, strlen(d));
    } else {
      const char *d = ints[sf_rng_below(r, sizeof ints / sizeof *ints)];
      sf_buf_append(out, d, strlen(d));
    }
    sf_buf_putc(out, '}');
  }
  if (out->len > SF_MAX_STRING) out->len = SF_MAX_STRING;
}

/* Does x (a widened answer or a zero-extended operand) have a size-byte
 * form? */
static bool fits_in(uint64_t x, unsigned size) {
  if (size == 8) return true;
  unsigned bits = 8 * size;
  uint64_t low = x & ((1ull << bits) - 1),
           sext = (low >> (bits - 1)) & 1 ? low | (~0ull << bits) : low;
  return x == low || x == sext || x == (sext & UINT32_MAX);
}

int sf_mut_replace_answer(sf_mutator *m, sf_seq *s, sf_arg *a, const uint64_t pair[2]) {
  static const unsigned sizes[] = {8, 4, 2, 1};
  for (unsigned z = 0; z < 4; z++) {
    unsigned size = sizes[z];
    if (size > a->len || !fits_in(pair[0], size) || !fits_in(pair[1], size)) continue;
    const uint8_t *bytes = sf_seq_bytes(s, a);
    uint32_t hits = 0, pick = 0;
    for (uint32_t at = 0; at + size <= a->len; at++) {
      unsigned i = 0;
      while (i < size && bytes[at + i] == (uint8_t)(pair[0] >> (8 * i)))
        i++;
      if (i == size && sf_rng_below(&m->rng, ++hits) == 0) pick = at; /* one at random */
    }
    if (!hits) continue;
    sf_buf *tmp = &m->bytes;
    sf_buf_reset(tmp);
    if (sf_buf_append(tmp, bytes, a->len)) return -1;
    for (unsigned i = 0; i < size; i++)
      tmp->data[pick + i] = (uint8_t)(pair[1] >> (8 * i));
    return sf_seq_set_bytes(s, a, tmp->data, tmp->len) ? -1 : 1;
  }
  return 0;
}

/* Where `from` occurs in a's bytes: as a part (from two bytes on) or as
 * the whole; one occurrence at random among those seen so far (*hits
 * counts them), its offset in *at. */
static bool find_side(sf_mutator *m, const uint8_t *bytes, size_t len, const uint8_t *from,
                      size_t nf, uint32_t *hits, size_t *at) {
  bool found = false;
  if (nf < 2) {
    if (len == nf && (!nf || bytes[0] == from[0]) && sf_rng_below(&m->rng, ++*hits) == 0)
      *at = 0, found = true;
    return found;
  }
  for (size_t i = 0; i + nf <= len; i++)
    if (bytes[i] == from[0] && memcmp(bytes + i, from, nf) == 0 &&
        sf_rng_below(&m->rng, ++*hits) == 0)
      *at = i, found = true;
  return found;
}

int sf_mut_replace_bytes(sf_mutator *m, sf_seq *s, const sf_bytes_cmp *c) {
  if (c->len[0] == c->len[1] && memcmp(c->side[0], c->side[1], c->len[0]) == 0) return 0;
  uint32_t first = (uint32_t)sf_rng_below(&m->rng, 2);
  for (uint32_t d = 0; d < 2; d++) {
    uint32_t from = (first + d) % 2, to = 1 - from;
    uint32_t hits = 0, pick_call = 0, pick_param = 0;
    size_t pick_at = 0;
    for (uint32_t ci = 0; ci < s->ncalls; ci++) {
      const sf_func *f = sf_seq_func(s, ci);
      for (uint32_t i = 0; i < f->nparams; i++) {
        const sf_param *p = &f->params[i];
        const sf_arg *a = &sf_seq_args(s, ci)[i];
        if (!sf_param_is_input(p) || (p->kind != SF_STRING && p->kind != SF_BUFFER) ||
            (p->flags & (SF_P_CALLBACK | SF_P_VTABLE)) || (p->kind == SF_STRING && a->bits))
          continue;
        if (find_side(m, sf_seq_bytes(s, a), a->len, c->side[from], c->len[from], &hits, &pick_at))
          pick_call = ci, pick_param = i;
      }
    }
    if (!hits) continue;
    sf_arg *a = &sf_seq_args(s, pick_call)[pick_param];
    const uint8_t *bytes = sf_seq_bytes(s, a);
    sf_buf *tmp = &m->bytes;
    sf_buf_reset(tmp);
    if (sf_buf_append(tmp, bytes, pick_at) || sf_buf_append(tmp, c->side[to], c->len[to]) ||
        sf_buf_append(tmp, bytes + pick_at + c->len[from], a->len - pick_at - c->len[from]))
      return -1;
    if (sf_seq_func(s, pick_call)->params[pick_param].kind == SF_STRING) {
      uint8_t *nul = tmp->len ? memchr(tmp->data, 0, tmp->len) : NULL;
      if (nul) tmp->len = (size_t)(nul - tmp->data); /* a string ends at its NUL */
    }
    return sf_seq_set_bytes(s, a, tmp->data ? tmp->data : (const uint8_t *)"", tmp->len) ? -1 : 1;
  }
  return 0;
}

int sf_mut_replace_int(sf_mutator *m, sf_seq *s, const uint64_t pair[2]) {
  uint32_t hits = 0;
  sf_arg *pick = NULL;
  const sf_param *pick_param = NULL;
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      sf_arg *a = &sf_seq_args(s, ci)[i];
      if (!sf_param_is_input(p) || !sf_kind_is_int(p->kind) || a->bits != pair[0] ||
          sf_rng_below(&m->rng, ++hits) != 0)
        continue;
      pick = a;
      pick_param = p;
    }
  }
  /* A value out of the range would wrap into it: a value of no meaning. */
  if (!pick || sf_arg_prim_repair(m->api, pick_param, pair[1]) != pair[1]) return 0;
  pick->bits = pair[1];
  return 1;
}

/* Fill a bytes argument (string, buffer, array) of p. */
int sf_mut_gen_bytes(sf_mutator *m, sf_seq *s, const sf_func *f, const sf_param *p,
                     const sf_arg *args, sf_arg *a) {
  sf_buf *tmp = &m->bytes;
  sf_buf_reset(tmp);
  if (p->kind == SF_STRING) {
    if ((p->flags & SF_P_NULLABLE) && sf_rng_chance(&m->rng, 1, 16)) {
      a->bits = 1;
      a->len = 0;
      return 0;
    }
    if (p->flags & SF_P_PRINTF)
      gen_printf(m, tmp, p->flags & SF_P_PRINTF_SQLITE);
    else if (!burst_bytes(m, s, f, p, tmp, SF_MAX_STRING))
      pick_bytes(m, s, tmp, SF_MAX_STRING, f, p, args);
    uint8_t *nul = tmp->len ? memchr(tmp->data, 0, tmp->len) : NULL;
    if (nul) tmp->len = (size_t)(nul - tmp->data);
    a->bits = 0;
  } else {
    unsigned es = sf_kind_size(p->elem);
    uint64_t lo = p->array_len, hi = p->array_len;
    if (p->kind == SF_BUFFER) sf_seq_buffer_bounds(f, p, &lo, &hi);
    if ((p->flags & (SF_P_CALLBACK | SF_P_VTABLE)) && (p->flags & SF_P_NULLABLE) &&
        sf_rng_chance(&m->rng, 1, 16)) {
      sf_buf_reset(tmp); /* NULL */
    } else if (p->flags & SF_P_CALLBACK) {
      gen_script(m, s, &m->api->callbacks[p->type_index], tmp);
    } else if (p->flags & SF_P_VTABLE) {
      gen_vtable(m, s, &m->api->vtables[p->type_index], tmp);
    } else if (es == 1) {
      if (!burst_bytes(m, s, f, p, tmp, hi)) pick_bytes(m, s, tmp, hi, f, p, args);
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
        uint64_t v = sf_mut_gen_prim(m, &ep);
        sf_buf_append(tmp, &v, es);
      }
    }
    while (tmp->len / es < lo)
      sf_buf_putc(tmp, 0);
    tmp->len -= tmp->len % es;
    if (tmp->len / es > hi) tmp->len = (size_t)(hi * es);
  }
  return sf_seq_set_bytes(s, a, tmp->data ? tmp->data : (const uint8_t *)"", tmp->len);
}
