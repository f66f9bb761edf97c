#include "rulelib.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define RL_MAX_ITEMS 16
#define RL_MAX_NODES 8

struct rl_node {
  int refs;
  int v;
};

struct rl_list {
  int *items; /* a block of exactly len items: an index past them is outside it */
  int len;
  int frozen;
  rl_node *nodes[RL_MAX_NODES]; /* one reference each */
  int nnodes;
  char name[24];
};

struct rl_cursor {
  rl_list *l; /* borrowed (rl_cursor_attach): the list must outlive the cursor */
  int pos;
};

struct rl_batch {
  int *items; /* the list's block at rl_batch_begin, written by rl_batch_end */
  int n;
  int add;
};

struct rl_iter {
  rl_list *l; /* borrowed: the list must outlive the iterator */
  int pos;
};

/* Gives l a block of exactly n items, the first ones kept (l->len is the caller's). */
static int resize(rl_list *l, int n) {
  int *p = malloc(sizeof *p * (size_t)n);
  if (!p && n) return -1;
  for (int i = 0; i < n && i < l->len; i++)
    p[i] = l->items[i];
  free(l->items);
  l->items = p;
  return 0;
}

rl_list *rl_list_new(void) {
  rl_list *l = calloc(1, sizeof *l);
  if (l && resize(l, 0) < 0) {
    free(l);
    return NULL;
  }
  return l;
}

void rl_list_free(rl_list *l) {
  if (!l) return;
  for (int i = 0; i < l->nnodes; i++)
    rl_node_unref(l->nodes[i]);
  free(l->items);
  free(l);
}

int rl_list_len(rl_list *l) {
  return l ? l->len : 0;
}

int rl_list_push(rl_list *l, int v) {
  if (!l || l->frozen || l->len >= RL_MAX_ITEMS || resize(l, l->len + 1) < 0) return -1;
  l->items[l->len++] = v;
  return 0;
}

int rl_list_pop(rl_list *l) {
  if (!l || l->len == 0) return -1;
  int v = l->items[l->len - 1];
  if (resize(l, l->len - 1) < 0) return -1;
  l->len--;
  return v;
}

/* Trap of `requires i < rl_list_len(l)`: i is not checked. */
int rl_list_get(rl_list *l, int i) {
  if (!l) return -1;
  return l->items[i];
}

/* Trap of `requires lo <= hi`: the loop stops at hi, so it starts no later. */
int rl_list_sum_range(rl_list *l, int lo, int hi) {
  if (!l) return 0;
  unsigned sum = 0;
  for (int i = lo; i != hi; i++)
    sum += (unsigned)l->items[i];
  return (int)(sum + (unsigned)l->items[hi]);
}

/* Trap of `requires dst != src`: dst's block is freed before src's is read. */
void rl_list_move_all(rl_list *dst, rl_list *src) {
  if (!dst || !src) return;
  int n = dst->len + src->len;
  int *p = malloc(sizeof *p * (size_t)n);
  if (!p && n) return;
  for (int i = 0; i < dst->len; i++)
    p[i] = dst->items[i];
  free(dst->items);
  for (int i = 0; i < src->len; i++)
    p[dst->len + i] = src->items[i];
  dst->items = p;
  dst->len = n;
  if (resize(src, 0) == 0) src->len = 0;
}

int rl_list_flag(rl_list *l, int on) {
  if (!l) return -1;
  int old = l->frozen;
  l->frozen = on != 0;
  return old;
}

/* Trap of `printf`: each %s reads its argument. A format passed without
 * arguments makes it read whatever pointer the caller left (misuse). */
int rl_list_printf(rl_list *l, const char *fmt, ...) {
  if (!l || !fmt) return -1;
  va_list ap;
  int n = 0;
  va_start(ap, fmt);
  for (const char *p = fmt; *p; p++) {
    if (*p != '%' || !p[1]) continue;
    p++;
    while (*p && strchr("-+ #0123456789.hlzjt", *p))
      p++;
    if (*p == 's') {
      const char *s = va_arg(ap, const char *);
      int len = 0;
      while (s[len]) /* no check: the caller passes a string */
        len++;
      n += rl_list_push(l, len) == 0;
    } else if (*p && strchr("diouxXc", *p)) {
      n += rl_list_push(l, va_arg(ap, int)) == 0;
    } else if (*p && strchr("feEgGaA", *p)) {
      (void)va_arg(ap, double);
    } else if (!*p) {
      break;
    }
  }
  va_end(ap);
  return n;
}

/* The bug of -DRULELIB_BUG_NULL: a NULL key is dereferenced (when l has items). */
int rl_list_find(rl_list *l, const char *key) {
  if (!l || l->len == 0) return -1;
#ifndef RULELIB_BUG_NULL
  if (!key) return -1;
#endif
  int neg = *key == '-';
  unsigned v = 0;
  for (const char *p = key + neg; *p >= '0' && *p <= '9'; p++)
    v = v * 10 + (unsigned)(*p - '0');
  int want = (int)(neg ? 0u - v : v);
  for (int i = 0; i < l->len; i++)
    if (l->items[i] == want) return i;
  return -1;
}

int rl_list_name(rl_list *l, const char **name) {
  if (!l || !name) return -1;
  snprintf(l->name, sizeof l->name, "list of %d", l->len);
  *name = l->name;
  return 0;
}

