/* hashtab: see hashtab.h. Buckets hold a key, a value and the key's hash;
 * a removed entry leaves a tombstone so that probe chains stay intact. */
#include "hashtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HT_MIN_CAP  8
#define HT_MAX_HINT 65536

/* Bucket states: EMPTY ends a probe chain, TOMB does not. */
enum { EMPTY, LIVE, TOMB };

typedef struct bucket {
  char *key, *value;
  uint64_t hash;
  int state;
} bucket;

struct ht_iter {
  ht_t *t;
  size_t pos;
  struct ht_iter *next; /* the table's list of its iterators */
};

struct ht {
  bucket *b;
  size_t cap;     /* buckets, a power of two */
  size_t min_cap; /* from the hint: never shrink below */
  size_t count;   /* LIVE buckets */
  size_t tombs;   /* TOMB buckets */
  ht_iter_t *iters;
};

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* strdup is POSIX, not C11. */
static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  return d ? memcpy(d, s, n) : NULL;
}

/* The smallest capacity that keeps n entries at most half full. */
static size_t cap_for(size_t n, size_t min_cap) {
  size_t c = min_cap;
  while (c < 2 * n)
    c *= 2;
  return c;
}

/* The bucket holding key, or, if absent, the bucket it should go to (the
 * first tombstone on its chain, else the EMPTY that ends the chain). The
 * load limit guarantees an EMPTY bucket, so the loop ends. */
static bucket *find_slot(const ht_t *t, const char *key, uint64_t h, int *found) {
  size_t mask = t->cap - 1, i = h & mask;
  bucket *tomb = NULL;
  for (;; i = (i + 1) & mask) {
    bucket *b = &t->b[i];
    if (b->state == EMPTY) {
      *found = 0;
      return tomb ? tomb : b;
    }
    if (b->state == TOMB) {
      if (!tomb) tomb = b;
    } else if (b->hash == h && strcmp(b->key, key) == 0) {
      *found = 1;
      return b;
    }
  }
}

/* Rehash every live entry into a new array of cap buckets; the tombstones
 * go. Entries keep their key and value strings. */
static int resize(ht_t *t, size_t cap) {
  bucket *nb = calloc(cap, sizeof *nb);
  if (!nb) return -1;
  for (size_t i = 0; i < t->cap; i++) {
    if (t->b[i].state != LIVE) continue;
    size_t j = t->b[i].hash & (cap - 1);
    while (nb[j].state != EMPTY)
      j = (j + 1) & (cap - 1);
    nb[j] = t->b[i];
  }
  free(t->b);
  t->b = nb;
  t->cap = cap;
  t->tombs = 0;
  return 0;
}

ht_t *ht_new(size_t hint) {
  if (hint > HT_MAX_HINT) return NULL;
  ht_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->min_cap = cap_for(hint, HT_MIN_CAP);
  t->cap = t->min_cap;
  t->b = calloc(t->cap, sizeof *t->b);
  if (!t->b) {
    free(t);
    return NULL;
  }
  return t;
}

static void free_entries(ht_t *t) {
  for (size_t i = 0; i < t->cap; i++) {
    if (t->b[i].state != LIVE) continue;
    free(t->b[i].key);
    free(t->b[i].value);
  }
}

void ht_free(ht_t *t) {
  if (!t) return;
  free_entries(t);
  free(t->b);
  while (t->iters) {
    ht_iter_t *it = t->iters;
    t->iters = it->next;
    free(it);
  }
  free(t);
}

int ht_put(ht_t *t, const char *key, const char *value) {
  uint64_t h = hash_str(key);
  int found;
  bucket *b = find_slot(t, key, h, &found);
  char *v = dup_str(value);
  if (!v) return -1;
  if (found) {
    free(b->value);
    b->value = v;
    return 1;
  }
  char *k = dup_str(key);
  if (!k) {
    free(v);
    return -1;
  }
  if ((t->count + t->tombs + 1) * 4 > t->cap * 3) {
    /* No free bucket to spare: rehash to the size the live entries need
     * (growing, or dropping the tombstones). */
    if (resize(t, cap_for(t->count + 1, t->min_cap)) < 0) goto oom;
    b = find_slot(t, key, h, &found);
  } else if (t->cap > t->min_cap && (t->count + 1) * 8 <= t->cap) {
    /* Deletions left the table mostly empty: give half the memory back. */
    if (resize(t, t->cap / 2) < 0) goto oom;
#ifdef SEARCH_NO_BUGS
    b = find_slot(t, key, h, &found); /* b pointed into the freed array */
#endif
  }
  if (b->state == TOMB) t->tombs--;
  b->key = k;
  b->value = v;
  b->hash = h;
  b->state = LIVE;
  t->count++;
  return 0;
oom:
  free(k);
  free(v);
  return -1;
}

long ht_get(const ht_t *t, const char *key, char *buf, size_t cap) {
  int found;
  bucket *b = find_slot(t, key, hash_str(key), &found);
  if (!found) return -1;
  size_t len = strlen(b->value);
  if (cap) memcpy(buf, b->value, len < cap ? len : cap);
  return (long)len;
}

int ht_del(ht_t *t, const char *key) {
  int found;
  bucket *b = find_slot(t, key, hash_str(key), &found);
  if (!found) return 1;
  free(b->key);
  free(b->value);
  b->key = b->value = NULL;
  b->state = TOMB;
  t->count--;
  t->tombs++;
  return 0;
}

size_t ht_count(const ht_t *t) {
  return t->count;
}

size_t ht_capacity(const ht_t *t) {
  return t->cap;
}

int ht_clear(ht_t *t) {
  bucket *nb = calloc(t->min_cap, sizeof *nb);
  if (!nb) return -1;
  free_entries(t);
  free(t->b);
  t->b = nb;
  t->cap = t->min_cap;
  t->count = t->tombs = 0;
  return 0;
}

ht_iter_t *ht_iter(ht_t *t) {
  ht_iter_t *it = calloc(1, sizeof *it);
  if (!it) return NULL;
  it->t = t;
  it->next = t->iters;
  t->iters = it;
  return it;
}

int ht_iter_next(ht_iter_t *it, const char **key, const char **value) {
  const ht_t *t = it->t;
  for (; it->pos < t->cap; it->pos++) {
    const bucket *b = &t->b[it->pos];
    if (b->state != LIVE) continue;
    if (key) *key = b->key;
    if (value) *value = b->value;
    it->pos++;
    return 1;
  }
  return 0;
}
