/* script.c: a mock's script (grammar/api.h: sf_callback) as variables of
 * the solver. The script is bytes, but what the library sees are its
 * records' fields: a chunk and its length, out numbers, an answer (an
 * answer out of its range is the default), an allocator's fail byte. Each
 * field is one variable at its own size and range, so that a branch on a
 * callback's result is an ordinary linear fit; records past the script's
 * end are variables too (the mock was answering defaults there). Setting a
 * variable re-encodes the script with every record written out in full,
 * which the mock reads exactly as before. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_RECORDS     10 /* records taken as variables, per script */
#define EXTRA_RECORDS   2  /* of them past the script's end */
#define MAX_CHUNK_BYTES 8  /* chunk bytes taken as variables, per record */

/* One record, as the mock reads it. */
typedef struct record {
  uint32_t chunk_off, chunk_len; /* the chunk's bytes in the script */
  uint64_t outs[16];             /* the out numbers, in parameter order */
  uint64_t answer;               /* as the mock answers (the default when out of range) */
} record;

static bool has_chunk(const sf_callback *cb) {
  for (uint32_t j = 0; j < cb->nparams; j++)
    if ((cb->params[j].flags & SF_P_OUT) && cb->params[j].kind == SF_BUFFER) return true;
  return false;
}

/* Is parameter j an out number the script holds? */
static bool is_out_number(const sf_param *p) {
  return (p->flags & SF_P_OUT) && p->kind != SF_BUFFER && !(p->flags & SF_P_LENGTH);
}

static bool has_answer(const sf_callback *cb) {
  return cb->ret.kind != SF_VOID && !cb->ret_is_count;
}

static uint64_t read_le(const uint8_t *s, uint32_t len, uint32_t pos, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n && pos + i < len; i++)
    v |= (uint64_t)s[pos + i] << (8 * i);
  return v;
}

static uint64_t widen(sf_kind k, uint64_t v) {
  unsigned bits = 8u * sf_kind_size(k);
  if (bits < 64 && sf_kind_is_signed(k) && (v >> (bits - 1)) & 1) v |= ~0ull << bits;
  return v;
}

/* The records of a script with their values, at most max (grammar/api.h:
 * sf_script_records); *end: where the last one ends. */
static uint32_t parse(const sf_callback *cb, const uint8_t *s, uint32_t len, record *recs,
                      uint32_t max, uint32_t *end) {
  sf_script_record rr[MAX_RECORDS];
  uint32_t n = sf_script_records(cb, s, len, rr, max < MAX_RECORDS ? max : MAX_RECORDS);
  for (uint32_t i = 0; i < n; i++) {
    record *r = &recs[i];
    memset(r, 0, sizeof *r);
    r->chunk_off = rr[i].chunk_off;
    r->chunk_len = rr[i].chunk_len;
    if (cb->alloc_size >= 0) {
      r->answer = s[rr[i].start] != 0;
      continue;
    }
    uint32_t pos = rr[i].outs_off;
    for (uint32_t j = 0, o = 0; j < cb->nparams && o < 16; j++)
      if (is_out_number(&cb->params[j])) {
        unsigned size = sf_kind_size(cb->params[j].kind);
        r->outs[o++] = read_le(s, len, pos, size);
        pos += size;
      }
    r->answer = cb->ret_default;
    if (rr[i].answered) {
      unsigned size = sf_kind_size(cb->ret.kind);
      uint64_t v = widen(cb->ret.kind, read_le(s, len, rr[i].end - size, size));
      if (sf_param_accepts(&cb->ret, v)) r->answer = v;
    }
  }
  *end = n ? rr[n - 1].end : 0;
  return n;
}

static void put_le(sf_buf *out, uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; i++)
    sf_buf_putc(out, (uint8_t)(v >> (8 * i)));
}

/* A record's default: what the mock answers past the script's end. */
static void default_record(const sf_callback *cb, record *r) {
  memset(r, 0, sizeof *r);
  r->answer = cb->alloc_size >= 0 ? 0 : cb->ret_default;
}

static void kind_range(sf_kind k, uint64_t *lo, uint64_t *hi) {
  unsigned bits = 8u * sf_kind_size(k);
  if (sf_kind_is_signed(k)) {
    *lo = bits == 64 ? 1ull << 63 : ~0ull << (bits - 1);
    *hi = bits == 64 ? INT64_MAX : (1ull << (bits - 1)) - 1;
  } else {
    *lo = 0;
    *hi = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
  }
}

static sf_var *add(sf_var *out, uint32_t *n, uint32_t max, const sf_var *proto, uint32_t record,
                   int16_t field, uint64_t value) {
  if (*n == max) return NULL;
  sf_var *v = &out[(*n)++];
  *v = *proto;
  v->elem = SF_VAR_SCRIPT;
  v->record = (uint16_t)record;
  v->field = field;
  v->value = value;
  v->size = 1;
  v->lo = 0;
  v->hi = 255;
  return v;
}

