/* refcnt: reference-counted document values (see refcnt.h). */
#include "refcnt.h"

#include <stdlib.h>
#include <string.h>

/* A map keeps up to RC_SMALL entries in a flat array searched linearly
 * (most documents are small), and moves them to a chained hash table when it
 * grows past that; it stays a table from then on. */
#define RC_SMALL 4

typedef struct rc_entry {
  char *key;
  uint64_t hash; /* of key: compared before the key itself */
  rc_val *val;   /* one reference, held by the map */
  struct rc_entry *next;
} rc_entry;

struct rc_val {
  int refcnt;
  rc_kind kind;
  union {
    int64_t i;
    struct {
      char *s;
      size_t len;
    } str;
    struct {
      size_t n;
      rc_entry *flat;    /* RC_SMALL slots while bucket is NULL */
      rc_entry **bucket; /* the table: nbucket chains (a power of two) */
      size_t nbucket;
    } map;
  } u;
};

static uint64_t fnv(const void *p, size_t n, uint64_t h) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

#define FNV_SEED 0xcbf29ce484222325ull

static rc_val *alloc_val(rc_kind kind) {
  rc_val *v = calloc(1, sizeof *v);
  if (v) {
    v->refcnt = 1;
    v->kind = kind;
  }
  return v;
}

rc_val *rc_new_int(int64_t i) {
  rc_val *v = alloc_val(RC_INT);
  if (v) v->u.i = i;
  return v;
}

rc_val *rc_new_str(const char *s) {
  if (!s) return NULL;
  rc_val *v = alloc_val(RC_STR);
  if (!v) return NULL;
  v->u.str.len = strlen(s);
  v->u.str.s = malloc(v->u.str.len + 1);
  if (!v->u.str.s) {
    free(v);
    return NULL;
  }
  memcpy(v->u.str.s, s, v->u.str.len + 1);
  return v;
}

rc_val *rc_new_map(void) {
  return alloc_val(RC_MAP);
}

rc_val *rc_incref(rc_val *v) {
  if (v) v->refcnt++;
  return v;
}

/* Visits every entry of a map: *pos starts at 0 (a slot, then a bucket),
 * *e at NULL; returns the next entry or NULL at the end. */
static rc_entry *next_entry(const rc_val *map, size_t *pos, rc_entry *e) {
  if (!map->u.map.bucket) {
    if (*pos >= map->u.map.n) return NULL;
    return &map->u.map.flat[(*pos)++];
  }
  if (e && e->next) return e->next;
  while (*pos < map->u.map.nbucket) {
    rc_entry *h = map->u.map.bucket[(*pos)++];
    if (h) return h;
  }
  return NULL;
}

void rc_decref(rc_val *v) {
  if (!v || --v->refcnt > 0) return;
  if (v->kind == RC_STR) {
    free(v->u.str.s);
  } else if (v->kind == RC_MAP) {
    size_t pos = 0;
    rc_entry *e = NULL, *next;
    for (e = next_entry(v, &pos, NULL); e; e = next) {
      next = next_entry(v, &pos, e); /* before e goes */
      free(e->key);
      rc_decref(e->val);
      if (v->u.map.bucket) free(e);
    }
    free(v->u.map.flat);
    free(v->u.map.bucket);
  }
  free(v);
}

static uint64_t key_hash(const char *key) {
  return fnv(key, strlen(key), FNV_SEED);
}

/* The link that points to key's entry in the table (or to the NULL at the
 * end of its chain). */
static rc_entry **table_link(rc_val *map, const char *key, uint64_t h) {
  rc_entry **l = &map->u.map.bucket[h & (map->u.map.nbucket - 1)];
  while (*l && ((*l)->hash != h || strcmp((*l)->key, key) != 0))
    l = &(*l)->next;
  return l;
}

static rc_entry *find(rc_val *map, const char *key) {
  uint64_t h = key_hash(key);
  if (map->u.map.bucket) return *table_link(map, key, h);
  for (size_t i = 0; i < map->u.map.n; i++) {
    rc_entry *e = &map->u.map.flat[i];
    if (e->hash == h && strcmp(e->key, key) == 0) return e;
  }
  return NULL;
}