/* The bug of -DRULELIB_BUG_DUMP: a cut dump writes one byte more than cap. */
int rl_list_dump(rl_list *l, uint8_t *buf, size_t cap) {
  if (!l || !buf) return -1;
  size_t n = (size_t)l->len * 4;
#ifdef RULELIB_BUG_DUMP
  if (n > cap) n = cap + 1;
#else
  if (n > cap) n = cap;
#endif
  for (size_t k = 0; k < n; k++)
    buf[k] = (uint8_t)((unsigned)l->items[k / 4] >> (8 * (k % 4)));
  return (int)n;
}

int rl_list_load(rl_list *l, FILE *f) {
  if (!l || !f || l->frozen) return -1;
  int n = 0, v;
  while (l->len < RL_MAX_ITEMS && fscanf(f, "%d", &v) == 1 && rl_list_push(l, v) == 0)
    n++;
  return n;
}

void rl_list_sort(rl_list *l) {
  if (!l) return;
  for (int i = 1; i < l->len; i++) {
    int v = l->items[i], j = i;
    for (; j > 0 && l->items[j - 1] > v; j--)
      l->items[j] = l->items[j - 1];
    l->items[j] = v;
  }
}

/* Trap of `requires rl_sorted(l)`: an interpolation search. On a sorted
 * list key - first and last - first are distances (unsigned): above < span
 * says key is below the last item, which then stops the walk right. When the
 * last item is below the first, span wraps around, the guess is 0, and the
 * walk right runs past the block if every item is below key. */
int rl_list_bsearch(rl_list *l, int key) {
  if (!l || l->len == 0) return -1;
  const int *a = l->items;
  int n = l->len, first = a[0], last = a[n - 1];
  if (key < first) return -1; /* below the smallest item */
  unsigned long long above = (unsigned long long)((long long)key - first);
  unsigned long long span = (unsigned long long)((long long)last - first);
  if (above >= span) return key == last ? n - 1 : -1; /* not below the largest item */
  /* Where key would be were the items evenly spread, then walk to it: right
   * up to the last item (above key), left down to the first (not above). */
  int i = (int)(above * (unsigned)(n - 1) / span);
  while (a[i] < key)
    i++;
  while (a[i] > key)
    i--;
  return a[i] == key ? i : -1;
}

rl_cursor *rl_cursor_new(void) {
  return calloc(1, sizeof(rl_cursor));
}

int rl_cursor_attach(rl_cursor *c, rl_list *l) {
  if (!c) return -1;
  c->l = l;
  c->pos = 0;
  return l ? 0 : -1;
}

/* Trap of `c depends_on l`: the list is read, alive or not. */
int rl_cursor_next(rl_cursor *c) {
  if (!c || !c->l || c->pos >= c->l->len) return -1;
  return c->l->items[c->pos++];
}

/* Trap of `c depends_on l` too: what is left is read from the list. */
int rl_cursor_free(rl_cursor *c) {
  if (!c) return -1;
  int left = c->l && c->pos < c->l->len ? c->l->len - c->pos : 0;
  free(c);
  return left;
}

static int add_saturating(int a, int b) {
  long long s = (long long)a + b;
  return s > INT_MAX ? INT_MAX : s < INT_MIN ? INT_MIN : (int)s;
}

rl_batch *rl_batch_begin(rl_list *l) {
  if (!l) return NULL;
  rl_batch *b = calloc(1, sizeof *b);
  if (b) {
    b->items = l->items;
    b->n = l->len;
  }
  return b;
}

int rl_batch_add(rl_batch *b, int d) {
  if (!b) return -1;
  b->add = add_saturating(b->add, d);
  return 0;
}

/* Trap of `locks l`: the block is the one the list had at rl_batch_begin,
 * which any change of the list since (push, pop, load, free) has freed. */
int rl_batch_end(rl_batch *b) {
  if (!b) return -1;
  int changed = 0;
  for (int i = 0; i < b->n; i++) {
    int v = add_saturating(b->items[i], b->add);
    changed += v != b->items[i];
    b->items[i] = v;
  }
  free(b);
  return changed;
}

rl_iter *rl_iter_new(rl_list *l) {
  if (!l) return NULL;
  rl_iter *it = calloc(1, sizeof *it);
  if (it) it->l = l;
  return it;
}

/* Trap of `depends_on l`: the list is read, alive or not. */
int rl_iter_next(rl_iter *it) {
  if (!it || it->pos >= it->l->len) return -1;
  return it->l->items[it->pos++];
}

void rl_iter_free(rl_iter *it) {
  free(it);
}

rl_node *rl_node_new(int v) {
  rl_node *n = malloc(sizeof *n);
  if (n) {
    n->refs = 1;
    n->v = v;
  }
  return n;
}

/* Trap of `refcounted`: two handles, one object. */
rl_node *rl_node_ref(rl_node *n) {
  if (n) n->refs++;
  return n;
}

void rl_node_unref(rl_node *n) {
  if (n && --n->refs == 0) free(n);
}

int rl_node_value(rl_node *n) {
  return n ? n->v : -1;
}

/* Trap of `steal`: a failure releases the reference too. */
int rl_list_append_new(rl_list *l, rl_node *n) {
  if (!n) return -1;
  if (!l || l->nnodes >= RL_MAX_NODES || rl_list_push(l, n->v) < 0) {
    rl_node_unref(n);
    return -1;
  }
  l->nodes[l->nnodes++] = n;
  return 0;
}
