#include "generalize.h"

#include <stdlib.h>
#include <string.h>

/* May argument a (index into s->args, parameter p) vary at all? Handles are
 * the pattern's structure; lengths and constants are the grammar's. */
static bool variable(const sf_param *p) {
  return p->kind != SF_HANDLE && !(p->flags & (SF_P_OUT | SF_P_LENGTH | SF_P_CONST | SF_P_GIVEN |
                                               SF_P_CALLBACK | SF_P_VTABLE));
}

static bool has_bytes(const sf_param *p) {
  return p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY;
}

typedef struct slot {
  uint32_t call, param, arg; /* arg: index into s->args */
  const sf_param *p;
} slot;

/* Do slots a and b hold the same value (of the same kind)? */
static bool same(const sf_seq *s, const slot *a, const slot *b) {
  const sf_arg *x = &s->args[a->arg], *y = &s->args[b->arg];
  if (a->p->kind != b->p->kind || has_bytes(a->p) != has_bytes(b->p)) return false;
  if (has_bytes(a->p))
    return x->bits == y->bits && x->len == y->len &&
           (x->len == 0 || memcmp(sf_seq_bytes(s, x), sf_seq_bytes(s, y), x->len) == 0);
  return x->bits == y->bits;
}

/* Is integer x allowed for p (its range, its excluded values)? */
static bool in_range(const sf_param *p, uint64_t x) {
  bool sig = sf_kind_is_signed(p->kind);
  if (sig ? (int64_t)x < (int64_t)p->lo || (int64_t)x > (int64_t)p->hi : x < p->lo || x > p->hi)
    return false;
  for (uint32_t i = 0; i < p->nexcluded; i++)
    if (p->excluded[i] == x) return false;
  return true;
}

/* The k-th (0 or 1) of two other allowed integers near v: what the
 * grammar allows, not values it rejects (those would say nothing). */
static uint64_t other_int(const sf_param *p, uint64_t v, int k) {
  const uint64_t tries[] = {v + 1, v - 1, v + 3, p->lo, p->hi, 0, 1, (p->lo + p->hi) / 2};
  int found = 0;
  for (size_t i = 0; i < sizeof tries / sizeof *tries; i++)
    if (tries[i] != v && in_range(p, tries[i]) && found++ == k) return tries[i];
  return v + 1 + (uint64_t)k;
}

/* Variant k (0 or 1) of slot v's value, written into t (a copy of s). */
static int set_variant(sf_seq *t, const sf_seq *s, const slot *v, int k) {
  const sf_arg *orig = &s->args[v->arg];
  sf_arg *a = &t->args[v->arg];
  if (has_bytes(v->p)) {
    /* Another first byte; half as long (one byte: one more). Not empty: a
     * library that rejects an empty value stops the run before the crash,
     * which says nothing about other values. */
    uint8_t buf[4097];
    size_t n = orig->len < 4096 ? orig->len : 4096;
    if (n) memcpy(buf, sf_seq_bytes(s, orig), n);
    if (k == 0 && n)
      buf[0] = buf[0] == 'Q' ? 'R' : 'Q';
    else if (n >= 2)
      n /= 2;
    else
      buf[n] = n ? buf[n - 1] : 'z', n++;
    a->bits = 0; /* not NULL */
    return sf_seq_set_bytes(t, a, buf, n);
  }
  if (v->p->kind == SF_F32 || v->p->kind == SF_F64) {
    float f = k ? 1.5f : 0.0f;
    double d = k ? 1.5 : 0.0;
    uint64_t bits = 0;
    if (v->p->kind == SF_F32)
      memcpy(&bits, &f, sizeof f);
    else
      memcpy(&bits, &d, sizeof d);
    a->bits = bits;
    return 0;
  }
  if (v->p->kind == SF_BOOL) {
    a->bits = !orig->bits;
    return 0;
  }
  a->bits = other_int(v->p, orig->bits, k);
  return 0;
}

/* A string or buffer slot v with other content of its length (k = 0) or
 * twice its length (k = 1), into t. */
