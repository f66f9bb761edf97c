/* kvstore: a tiny fixed-capacity key-value store with copy-on-write
 * snapshots. Written as seqfuzz's demo target; it has one planted bug that
 * takes a particular order of calls to reach (see README.md). */
#ifndef KVSTORE_H
#define KVSTORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct kv kv_t;
typedef struct kv_iter kv_iter_t;

/* Flags for kv_open. */
#define KV_CHECKSUM 1u /* keep a running checksum of the values */
#define KV_NOCOPY   2u /* reserved */

/* A new store with room for `capacity` keys (1..4096); NULL if out of memory. */
kv_t *kv_open(unsigned capacity, unsigned flags);
/* Free the store and everything in it. */
void kv_close(kv_t *db);
/* Insert or replace. Returns 0, or -1 if the store is full. */
int kv_put(kv_t *db, const char *key, const void *val, size_t vlen);
/* Length of the value stored under key, or -1 if absent. */
long kv_lookup(const kv_t *db, const char *key);
/* Delete key (leaves a tombstone until kv_compact). 0, or 1 if absent. */
int kv_del(kv_t *db, const char *key);
/* Drop tombstones. Returns how many were dropped. */
int kv_compact(kv_t *db);
/* A copy-on-write snapshot: values are shared with db. Free with kv_close. */
kv_t *kv_snapshot(const kv_t *db);
/* Move every entry of src into dst and free src. Returns the number moved, or
 * -1 (and leaves both unchanged) if dst has no room. */
int kv_merge(kv_t *dst, kv_t *src);
/* Number of live keys. */
size_t kv_count(const kv_t *db);
/* Checksum over keys and values. */
uint32_t kv_checksum(const kv_t *db);
/* The store's cursor, reset to the start. Owned by db; invalid after any
 * kv_put, kv_del, kv_compact or kv_merge into db. */
kv_iter_t *kv_iter(kv_t *db);
/* Advance; 1 and the value's length in *vlen, or 0 at the end. */
int kv_iter_next(kv_iter_t *it, size_t *vlen);

#endif
