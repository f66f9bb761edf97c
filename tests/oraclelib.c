#include "oraclelib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- oset: a bitmap of [-8, 8] and a count ------------------------------- */

struct oset {
  unsigned bits; /* bit v + 8 for value v */
  int n, cap;
  int serial;
  int reads; /* os_reads */
};

static int serials;

static int in_range(int v) {
  return v >= -8 && v <= 8;
}

oset *os_new(int cap) {
  if (cap < 1 || cap > 16) return NULL;
  oset *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->cap = cap;
  s->serial = ++serials;
  return s;
}

void os_free(oset *s) {
  free(s);
}

int os_contains(oset *s, int v) {
  return in_range(v) && (s->bits >> (v + 8) & 1);
}

int os_add(oset *s, int v) {
  if (!in_range(v)) return -1;
  if (os_contains(s, v)) return 1;
  if (s->n >= s->cap) return -1;
  s->bits |= 1u << (v + 8);
  s->n++;
  return 0;
}

int os_remove(oset *s, int v) {
  if (!os_contains(s, v)) return 1;
  int was_full = s->n == s->cap;
  s->bits &= ~(1u << (v + 8));
  s->n--;
  /* The bug: a full set keeps its negative values in a "spill" area, whose
   * bookkeeping counts the removal a second time. Silent: the count only
   * disagrees with the bitmap (a later os_add may then overfill the set). */
  if (was_full && v < 0) s->n--;
  return 0;
}

int os_size(oset *s) {
  return s->n;
}

int os_check(oset *s) {
  return s->n - __builtin_popcount(s->bits);
}

int os_serial(oset *s) {
  return s->serial;
}

int os_reads(oset *s) {
  return ++s->reads;
}

/* ---- orec: "v=<value>" ------------------------------------------------------ */

struct orec {
  int value;
};

orec *or_new(void) {
  return calloc(1, sizeof(orec));
}

void or_free(orec *r) {
  free(r);
}

void or_add(orec *r, int d) {
  r->value += d;
}

int or_value(orec *r) {
  return r->value;
}

char *or_print(orec *r) {
  char *s = malloc(24);
  if (s) snprintf(s, 24, "v=%d", r->value);
  return s;
}

void or_str_free(char *s) {
  free(s);
}

orec *or_parse(const char *text) {
  if (strncmp(text, "v=", 2) != 0) return NULL;
  const char *p = text + 2;
  long v = 0;
  /* The bug: digits only, no sign, though or_print writes one. */
  if (*p < '0' || *p > '9') return NULL;
  for (; *p >= '0' && *p <= '9'; p++) {
    v = v * 10 + (*p - '0');
    if (v > 1000000) return NULL;
  }
  if (*p) return NULL;
  orec *r = or_new();
  if (r) r->value = (int)v;
  return r;
}

/* ---- obox: a stack with a digest ------------------------------------------ */

struct obox {
  int items[8];
  int n;
  unsigned touched; /* the bug's victim: not part of the contents */
};

obox *ob_new(void) {
  return calloc(1, sizeof(obox));
}

void ob_free(obox *b) {
  free(b);
}

int ob_put(obox *b, int v) {
  if (b->n == 8) return -1;
  b->items[b->n++] = v;
  return 0;
}

int ob_take(obox *b) {
  return b->n ? b->items[--b->n] : -1;
}

unsigned ob_digest(obox *b) {
  unsigned h = 2166136261u;
  for (int i = 0; i < b->n; i++)
    h = (h ^ (unsigned)b->items[i]) * 16777619u;
  return h ^ b->touched; /* should be the contents alone */
}

int ob_peek(obox *b) {
  if (!b->n) return -1;
  /* The bug: a "recently used" mark for boxes of three or more items, which
   * the digest reads. Each peek changes it. */
  if (b->n >= 3) b->touched++;
  return b->items[b->n - 1];
}
