/* cursor: see cursor.h. Records live in a doubly linked list of pages, each
 * sorted and holding 1..PAGE_CAP records (an empty page is freed). A cursor
 * on a record is (page, slot) and sits in that page's list of cursors, so
 * that a change to a page fixes up only the cursors on it; a cursor at the
 * end has no page. */
#include "cursor.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_CAP 8

typedef struct rec {
  int key;
  char *val;
  size_t len;
} rec;

typedef struct page page;

struct ocur {
  olist_t *l;
  page *p; /* NULL: at the end */
  int slot;
  ocur_t *prev, *next; /* p's cursors */
};

struct page {
  page *prev, *next;
  int n;
  rec r[PAGE_CAP];
  ocur_t *curs; /* the cursors on this page's records */
};

struct olist {
  page *head, *tail;
  size_t count;
};

/* Put c on (p, slot), or at the end if p is NULL: off its old page's list,
 * onto the new one's. */
static void place(ocur_t *c, page *p, int slot) {
  if (c->p != p) {
    if (c->p) {
      if (c->prev)
        c->prev->next = c->next;
      else
        c->p->curs = c->next;
      if (c->next) c->next->prev = c->prev;
    }
    if (p) {
      c->prev = NULL;
      c->next = p->curs;
      if (p->curs) p->curs->prev = c;
      p->curs = c;
    }
  }
  c->p = p;
  c->slot = p ? slot : 0;
}

/* Where key is or would go: the first record whose key is >= key, as
 * (*pp, *ip). If every key is smaller, that is one past the tail's last
 * record; *pp is NULL when the list is empty. */
static void locate(const olist_t *l, int key, page **pp, int *ip) {
  page *p = l->head;
  while (p && p->next && p->r[p->n - 1].key < key)
    p = p->next;
  int i = 0;
  while (p && i < p->n && p->r[i].key < key)
    i++;
  *pp = p;
  *ip = i;
}

olist_t *ol_new(void) {
  return calloc(1, sizeof(olist_t));
}

void ol_free(olist_t *l) {
  if (!l) return;
  for (page *p = l->head, *nx; p; p = nx) {
    nx = p->next;
    for (int i = 0; i < p->n; i++)
      free(p->r[i].val);
    free(p);
  }
  free(l);
}

/* Move the upper half of the full page p to a new page after it, with the
 * cursors on those records. */
static page *split(olist_t *l, page *p) {
  page *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  int half = PAGE_CAP / 2;
  memcpy(q->r, p->r + half, (size_t)(p->n - half) * sizeof(rec));
  q->n = p->n - half;
  p->n = half;
  q->prev = p;
  q->next = p->next;
  if (p->next)
    p->next->prev = q;
  else
    l->tail = q;
  p->next = q;
  for (ocur_t *c = p->curs, *nx; c; c = nx) {
    nx = c->next; /* place moves c to q's list */
    if (c->slot >= half) place(c, q, c->slot - half);
  }
  return q;
}

int ol_put(olist_t *l, int key, const char *value) {
  page *p;
  int i;
  locate(l, key, &p, &i);
  size_t len = strlen(value);
  char *v = malloc(len + 1);
  if (!v) return -1;
  memcpy(v, value, len + 1);
  if (p && i < p->n && p->r[i].key == key) {
    free(p->r[i].val);
    p->r[i].val = v;
    p->r[i].len = len;
    return 1;
  }
  if (!p) {
    p = calloc(1, sizeof *p);
    if (!p) {
      free(v);
      return -1;
    }
    l->head = l->tail = p;
  } else if (p->n == PAGE_CAP) {
    page *q = split(l, p);
    if (!q) {
      free(v);
      return -1;
    }
    if (i > p->n) {
      p = q;
      i -= PAGE_CAP / 2;
    }
  }
  memmove(p->r + i + 1, p->r + i, (size_t)(p->n - i) * sizeof(rec));
  p->r[i] = (rec){key, v, len};
  p->n++;
  l->count++;
  for (ocur_t *c = p->curs; c; c = c->next)
    if (c->slot >= i) c->slot++;
  return 0;
}

/* Remove the record at (p, i) and move the cursors on it to the next one. */
static void remove_at(olist_t *l, page *p, int i) {
  free(p->r[i].val);
  memmove(p->r + i, p->r + i + 1, (size_t)(p->n - i - 1) * sizeof(rec));
  p->n--;
  l->count--;
#ifdef SEARCH_NO_BUGS
  for (ocur_t *c = p->curs, *nx; c; c = nx) {
    nx = c->next; /* place may move c to another page's list */
#else
  for (ocur_t *c = p->curs; c; c = c->next) {
#endif
    if (c->p != p || c->slot < i) continue;
    if (c->slot > i)
      c->slot--;
    else if (i == p->n)
      place(c, p->next, 0); /* it was the page's last record */
  }
  if (p->n == 0) {
    if (p->prev)
      p->prev->next = p->next;
    else
      l->head = p->next;
    if (p->next)
      p->next->prev = p->prev;
    else
      l->tail = p->prev;
    free(p);
  }
}

int ol_del(olist_t *l, int key) {
  page *p;
  int i;
  locate(l, key, &p, &i);
  if (!p || i == p->n || p->r[i].key != key) return 1;
  remove_at(l, p, i);
  return 0;
}

size_t ol_count(const olist_t *l) {
  return l->count;
}

ocur_t *ol_cursor(olist_t *l) {
  ocur_t *c = calloc(1, sizeof *c);
  if (c) c->l = l;
  return c;
}

void ol_cursor_free(ocur_t *c) {
  if (!c) return;
  place(c, NULL, 0);
  free(c);
}

int ol_first(ocur_t *c) {
  place(c, c->l->head, 0);
  return c->p != NULL;
}

int ol_seek(ocur_t *c, int key) {
  page *p;
  int i;
  locate(c->l, key, &p, &i);
  if (p && i == p->n) p = NULL; /* past the tail's last record */
  place(c, p, i);
  return c->p != NULL;
}

int ol_next(ocur_t *c) {
  if (!c->p) return 0;
  if (c->slot + 1 < c->p->n)
    c->slot++;
  else
    place(c, c->p->next, 0);
  return c->p != NULL;
}

long ol_get(const ocur_t *c, int *key, char *buf, size_t cap) {
  if (!c->p) return -1;
  const rec *r = &c->p->r[c->slot];
  if (key) *key = r->key;
  if (cap) memcpy(buf, r->val, r->len < cap ? r->len : cap);
  return (long)r->len;
}

int ol_cursor_del(ocur_t *c) {
  if (!c->p) return -1;
  remove_at(c->l, c->p, c->slot);
  return 0;
}
