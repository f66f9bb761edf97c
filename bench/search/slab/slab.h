/* slab: a slab allocator with named object caches.
 *
 * A pool (slab_pool) owns up to SLAB_MAX_CACHES named caches. A cache
 * (slab_cache) hands out objects of one fixed size, carved from slabs
 * (blocks of `per_slab` objects) that the pool allocates under a byte limit.
 * Each cache keeps a small magazine of recently freed objects that the next
 * allocations reuse first (LIFO, cache-hot), and a "current" slab that new
 * objects come from.
 *
 * Lifetimes:
 *   - A cache belongs to its pool and lives until slab_pool_destroy.
 *   - An object belongs to the cache it was allocated from. It dies when it
 *     is passed to slab_free, when its cache is reset (slab_cache_reset) and
 *     when the pool is destroyed. slab_cache_shrink and slab_pool_trim never
 *     invalidate a live object: they release only memory no object uses.
 *   - An object must not be passed to slab_free twice, nor used after it died.
 *
 * Not thread-safe: a pool and its caches are used by one thread at a time. */
#ifndef SLAB_H
#define SLAB_H

#include <stddef.h>

#define SLAB_MAX_CACHES   8    /* caches per pool */
#define SLAB_NAME_MAX     31   /* bytes of a cache name, without the NUL */
#define SLAB_OBJ_MAX      4096 /* largest object size */
#define SLAB_PER_SLAB_MAX 64   /* most objects per slab */
#define SLAB_MAG_MAX      16   /* largest magazine */
#define SLAB_POOL_MIN     4096 /* smallest pool byte limit */

typedef struct slab_pool slab_pool;
typedef struct slab_cache slab_cache;

/* A new, empty pool whose slabs may use at most `limit` bytes in all
 * (limit >= SLAB_POOL_MIN). Returns NULL if limit is too small or memory
 * runs out. The caller frees it with slab_pool_destroy. */
slab_pool *slab_pool_new(size_t limit);

/* Frees the pool, its caches and every object allocated from them.
 * NULL is a no-op. */
void slab_pool_destroy(slab_pool *p);

/* Creates the cache `name` in pool p for objects of obj_size bytes, its slabs
 * holding per_slab objects each, with a magazine of `mag` objects (0 turns
 * the magazine off). Returns NULL if name is empty, longer than
 * SLAB_NAME_MAX or already used in p, if the pool holds SLAB_MAX_CACHES
 * caches already, or if obj_size is not in 1..SLAB_OBJ_MAX, per_slab not in
 * 1..SLAB_PER_SLAB_MAX or mag above SLAB_MAG_MAX. The cache belongs to p: the
 * caller never frees it. */
slab_cache *slab_cache_create(slab_pool *p, const char *name, size_t obj_size, unsigned per_slab,
                              unsigned mag);

/* Objects in use in the cache called `name` in p, or -1 if p has no such
 * cache. */
long slab_pool_inuse(const slab_pool *p, const char *name);

/* A new object of the cache's size, zeroed, or NULL if a new slab would
 * take the pool over its byte limit. The object belongs to c (see the
 * lifetimes above). */
void *slab_alloc(slab_cache *c);

/* Returns a live object to the cache it came from. NULL is a no-op. */
void slab_free(void *obj);

/* The object size of the cache a live object came from. */
size_t slab_obj_size(const void *obj);

/* Frees every object of the cache at once (each object allocated from c
 * before dies) and releases its slabs but the newest, which serves the next
 * allocations. The cache itself stays usable. */
void slab_cache_reset(slab_cache *c);

/* Returns the magazine's objects to their slabs and releases every slab no
 * live object uses. Live objects stay valid. Returns the number of slabs
 * released. */
size_t slab_cache_shrink(slab_cache *c);

/* slab_cache_shrink on every cache of p; returns the slabs released. */
size_t slab_pool_trim(slab_pool *p);

/* Live objects of the cache (allocated and not freed). */
size_t slab_cache_inuse(const slab_cache *c);

/* Slabs the cache holds. */
size_t slab_cache_nslabs(const slab_cache *c);

/* Bytes of slab memory the pool holds. */
size_t slab_pool_bytes(const slab_pool *p);

#endif