static int set_content_variant(sf_seq *t, const sf_seq *s, const slot *v, int k) {
  const sf_arg *orig = &s->args[v->arg];
  size_t n = orig->len * (k ? 2u : 1u);
  uint8_t *buf = malloc(n ? n : 1);
  if (!buf) return -1;
  const uint8_t *o = sf_seq_bytes(s, orig);
  for (size_t i = 0; i < n; i++) {
    uint8_t c = o[i % orig->len];
    /* Another letter or digit for one, the same punctuation for others
     * (the dots of a version), and other bytes changed too (a double's). */
    buf[i] = c >= '0' && c <= '9'                 ? (uint8_t)('0' + (c - '0' + 3) % 10)
             : (c | 32) >= 'a' && (c | 32) <= 'z' ? (uint8_t)('a' + ((c | 32) - 'a' + 7) % 26)
             : c >= 0x20 && c < 0x7f              ? c
                                                  : (uint8_t)(c ^ 0x55);
  }
  t->args[v->arg].bits = 0;
  int rc = sf_seq_set_bytes(t, &t->args[v->arg], buf, n);
  free(buf);
  return rc;
}

/* Does variant t crash as sig says? 1 yes, 0 no (or the grammar rejects
 * it: a range, a precondition; that says nothing), -1 the runner failed. */
static int same_crash(const sf_seq *t, const sf_signature *sig, sf_runner *runner, int *runs) {
  if (sf_seq_validate(t, NULL, 0) != 0) return 0;
  sf_buf enc = {0};
  sf_signature got;
  int rc = sf_seq_encode(t, &enc) || sf_runner_run(runner, enc.data, enc.len, &got, NULL);
  sf_buf_free(&enc);
  if (rc) return -1;
  (*runs)++;
  return sf_signature_equal(&got, sig);
}

/* Does the crash survive other content of the same length (1), and twice
 * the length too (2), in bytes slot v? (The crash needs a value that long,
 * or at least that long, not this one.) 0: neither. */
static int length_survives(const sf_seq *s, const slot *v, const sf_signature *sig,
                           sf_runner *runner, int *runs) {
  if (!has_bytes(v->p) || v->p->kind == SF_ARRAY || s->args[v->arg].len < 1) return 0;
  for (int k = 0; k < 2; k++) {
    sf_seq t;
    sf_seq_init(&t, s->api);
    int r = sf_seq_copy(&t, s) || set_content_variant(&t, s, v, k)
                ? -1
                : same_crash(&t, sig, runner, runs);
    sf_seq_free(&t);
    if (r != 1) return r < 0 ? -1 : k;
  }
  return 2;
}

/* Does the crash survive every variant of the slots in `group`? */
static int survives(const sf_seq *s, const slot *slots, const uint32_t *group, uint32_t n,
                    const sf_signature *sig, sf_runner *runner, int *runs) {
  for (int k = 0; k < 2; k++) {
    sf_seq t;
    sf_seq_init(&t, s->api);
    int rc = sf_seq_copy(&t, s);
    for (uint32_t i = 0; i < n && !rc; i++)
      rc = set_variant(&t, s, &slots[group[i]], k);
    int r = rc ? -1 : same_crash(&t, sig, runner, runs);
    sf_seq_free(&t);
    if (r != 1) return r;
  }
  return 1;
}

/* Does the crash survive flipping bit `bit` of flags slot v? */
static int flip_survives(const sf_seq *s, const slot *v, uint32_t bit, const sf_signature *sig,
                         sf_runner *runner, int *runs) {
  sf_seq t;
  sf_seq_init(&t, s->api);
  int r = -1;
  if (sf_seq_copy(&t, s) == 0) {
    t.args[v->arg].bits ^= 1ull << bit;
    r = same_crash(&t, sig, runner, runs);
  }
  sf_seq_free(&t);
  return r;
}

/* s with its calls before the last in the order perm (the last stays
 * last), into t; -1 when a call would use a handle made after it. */