/* The checks every modifying call makes, in this order. */
static int check_mutable(rc_val *map, const char *key) {
  if (!map || !key) return RC_EINVAL;
  if (map->kind != RC_MAP) return RC_EKIND;
  if (map->refcnt > 1) return RC_ESHARED;
  return RC_OK;
}

static char *dup_key(const char *key) {
  size_t n = strlen(key) + 1;
  char *k = malloc(n);
  if (k) memcpy(k, key, n);
  return k;
}

/* Doubles the table (or makes the first one from the flat slots). */
static int grow_table(rc_val *map) {
  size_t nb = map->u.map.bucket ? 2 * map->u.map.nbucket : 2 * RC_SMALL;
  rc_entry **b = calloc(nb, sizeof *b);
  if (!b) return RC_ENOMEM;
  if (!map->u.map.bucket) {
    rc_entry *nodes[RC_SMALL];
    for (size_t i = 0; i < map->u.map.n; i++)
      if (!(nodes[i] = malloc(sizeof **nodes))) {
        while (i--)
          free(nodes[i]);
        free(b);
        return RC_ENOMEM;
      }
    for (size_t i = 0; i < map->u.map.n; i++) {
      rc_entry *e = nodes[i];
      *e = map->u.map.flat[i];
      e->next = b[e->hash & (nb - 1)];
      b[e->hash & (nb - 1)] = e;
    }
    free(map->u.map.flat);
    map->u.map.flat = NULL;
  } else {
    for (size_t i = 0; i < map->u.map.nbucket; i++)
      for (rc_entry *e = map->u.map.bucket[i], *next; e; e = next) {
        next = e->next;
        e->next = b[e->hash & (nb - 1)];
        b[e->hash & (nb - 1)] = e;
      }
    free(map->u.map.bucket);
  }
  map->u.map.bucket = b;
  map->u.map.nbucket = nb;
  return RC_OK;
}

/* Stores val under key in a table. With `borrow` the map takes a reference
 * of its own, else it takes the caller's. */
static int table_put(rc_val *map, const char *key, rc_val *val, int borrow) {
  uint64_t h = key_hash(key);
  rc_entry **l = table_link(map, key, h);
  if (*l) {
#ifdef SEARCH_NO_BUGS
    /* val may be the very value replaced (borrowed from this entry): the
     * new reference is taken before the old one goes. */
    if (borrow) rc_incref(val);
    rc_decref((*l)->val);
    (*l)->val = val;
#else
    rc_decref((*l)->val);
    (*l)->val = borrow ? rc_incref(val) : val;
#endif
    return RC_OK;
  }
  if (map->u.map.n >= 2 * map->u.map.nbucket) {
    if (grow_table(map)) return RC_ENOMEM;
    l = table_link(map, key, h);
  }
  rc_entry *e = malloc(sizeof *e);
  char *k = dup_key(key);
  if (!e || !k) {
    free(e);
    free(k);
    return RC_ENOMEM;
  }
  *e = (rc_entry){k, h, borrow ? rc_incref(val) : val, NULL};
  *l = e;
  map->u.map.n++;
  return RC_OK;
}

/* Stores val under key (see table_put), in the flat slots while they last. */
static int put(rc_val *map, const char *key, rc_val *val, int borrow) {
  if (map->u.map.bucket) return table_put(map, key, val, borrow);
  rc_entry *e = find(map, key);
  if (e) {
    if (borrow) rc_incref(val); /* first: val may be e->val */
    rc_decref(e->val);
    e->val = val;
    return RC_OK;
  }
  if (map->u.map.n == RC_SMALL) {
    if (grow_table(map)) return RC_ENOMEM;
    return table_put(map, key, val, borrow);
  }
  if (!map->u.map.flat && !(map->u.map.flat = malloc(RC_SMALL * sizeof *map->u.map.flat)))
    return RC_ENOMEM;
  char *k = dup_key(key);
  if (!k) return RC_ENOMEM;
  map->u.map.flat[map->u.map.n++] =
      (rc_entry){k, key_hash(key), borrow ? rc_incref(val) : val, NULL};
  return RC_OK;
}

