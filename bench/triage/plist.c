#include "plist.h"

#include <stdlib.h>
#include <string.h>

enum { PN_INT, PN_STR };

struct pnode {
  pnode *next;
  const plist *list; /* the list holding it, if any */
  int kind;
  long ival;
  char *str;
};

struct plist {
  pnode *head;
  int len;
};

/* Each constructor allocates its node itself: a leaked node's allocation
 * stack names the constructor that made it. */
pnode *pn_int(long v) {
  pnode *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = PN_INT;
  n->ival = v;
  return n;
}

pnode *pn_str(const char *s) {
  pnode *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = PN_STR;
  if (!(n->str = strdup(s))) {
    free(n);
    return NULL;
  }
  return n;
}

pnode *pn_dup(const pnode *n) {
  pnode *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->kind = n->kind;
  d->ival = n->ival;
  if (n->str && !(d->str = strdup(n->str))) {
    free(d);
    return NULL;
  }
  return d;
}

int pn_parse(const char *text, pnode **out) {
  if (strncmp(text, "i:", 2) != 0 && strncmp(text, "s:", 2) != 0) return -1;
  pnode *n = calloc(1, sizeof *n);
  if (!n) return -1;
  if (text[0] == 'i') {
    char *end;
    n->kind = PN_INT;
    n->ival = strtol(text + 2, &end, 10);
    if (end == text + 2 || *end) {
      free(n);
      return -1;
    }
  } else {
    n->kind = PN_STR;
    if (!(n->str = strdup(text + 2))) {
      free(n);
      return -1;
    }
  }
  *out = n;
  return 0;
}

void pn_free(pnode *n) {
  free(n->str);
  free(n);
}

int pn_equal(const pnode *a, const pnode *b) {
  if (a->kind != b->kind) return 0;
  return a->kind == PN_STR ? strcmp(a->str, b->str) == 0 : a->ival == b->ival;
}

plist *pl_new(void) {
  return calloc(1, sizeof(plist));
}

void pl_free(plist *l) {
  for (pnode *n = l->head, *next; n; n = next) {
    next = n->next;
    pn_free(n);
  }
  free(l);
}

int pl_push(plist *l, pnode *n) {
  if (l->len == 32 || n->list) return -1;
  pnode **p = &l->head;
  while (*p)
    p = &(*p)->next;
  n->next = NULL;
  n->list = l;
  *p = n;
  l->len++;
  return 0;
}

int pl_pop(plist *l) {
  if (!l->head) return 1;
  pnode **p = &l->head;
  while ((*p)->next)
    p = &(*p)->next;
  pn_free(*p);
  *p = NULL;
  l->len--;
  return 0;
}

int pl_uniq(plist *l) {
  int removed = 0;
  for (pnode *n = l->head; n && n->next;) {
    if (pn_equal(n, n->next)) {
      n->next = n->next->next; /* BUG (planted): the node removed is not freed */
      removed++;
    } else {
      n = n->next;
    }
  }
  l->len -= removed;
  return removed;
}

static int cmp(const pnode *a, const pnode *b) {
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->kind == PN_STR) return strcmp(a->str, b->str);
  return (a->ival > b->ival) - (a->ival < b->ival);
}

void pl_sort(plist *l) {
  /* Insertion sort of the links. */
  pnode *sorted = NULL;
  for (pnode *n = l->head, *next; n; n = next) {
    next = n->next;
    pnode **p = &sorted;
    while (*p && cmp(*p, n) <= 0)
      p = &(*p)->next;
    n->next = *p;
    *p = n;
  }
  l->head = sorted;
}

int pl_len(const plist *l) {
  return l->len;
}