static int reorder(const sf_seq *s, const uint32_t *perm, sf_seq *t, uint64_t *map) {
  sf_seq_clear(t);
  for (uint32_t v = 0; v < s->nvals; v++)
    map[v] = SF_NULL_REF;
  for (uint32_t k = 0; k < s->ncalls; k++) {
    uint32_t ci = k + 1 < s->ncalls ? perm[k] : k;
    const sf_func *f = sf_seq_func(s, ci);
    const sf_arg *a = sf_seq_args(s, ci);
    for (uint32_t i = 0; i < f->nparams; i++)
      if (f->params[i].kind == SF_HANDLE && !(f->params[i].flags & SF_P_OUT) &&
          a[i].bits != SF_NULL_REF && map[a[i].bits] == SF_NULL_REF)
        return -1;
    uint32_t v0 = t->nvals;
    if (!sf_seq_append_from(t, s, ci, map)) return -1;
    uint32_t sv0 = s->calls[ci].val0, sv1 = ci + 1 < s->ncalls ? s->calls[ci + 1].val0 : s->nvals;
    for (uint32_t v = sv0; v < sv1; v++)
      map[v] = v0 + (v - sv0);
  }
  return sf_seq_validate(t, NULL, 0) == 0 ? 0 : -1;
}

/* Next permutation of perm[0..n) in lexicographic order; false after the
 * last. */
static bool next_perm(uint32_t *perm, uint32_t n) {
  if (n < 2) return false;
  uint32_t i = n - 1;
  while (i > 0 && perm[i - 1] >= perm[i])
    i--;
  if (i == 0) return false;
  uint32_t j = n - 1;
  while (perm[j] <= perm[i - 1])
    j--;
  uint32_t x = perm[i - 1];
  perm[i - 1] = perm[j];
  perm[j] = x;
  for (uint32_t a = i, b = n - 1; a < b; a++, b--) {
    x = perm[a];
    perm[a] = perm[b];
    perm[b] = x;
  }
  return true;
}

/* The other orders of the calls before the last in which the crash
 * survives, as `# order:` lines on out (at most 5 calls: 120 orders).
 * Returns 0, or -1 when the runner failed. */
static int other_orders(const sf_seq *s, const sf_signature *sig, sf_runner *runner, int *runs,
                        sf_buf *out) {
  uint32_t n = s->ncalls ? s->ncalls - 1 : 0;
  if (n < 2 || n > 5) return 0;
  uint32_t perm[5];
  for (uint32_t i = 0; i < n; i++)
    perm[i] = i;
  uint64_t *map = malloc((s->nvals + 1) * sizeof *map);
  sf_seq t;
  sf_seq_init(&t, s->api);
  int rc = map ? 0 : -1;
  while (!rc && next_perm(perm, n)) {
    if (reorder(s, perm, &t, map)) continue; /* a handle used before it is made */
    int r = same_crash(&t, sig, runner, runs);
    if (r < 0) rc = -1;
    if (r != 1) continue;
    sf_buf_printf(out, "# order:");
    for (uint32_t i = 0; i < n; i++)
      sf_buf_printf(out, " %u", perm[i] + 1);
    sf_buf_printf(out, "\n");
  }
  sf_seq_free(&t);
  free(map);
  return rc;
}

/* Plain arguments for call `ci` of t (just added): handles of the types it
 * takes (h, of type ht, for the first of that type; else the newest value of
 * the type), the lowest allowed numbers, one byte of data. -1 when a handle
 * has no value to take. */
static int plain_args(sf_seq *t, uint32_t ci, uint32_t h, uint32_t ht) {
  const sf_func *f = sf_seq_func(t, ci);
  bool used_h = false;
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    sf_arg *a = &sf_seq_args(t, ci)[i];
    if (p->flags & (SF_P_OUT | SF_P_CONST | SF_P_GIVEN | SF_P_LENGTH)) continue;
    if (p->flags & (SF_P_CALLBACK | SF_P_VTABLE)) continue; /* an empty script: the defaults */
    if (p->kind == SF_HANDLE) {
      if (p->type_index == ht && !used_h) {
        a->bits = h;
        used_h = true;
        continue;
      }
      uint32_t v = t->calls[ci].val0;
      while (v > 0 && t->vals[v - 1].htype != p->type_index)
        v--;
      if (v == 0) return -1;
      a->bits = v - 1;
    } else if (p->kind == SF_STRING || p->kind == SF_BUFFER || p->kind == SF_ARRAY) {
      uint8_t bytes[64] = {'a'};
      size_t elem = sf_kind_size(p->elem) ? sf_kind_size(p->elem) : 1;
      size_t n = p->kind == SF_ARRAY ? p->array_len * elem : p->kind == SF_BUFFER ? elem : 1;
      if (n > sizeof bytes || sf_seq_set_bytes(t, a, bytes, n)) return -1;
    } else if (sf_kind_is_int(p->kind)) {
      a->bits = in_range(p, p->lo) ? p->lo : 0;
    }
  }
  return used_h ? 0 : -1;
}