uint32_t sf_script_vars(const sf_callback *cb, const uint8_t *s, uint32_t len, const sf_var *proto,
                        sf_var *out, uint32_t max) {
  sf_script_record one;
  if (!sf_script_records(cb, (const uint8_t *)"", 1, &one, 1)) return 0; /* reads no bytes */
  record recs[MAX_RECORDS];
  uint32_t end;
  uint32_t nrec = parse(cb, s, len, recs, MAX_RECORDS, &end);
  uint32_t upto = nrec + EXTRA_RECORDS > MAX_RECORDS ? MAX_RECORDS : nrec + EXTRA_RECORDS;
  bool chunk = has_chunk(cb);
  uint32_t n = 0;
  for (uint32_t r = 0; r < upto; r++) {
    record *rec = &recs[r];
    if (r >= nrec) default_record(cb, rec);
    sf_var *v;
    if (cb->alloc_size >= 0) { /* fails (1) or not (0) */
      if ((v = add(out, &n, max, proto, r, SF_FIELD_ALLOC, rec->answer))) v->hi = 1;
      continue;
    }
    if (chunk) {
      if (!add(out, &n, max, proto, r, SF_FIELD_CHUNK_LEN, rec->chunk_len)) break;
      for (uint32_t b = 0; b < rec->chunk_len && b < MAX_CHUNK_BYTES; b++)
        if ((v = add(out, &n, max, proto, r, SF_FIELD_CHUNK_BYTE, s[rec->chunk_off + b])))
          v->byte = (uint16_t)b;
    }
    for (uint32_t j = 0, o = 0; j < cb->nparams && o < 16; j++) {
      const sf_param *p = &cb->params[j];
      if (!is_out_number(p)) continue;
      if (!(v = add(out, &n, max, proto, r, (int16_t)j, rec->outs[o++]))) break;
      v->size = (uint8_t)sf_kind_size(p->kind);
      v->is_signed = sf_kind_is_signed(p->kind);
      kind_range(p->kind, &v->lo, &v->hi);
      v->value = widen(p->kind, v->value);
    }
    if (has_answer(cb) && (v = add(out, &n, max, proto, r, SF_FIELD_ANSWER, rec->answer))) {
      v->size = (uint8_t)sf_kind_size(cb->ret.kind);
      v->is_signed = sf_kind_is_signed(cb->ret.kind);
      v->lo = cb->ret.lo;
      v->hi = cb->ret.hi;
    }
  }
  return n;
}

int sf_script_set(const sf_callback *cb, const uint8_t *s, uint32_t len, const sf_var *v,
                  uint64_t x, sf_buf *out) {
  record recs[MAX_RECORDS];
  uint32_t end; /* records past the first MAX_RECORDS stay as they are */
  uint32_t nrec = parse(cb, s, len, recs, MAX_RECORDS, &end);
  if (v->record >= MAX_RECORDS) return -1;
  for (uint32_t r = nrec; r <= v->record; r++)
    default_record(cb, &recs[r]);
  if (nrec <= v->record) nrec = v->record + 1u;
  record *rec = &recs[v->record];
  uint8_t chunk[256];
  sf_buf_reset(out);
  bool with_chunk = has_chunk(cb);
  for (uint32_t r = 0; r < nrec; r++) {
    const record *q = &recs[r];
    if (cb->alloc_size >= 0) {
      sf_buf_putc(out, (uint8_t)(r == v->record ? x != 0 : q->answer != 0));
      continue;
    }
    if (with_chunk) {
      uint32_t l = q->chunk_len;
      memset(chunk, 0, sizeof chunk);
      if (q->chunk_len) memcpy(chunk, s + q->chunk_off, q->chunk_len);
      if (q == rec && v->field == SF_FIELD_CHUNK_LEN) l = (uint32_t)(x & 0xff);
      if (q == rec && v->field == SF_FIELD_CHUNK_BYTE) {
        if (v->byte >= l) l = v->byte + 1u;
        chunk[v->byte] = (uint8_t)x;
      }
      sf_buf_putc(out, (uint8_t)l);
      sf_buf_append(out, chunk, l);
    }
    for (uint32_t j = 0, o = 0; j < cb->nparams && o < 16; j++) {
      const sf_param *p = &cb->params[j];
      if (!is_out_number(p)) continue;
      put_le(out, q == rec && v->field == (int16_t)j ? x : q->outs[o], sf_kind_size(p->kind));
      o++;
    }
    if (has_answer(cb))
      put_le(out, q == rec && v->field == SF_FIELD_ANSWER ? x : q->answer,
             sf_kind_size(cb->ret.kind));
  }
  sf_buf_append(out, s + end, len - end);
  return out->len > SF_MAX_SCRIPT ? -1 : 0;
}
