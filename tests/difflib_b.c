/* difflib's second implementations (difflib.h): an unsorted array with a
 * cached minimum (and a bug); a parser and a printer by hand. */
#include "difflib.h"

#include <stdlib.h>

struct dmap {
  int keys[8], vals[8];
  int n;
  int min; /* the smallest key, or -1 */
  long sum;
};

dmap *db_new(void) {
  dmap *m = calloc(1, sizeof(dmap));
  if (m) m->min = -1;
  return m;
}

void db_destroy(dmap *m) {
  free(m);
}

static int find(const dmap *m, int key) {
  for (int i = 0; i < m->n; i++)
    if (m->keys[i] == key) return i;
  return -1;
}

int db_put(dmap *m, int key, int val) {
  if (key < 0 || key > 15) return -1;
  int i = find(m, key);
  if (i >= 0) {
    m->sum += (long)val - m->vals[i];
    m->vals[i] = val;
    return 0;
  }
  if (m->n == 8) return -1;
  m->keys[m->n] = key;
  m->vals[m->n++] = val;
  m->sum += val;
  if (m->min < 0 || key < m->min) m->min = key;
  return 1;
}

int db_get(dmap *m, int key, long *val) {
  int i = find(m, key);
  *val = i < 0 ? 0 : m->vals[i];
  return i < 0;
}

static int scan_min(const dmap *m) {
  int min = -1;
  for (int i = 0; i < m->n; i++)
    if (min < 0 || m->keys[i] < min) min = m->keys[i];
  return min;
}

int db_del(dmap *m, int key) {
  int i = find(m, key);
  if (i < 0) return 1;
  m->sum -= m->vals[i];
  m->n--;
  m->keys[i] = m->keys[m->n]; /* the last one moves into the hole */
  m->vals[i] = m->vals[m->n];
  /* The bug: the key that moved into the hole is taken for the new minimum,
   * though the array is not sorted (right only when the hole was last). */
  if (key == m->min) m->min = i < m->n ? m->keys[i] : scan_min(m);
  return 0;
}

int db_count(dmap *m) {
  return m->n;
}

int db_min(dmap *m) {
  return m->min;
}

double db_mean(dmap *m) {
  return m->n ? (double)m->sum * (1.0 / m->n) : 0;
}

int db_capacity(dmap *m) {
  (void)m;
  return 8;
}

/* ---- the accumulator ----------------------------------------------------- */

struct acc {
  int count;
  long total;
};

acc *v2_acc_new(void) {
  return calloc(1, sizeof(acc));
}

void v2_acc_free(acc *a) {
  free(a);
}

int v2_acc_parse(const char *text, long *val) {
  int neg = *text == '-', ndigits = 0;
  long v = 0;
  for (const char *p = text + neg; *p; p++) {
    if (*p < '0' || *p > '9' || ++ndigits > 9) return -1;
    v = v * 10 + (*p - '0');
  }
  if (!ndigits) return -1;
  *val = neg ? -v : v;
  return 0;
}

int v2_acc_feed(acc *a, const char *text) {
  long v;
  if (v2_acc_parse(text, &v) != 0) return -1;
  a->count++;
  a->total += v;
  return 0;
}

long v2_acc_total(acc *a) {
  return a->total;
}

int v2_acc_count(acc *a) {
  return a->count;
}

char *v2_acc_format(acc *a) {
  char digits[24], *s = malloc(24);
  if (!s) return NULL;
  unsigned long u = a->total < 0 ? 0ul - (unsigned long)a->total : (unsigned long)a->total;
  int n = 0;
  do {
    digits[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  int k = 0;
  if (a->total < 0) s[k++] = '-';
  while (n)
    s[k++] = digits[--n];
  s[k] = 0;
  return s;
}

void v2_acc_str_free(char *s) {
  free(s);
}