/* The other functions that, in place of the last call (on its first
 * handle), crash the same way: `# last:` names them. (A buffer left
 * without room for its NUL crashes the next append, the next read of it,
 * ...: one pattern sets them all aside.) */
static int other_last_calls(const sf_seq *s, const sf_signature *sig, sf_runner *runner, int *runs,
                            sf_buf *out) {
  uint32_t last = s->ncalls - 1, h = UINT32_MAX, ht = 0;
  const sf_func *lf = sf_seq_func(s, last);
  for (uint32_t i = 0; i < lf->nparams && h == UINT32_MAX; i++)
    if (lf->params[i].kind == SF_HANDLE && !(lf->params[i].flags & SF_P_OUT) &&
        sf_seq_args(s, last)[i].bits != SF_NULL_REF) {
      h = (uint32_t)sf_seq_args(s, last)[i].bits;
      ht = lf->params[i].type_index;
    }
  if (h == UINT32_MAX) return 0;
  sf_seq t;
  sf_seq_init(&t, s->api);
  sf_buf names = {0};
  int rc = 0;
  for (uint32_t g = 0; g < s->api->nfuncs && !rc; g++) {
    if (g == s->calls[last].func) continue;
    if (sf_seq_copy(&t, s)) {
      rc = -1;
      break;
    }
    sf_seq_truncate(&t, last);
    if (!sf_seq_add_call(&t, g)) {
      rc = -1;
      break;
    }
    if (plain_args(&t, last, h, ht)) continue;
    int r = same_crash(&t, sig, runner, runs);
    if (r < 0) rc = -1;
    if (r == 1) sf_buf_printf(&names, " %s", s->api->funcs[g].name);
  }
  if (!rc && names.len)
    sf_buf_printf(out, "# last:%.*s\n", (int)names.len, (const char *)names.data);
  sf_buf_free(&names);
  sf_seq_free(&t);
  return rc;
}

