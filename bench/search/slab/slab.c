/* slab: see slab.h. Each object is preceded by a header naming its slab, so
 * slab_free needs no cache argument; free objects of a slab are threaded
 * through their headers. */
#include "slab.h"

#include <stdlib.h>
#include <string.h>

typedef struct obj_hdr {
  struct slab *slab;
  struct obj_hdr *next; /* only while on a slab's free list */
} obj_hdr;

typedef struct slab {
  struct slab *next; /* the cache's slabs, newest first */
  slab_cache *cache;
  obj_hdr *free;
  unsigned inuse; /* objects not on the free list (the magazine's included) */
  size_t bytes;
  _Alignas(16) unsigned char mem[];
} slab;

struct slab_cache {
  char name[SLAB_NAME_MAX + 1];
  slab_pool *pool;
  size_t obj_size, stride;
  unsigned per_slab, mag_cap, mag_n;
  obj_hdr *mag[SLAB_MAG_MAX];
  slab *slabs;
  slab *cur; /* the slab allocations come from, while it has free objects */
  size_t nslabs, inuse;
};

struct slab_pool {
  size_t limit, bytes;
  unsigned ncaches;
  slab_cache *caches[SLAB_MAX_CACHES];
};

static obj_hdr *obj_at(const slab_cache *c, const slab *s, unsigned i) {
  return (obj_hdr *)(void *)(s->mem + (size_t)i * c->stride);
}

/* Threads every object of s onto its free list, lowest address first. */
static void slab_format(slab_cache *c, slab *s) {
  s->free = NULL;
  s->inuse = 0;
  for (unsigned i = c->per_slab; i-- > 0;) {
    obj_hdr *o = obj_at(c, s, i);
    o->slab = s;
    o->next = s->free;
    s->free = o;
  }
}

static slab *slab_grow(slab_cache *c) {
  size_t bytes = sizeof(slab) + (size_t)c->per_slab * c->stride;
  slab_pool *p = c->pool;
  if (bytes > p->limit - p->bytes) return NULL;
  slab *s = malloc(bytes);
  if (!s) return NULL;
  s->cache = c;
  s->bytes = bytes;
  slab_format(c, s);
  s->next = c->slabs;
  c->slabs = s;
  c->nslabs++;
  p->bytes += bytes;
  return s;
}

static void slab_release(slab_cache *c, slab *s) {
  c->pool->bytes -= s->bytes;
  c->nslabs--;
  free(s);
}

slab_pool *slab_pool_new(size_t limit) {
  if (limit < SLAB_POOL_MIN) return NULL;
  slab_pool *p = calloc(1, sizeof *p);
  if (p) p->limit = limit;
  return p;
}

void slab_pool_destroy(slab_pool *p) {
  if (!p) return;
  for (unsigned i = 0; i < p->ncaches; i++) {
    slab_cache *c = p->caches[i];
    for (slab *s = c->slabs, *next; s; s = next) {
      next = s->next;
      free(s);
    }
    free(c);
  }
  free(p);
}

static slab_cache *find(const slab_pool *p, const char *name) {
  for (unsigned i = 0; i < p->ncaches; i++)
    if (strcmp(p->caches[i]->name, name) == 0) return p->caches[i];
  return NULL;
}

slab_cache *slab_cache_create(slab_pool *p, const char *name, size_t obj_size, unsigned per_slab,
                              unsigned mag) {
  size_t len = strlen(name);
  if (len == 0 || len > SLAB_NAME_MAX || find(p, name) || p->ncaches == SLAB_MAX_CACHES)
    return NULL;
  if (obj_size == 0 || obj_size > SLAB_OBJ_MAX || per_slab == 0 || per_slab > SLAB_PER_SLAB_MAX ||
      mag > SLAB_MAG_MAX)
    return NULL;
  slab_cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  memcpy(c->name, name, len + 1);
  c->pool = p;
  c->obj_size = obj_size;
  /* Keep every object 16-byte aligned, as malloc's are. */
  c->stride = sizeof(obj_hdr) + ((obj_size + 15) & ~(size_t)15);
  c->per_slab = per_slab;
  c->mag_cap = mag;
  p->caches[p->ncaches++] = c;
  return c;
}

long slab_pool_inuse(const slab_pool *p, const char *name) {
  const slab_cache *c = find(p, name);
  return c ? (long)c->inuse : -1;
}

void *slab_alloc(slab_cache *c) {
  obj_hdr *o;
  if (c->mag_n) {
    o = c->mag[--c->mag_n];
  } else {
    slab *s = c->cur;
    if (!s || !s->free) {
      /* Fill partially used slabs before growing, newest (hottest) first. */
      for (s = c->slabs; s && !s->free; s = s->next)
        ;
      if (!s && !(s = slab_grow(c))) return NULL;
      c->cur = s;
    }
    o = s->free;
    s->free = o->next;
    s->inuse++;
  }
  o->next = NULL;
  c->inuse++;
  memset(o + 1, 0, c->obj_size);
  return o + 1;
}

void slab_free(void *obj) {
  if (!obj) return;
  obj_hdr *o = (obj_hdr *)obj - 1;
  slab *s = o->slab;
  slab_cache *c = s->cache;
  c->inuse--;
  if (c->mag_n < c->mag_cap) {
    c->mag[c->mag_n++] = o;
    return;
  }
  o->next = s->free;
  s->free = o;
  s->inuse--;
}

size_t slab_obj_size(const void *obj) {
  const obj_hdr *o = (const obj_hdr *)obj - 1;
  return o->slab->cache->obj_size;
}

void slab_cache_reset(slab_cache *c) {
  slab *keep = c->slabs;
  c->mag_n = 0;
  c->inuse = 0;
  if (!keep) return;
  for (slab *s = keep->next, *next; s; s = next) {
    next = s->next;
    slab_release(c, s);
  }
  keep->next = NULL;
  slab_format(c, keep);
#ifdef SEARCH_NO_BUGS
  c->cur = keep;
#else
  /* (bug) assumes the current slab is always the newest one, which the
   * partial-slab search in slab_alloc breaks: cur may be a released slab. */
  if (!c->cur) c->cur = keep;
#endif
}

size_t slab_cache_shrink(slab_cache *c) {
  /* Magazine objects are free: give them back so their slabs can empty. */
  while (c->mag_n) {
    obj_hdr *o = c->mag[--c->mag_n];
    o->next = o->slab->free;
    o->slab->free = o;
    o->slab->inuse--;
  }
  size_t released = 0;
  for (slab **link = &c->slabs; *link;) {
    slab *s = *link;
    if (s->inuse) {
      link = &s->next;
      continue;
    }
    *link = s->next;
    if (c->cur == s) c->cur = NULL;
    slab_release(c, s);
    released++;
  }
  return released;
}

size_t slab_pool_trim(slab_pool *p) {
  size_t released = 0;
  for (unsigned i = 0; i < p->ncaches; i++)
    released += slab_cache_shrink(p->caches[i]);
  return released;
}

size_t slab_cache_inuse(const slab_cache *c) {
  return c->inuse;
}

size_t slab_cache_nslabs(const slab_cache *c) {
  return c->nslabs;
}

size_t slab_pool_bytes(const slab_pool *p) {
  return p->bytes;
}
