/* difflib's first implementations (difflib.h): a sorted array; strtol. */
#include "difflib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dmap {
  int *keys, *vals;
  int n, cap;
};

dmap *da_new(void) {
  return calloc(1, sizeof(dmap));
}

void da_free(dmap *m) {
  free(m->keys);
  free(m->vals);
  free(m);
}

/* The first index whose key is >= key. */
static int lower_bound(const dmap *m, int key) {
  int lo = 0, hi = m->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (m->keys[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int grow(dmap *m) {
  int cap = m->cap ? m->cap * 2 : 2;
  int *k = realloc(m->keys, (size_t)cap * sizeof *k);
  if (!k) return -1;
  m->keys = k;
  int *v = realloc(m->vals, (size_t)cap * sizeof *v);
  if (!v) return -1;
  m->vals = v;
  m->cap = cap;
  return 0;
}

int da_put(dmap *m, int key, int val) {
  if (key < 0 || key > 15) return -1;
  int i = lower_bound(m, key);
  if (i < m->n && m->keys[i] == key) {
    m->vals[i] = val;
    return 0;
  }
  if (m->n == 8) return -1;
  if (m->n == m->cap && grow(m)) return -1;
  memmove(m->keys + i + 1, m->keys + i, (size_t)(m->n - i) * sizeof *m->keys);
  memmove(m->vals + i + 1, m->vals + i, (size_t)(m->n - i) * sizeof *m->vals);
  m->keys[i] = key;
  m->vals[i] = val;
  m->n++;
  return 1;
}

int da_get(dmap *m, int key, long *val) {
  int i = lower_bound(m, key);
  *val = 0;
  if (i == m->n || m->keys[i] != key) return 1;
  *val = m->vals[i];
  return 0;
}

int da_del(dmap *m, int key) {
  int i = lower_bound(m, key);
  if (i == m->n || m->keys[i] != key) return 1;
  memmove(m->keys + i, m->keys + i + 1, (size_t)(m->n - i - 1) * sizeof *m->keys);
  memmove(m->vals + i, m->vals + i + 1, (size_t)(m->n - i - 1) * sizeof *m->vals);
  m->n--;
  return 0;
}

int da_count(dmap *m) {
  return m->n;
}

int da_min(dmap *m) {
  return m->n ? m->keys[0] : -1;
}

double da_mean(dmap *m) {
  long sum = 0;
  for (int i = 0; i < m->n; i++)
    sum += m->vals[i];
  return m->n ? (double)sum / m->n : 0;
}

int da_capacity(dmap *m) {
  return m->cap;
}

/* ---- the accumulator ----------------------------------------------------- */

struct acc {
  long total;
  int count;
};

acc *acc_new(void) {
  return calloc(1, sizeof(acc));
}

void acc_free(acc *a) {
  free(a);
}

int acc_parse(const char *text, long *val) {
  const char *digits = text[0] == '-' ? text + 1 : text;
  size_t n = strspn(digits, "0123456789");
  if (n == 0 || n > 9 || digits[n] != 0) return -1;
  errno = 0;
  char *end;
  long v = strtol(text, &end, 10);
  if (errno || *end) return -1;
  *val = v;
  return 0;
}

int acc_feed(acc *a, const char *text) {
  long v;
  if (acc_parse(text, &v)) return -1;
  a->total += v;
  a->count++;
  return 0;
}

long acc_total(acc *a) {
  return a->total;
}

int acc_count(acc *a) {
  return a->count;
}

char *acc_format(acc *a) {
  char *s = malloc(24);
  if (s) snprintf(s, 24, "%ld", a->total);
  return s;
}

void acc_str_free(char *s) {
  free(s);
}