int sf_generalize(const sf_seq *s, const sf_signature *sig, sf_runner *runner, sf_buf *out) {
  slot *slots = calloc(s->nargs ? s->nargs : 1, sizeof *slots);
  uint32_t *group = calloc(s->nargs ? s->nargs : 1, sizeof *group);
  uint8_t *done = calloc(s->nargs ? s->nargs : 1, 1);
  uint32_t nslots = 0;
  int runs = 0, rc = 0;
  if (!slots || !group || !done) rc = -1;
  for (uint32_t ci = 0; !rc && ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    for (uint32_t i = 0; i < f->nparams; i++)
      if (variable(&f->params[i]))
        slots[nslots++] = (slot){ci, i, s->calls[ci].arg0 + i, &f->params[i]};
  }
  sf_buf any = {0};
  for (uint32_t v = 0; !rc && v < nslots; v++) {
    if (done[v]) continue;
    done[v] = 1;
    group[0] = v;
    int r = survives(s, slots, group, 1, sig, runner, &runs);
    if (r == 1) {
      sf_buf_printf(&any, " %u.%u", slots[v].call + 1, slots[v].param + 1);
      continue;
    }
    if (r == 0 && has_bytes(slots[v].p)) {
      int g = length_survives(s, &slots[v], sig, runner, &runs);
      if (g < 0) {
        rc = -1;
        break;
      }
      if (g > 0) {
        sf_buf_printf(&any, " %u.%u%s%u", slots[v].call + 1, slots[v].param + 1,
                      g == 2 ? ">=" : "#", s->args[slots[v].arg].len);
        continue;
      }
    }
    if (r == 0 && slots[v].p->kind == SF_FLAGS) {
      /* Flags: which bits the crash does not care about, one at a time. */
      uint64_t free_bits = 0;
      uint32_t nbits = s->api->enums[slots[v].p->type_index].nconsts;
      for (uint32_t bit = 0; bit < nbits && bit < 64 && r >= 0; bit++) {
        int g = flip_survives(s, &slots[v], bit, sig, runner, &runs);
        if (g < 0) r = -1;
        if (g == 1) free_bits |= 1ull << bit;
      }
      if (free_bits)
        sf_buf_printf(&any, " %u.%u~%llx", slots[v].call + 1, slots[v].param + 1,
                      (unsigned long long)free_bits);
      if (r >= 0) continue;
    }
    /* Needed as it is, or only equal to another argument (a key put, then
     * deleted)? Grow a group of equal arguments that vary together. */
    uint32_t n = 1;
    for (uint32_t w = v + 1; r == 0 && w < nslots; w++) {
      if (done[w] || !same(s, &slots[v], &slots[w])) continue;
      group[n] = w;
      int g = survives(s, slots, group, n + 1, sig, runner, &runs);
      if (g < 0) r = -1;
      if (g == 1) n++;
    }
    if (r < 0) {
      rc = -1;
      break;
    }
    for (uint32_t i = 0; n > 1 && i < n; i++) {
      done[group[i]] = 1;
      sf_buf_printf(&any, " %u.%u=%u.%u", slots[group[i]].call + 1, slots[group[i]].param + 1,
                    slots[v].call + 1, slots[v].param + 1);
    }
  }
  sf_buf orders = {0};
  if (!rc && other_orders(s, sig, runner, &runs, &orders)) rc = -1;
  if (!rc && s->ncalls && other_last_calls(s, sig, runner, &runs, &orders)) rc = -1;
  if (!rc) {
    char text[512];
    sf_signature_format(sig, text, sizeof text);
    sf_buf_printf(out, "# a known bug: %s\n", text);
    if (any.len) sf_buf_printf(out, "# any:%.*s\n", (int)any.len, (const char *)any.data);
    if (orders.len && sf_buf_append(out, orders.data, orders.len)) rc = -1;
    if (sf_seq_print(s, out)) rc = -1;
  }
  sf_buf_free(&any);
  sf_buf_free(&orders);
  free(slots);
  free(group);
  free(done);
  return rc ? -1 : runs;
}

int sf_generalize_wide(const sf_seq *s, const sf_signature *sig, sf_buf *out) {
  if (s->ncalls < 2) return -1;
  /* Armed on what: the last call must take a handle the calls before made
   * (else they are not what arms it, and setting them aside would set
   * aside unrelated runs). */
  const sf_func *lf = sf_seq_func(s, s->ncalls - 1);
  bool armed = false;
  for (uint32_t i = 0; i < lf->nparams; i++)
    armed |= lf->params[i].kind == SF_HANDLE && !(lf->params[i].flags & SF_P_OUT) &&
             sf_seq_args(s, s->ncalls - 1)[i].bits != SF_NULL_REF;
  if (!armed) return -1;
  sf_seq t;
  sf_seq_init(&t, s->api);
  if (sf_seq_copy(&t, s)) return -1;
  sf_seq_truncate(&t, s->ncalls - 1);
  char text[512];
  sf_signature_format(sig, text, sizeof text);
  int rc =
      sf_buf_printf(out, "# a known bug: %s\n# wide: set aside at the call that arms it\n", text);
  bool any = false;
  for (uint32_t ci = 0; ci < t.ncalls && !rc; ci++) {
    const sf_func *f = sf_seq_func(&t, ci);
    for (uint32_t i = 0; i < f->nparams && !rc; i++)
      if (variable(&f->params[i])) {
        rc = sf_buf_printf(out, "%s %u.%u", any ? "" : "# any:", ci + 1, i + 1) < 0;
        any = true;
      }
  }
  if (!rc && any) rc = sf_buf_printf(out, "\n") < 0;
  if (!rc) rc = sf_seq_print(&t, out);
  sf_seq_free(&t);
  return rc ? -1 : 0;
}
