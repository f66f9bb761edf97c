/* hashtab: a string-to-string hash table (open addressing, linear probing,
 * tombstones) that grows as entries are added and gives memory back after
 * deletions, with an iterator that survives deletions.
 *
 * Resizing policy: ht_put may rehash (to grow, to drop tombstones, or to
 * shrink a table that deletions left mostly empty); ht_del never moves an
 * entry, so iterating while deleting is safe. */
#ifndef HASHTAB_H
#define HASHTAB_H

#include <stddef.h>

typedef struct ht ht_t;
typedef struct ht_iter ht_iter_t;

/* A new, empty table presized for `hint` entries (0..65536); the table never
 * shrinks below that size. NULL if out of memory or hint is too large. */
ht_t *ht_new(size_t hint);

/* Free the table, its entries and its iterators. NULL is ignored. */
void ht_free(ht_t *t);

/* Set key (any NUL-terminated string, the empty one included) to value; both
 * are copied. Returns 0 if the key was added, 1 if its value was replaced,
 * -1 if out of memory (the table is then unchanged). May rehash: invalidates
 * every iterator of t. */
int ht_put(ht_t *t, const char *key, const char *value);

/* Copy up to cap bytes of key's value (no NUL added) into buf, which may be
 * NULL when cap is 0. Returns the value's full length, or -1 if key is
 * absent. */
long ht_get(const ht_t *t, const char *key, char *buf, size_t cap);

/* Remove key. Returns 0 if removed, 1 if absent. Never moves other entries:
 * iterators stay valid (a removed entry is not returned afterwards). */
int ht_del(ht_t *t, const char *key);

/* Number of entries. */
size_t ht_count(const ht_t *t);

/* Number of buckets (a power of two, at least 8). */
size_t ht_capacity(const ht_t *t);

/* Remove every entry and shrink back to the presized capacity. Invalidates
 * every iterator of t. Returns 0, or -1 if out of memory (t unchanged). */
int ht_clear(ht_t *t);

/* A new iterator at the first entry. It belongs to t (freed by ht_free, no
 * other free) and is invalidated by ht_put and ht_clear on t; ht_del keeps it
 * valid. NULL if out of memory. */
ht_iter_t *ht_iter(ht_t *t);

/* The next entry, in bucket order: returns 1 and stores pointers to its key
 * and value (owned by the table, valid until that entry is removed or t is
 * rehashed) in *key and *value (each may be NULL), or returns 0 at the end. */
int ht_iter_next(ht_iter_t *it, const char **key, const char **value);

#endif
