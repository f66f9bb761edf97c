#include "verlib.h"

#include <stdlib.h>
#include <string.h>

struct vl_set {
  char **items;
  int n, cap;
  int latest; /* cached vl_latest, -1: not known */
};

vl_set *vl_new(void) {
  vl_set *s = calloc(1, sizeof *s);
  if (s) s->latest = -1;
  return s;
}

void vl_free(vl_set *s) {
  if (!s) return;
  for (int i = 0; i < s->n; i++)
    free(s->items[i]);
  free(s->items);
  free(s);
}

/* The next component of *p (its characters as digits, '.' ends it). */
static int component(const char **p) {
#ifdef VERLIB_FIX_SHALLOW
  unsigned v = 0;
  for (; **p && **p != '.'; (*p)++)
    if (v < 100000000u) v = v * 10 + (unsigned)(**p - '0') % 10;
  return (int)v;
#else
  int v = 0;
  for (; **p && **p != '.'; (*p)++)
    v = v * 10 + (**p - '0') % 10; /* BUG: overflows past nine characters */
  return v;
#endif
}

int vl_compare(const char *a, const char *b) {
  while (*a || *b) {
    int x = component(&a), y = component(&b);
    if (x != y) return x < y ? -1 : 1;
    if (*a == '.') a++;
    if (*b == '.') b++;
  }
  return 0;
}

int vl_add(vl_set *s, const char *version) {
  if (!s || !version || !*version) return -1;
  (void)vl_compare(version, "0"); /* parsed once: a malformed version fails here */
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 4;
    char **items = realloc(s->items, (size_t)cap * sizeof *items);
    if (!items) return -1;
    s->items = items;
    s->cap = cap;
  }
  s->items[s->n] = strdup(version);
  if (!s->items[s->n]) return -1;
  s->latest = -1;
  return s->n++;
}

int vl_latest(vl_set *s) {
  if (!s || !s->n) return -1;
  if (s->latest >= 0) return s->latest;
  int best = 0;
  for (int i = 1; i < s->n; i++)
    if (vl_compare(s->items[i], s->items[best]) > 0) best = i;
  return s->latest = best;
}

const char *vl_latest_name(vl_set *s) {
  if (!s || !s->n) return NULL;
  int i = s->latest >= 0 ? s->latest : vl_latest(s);
  return s->items[i];
}

int vl_prune(vl_set *s, const char *below) {
  if (!s || !below) return 0;
  int kept = 0;
  for (int i = 0; i < s->n; i++) {
    if (vl_compare(s->items[i], below) < 0)
      free(s->items[i]);
    else
      s->items[kept++] = s->items[i];
  }
  int removed = s->n - kept;
  s->n = kept;
  if (removed) {
    /* Give the memory back: the set shrinks to what it holds. */
    int cap = kept ? kept : 1;
    char **items = realloc(s->items, (size_t)cap * sizeof *items);
    if (items) {
      s->items = items;
      s->cap = cap;
    }
#ifdef VERLIB_FIX_DEEP
    s->latest = -1;
#endif /* else BUG: the cached latest index may now be past the end */
  }
  return removed;
}

int vl_count(const vl_set *s) {
  return s ? s->n : 0;
}