int rc_map_set(rc_val *map, const char *key, rc_val *val) {
  int rc = check_mutable(map, key);
  if (rc) return rc;
  if (!val || val == map) return RC_EINVAL;
  return put(map, key, val, 1);
}

int rc_map_set_new(rc_val *map, const char *key, rc_val *val) {
  int rc = check_mutable(map, key);
  if (rc == RC_OK && (!val || val == map)) rc = RC_EINVAL;
  if (rc == RC_OK) rc = put(map, key, val, 0);
  if (rc) rc_decref(val); /* stolen even on failure */
  return rc;
}

rc_val *rc_map_get(rc_val *map, const char *key) {
  if (!map || !key || map->kind != RC_MAP) return NULL;
  rc_entry *e = find(map, key);
  return e ? e->val : NULL;
}

/* Removes key's entry and gives its reference to the caller; NULL when
 * absent. */
static rc_val *remove_key(rc_val *map, const char *key) {
  rc_val *v = NULL;
  if (map->u.map.bucket) {
    rc_entry **l = table_link(map, key, key_hash(key)), *e = *l;
    if (!e) return NULL;
    *l = e->next;
    v = e->val;
    free(e->key);
    free(e);
  } else {
    rc_entry *e = find(map, key);
    if (!e) return NULL;
    v = e->val;
    free(e->key);
    /* Keep the insertion order of the slots. */
    size_t i = (size_t)(e - map->u.map.flat);
    memmove(e, e + 1, (map->u.map.n - i - 1) * sizeof *e);
  }
  map->u.map.n--;
  return v;
}

rc_val *rc_map_take(rc_val *map, const char *key) {
  if (check_mutable(map, key)) return NULL;
  return remove_key(map, key);
}

int rc_map_del(rc_val *map, const char *key) {
  int rc = check_mutable(map, key);
  if (rc) return rc;
  rc_val *v = remove_key(map, key);
  if (!v) return RC_NOTFOUND;
  rc_decref(v);
  return RC_OK;
}

rc_val *rc_copy(rc_val *v) {
  if (!v) return NULL;
  if (v->kind == RC_INT) return rc_new_int(v->u.i);
  if (v->kind == RC_STR) return rc_new_str(v->u.str.s);
  rc_val *c = rc_new_map();
  if (!c) return NULL;
  size_t pos = 0;
  for (rc_entry *e = next_entry(v, &pos, NULL); e; e = next_entry(v, &pos, e))
    if (put(c, e->key, e->val, 1)) {
      rc_decref(c);
      return NULL;
    }
  return c;
}

size_t rc_len(const rc_val *v) {
  if (!v) return 0;
  if (v->kind == RC_STR) return v->u.str.len;
  if (v->kind == RC_MAP) return v->u.map.n;
  return 0;
}

uint64_t rc_hash(const rc_val *v) {
  if (!v) return 0;
  uint64_t h = fnv(&v->kind, sizeof v->kind, FNV_SEED);
  if (v->kind == RC_INT) return fnv(&v->u.i, sizeof v->u.i, h);
  if (v->kind == RC_STR) return fnv(v->u.str.s, v->u.str.len, h);
  /* A sum of the entries' hashes: the same whatever the order. */
  uint64_t sum = 0;
  size_t pos = 0;
  for (rc_entry *e = next_entry(v, &pos, NULL); e; e = next_entry(v, &pos, e)) {
    uint64_t vh = rc_hash(e->val);
    sum += fnv(&vh, sizeof vh, e->hash);
  }
  return fnv(&sum, sizeof sum, h);
}

int rc_refcount(const rc_val *v) {
  return v ? v->refcnt : 0;
}
