/* A hand-written libFuzzer harness for slab.h, written the usual OSS-Fuzz
 * way: one pool per input, a byte picks each call, and the harness tracks
 * every live object (with the cache it came from) so that it never frees or
 * touches an object twice or after its cache was reset. Sizes and counts
 * come from the input, including just out-of-range ones, so the argument
 * checks are exercised too. */
#include <stdint.h>
#include <string.h>

#include "slab.h"

typedef struct input {
  const uint8_t *p;
  size_t n;
} input;

static uint8_t byte(input *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static unsigned u16(input *in) {
  unsigned lo = byte(in);
  return lo | (unsigned)byte(in) << 8;
}

/* A few fixed names, so that lookups and duplicate names happen often. */
static const char *const names[] = {"kmalloc-64", "inode_cache", "dentry", "buf", "a",
                                    "b",          "c",           "d",      "e",   ""};
#define NNAMES (sizeof names / sizeof *names)

#define MAX_OBJS 64

typedef struct obj {
  void *p;
  slab_cache *cache;
} obj;

typedef struct state {
  slab_pool *pool;
  slab_cache *caches[SLAB_MAX_CACHES];
  unsigned ncaches;
  obj objs[MAX_OBJS];
  unsigned nobjs;
} state;

static void forget_cache_objects(state *st, slab_cache *c) {
  for (unsigned i = 0; i < st->nobjs;)
    if (st->objs[i].cache == c)
      st->objs[i] = st->objs[--st->nobjs];
    else
      i++;
}

static void new_pool(state *st, input *in) {
  slab_pool_destroy(st->pool);
  st->ncaches = st->nobjs = 0;
  /* Mostly valid limits, sometimes one just below the minimum. */
  st->pool = slab_pool_new(SLAB_POOL_MIN - 16 + (size_t)u16(in) * 16);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  state st = {0};
  new_pool(&st, &in);
  while (in.n && st.pool) {
    uint8_t op = byte(&in) % 12;
    slab_cache *c = st.ncaches ? st.caches[byte(&in) % st.ncaches] : NULL;
    unsigned oi = st.nobjs ? byte(&in) % st.nobjs : 0;
    switch (op) {
    case 0: {
      const char *name = names[byte(&in) % NNAMES];
      size_t obj_size = u16(&in) % (SLAB_OBJ_MAX + 2);
      unsigned per_slab = byte(&in) % (SLAB_PER_SLAB_MAX + 2);
      unsigned mag = byte(&in) % (SLAB_MAG_MAX + 2);
      slab_cache *nc = slab_cache_create(st.pool, name, obj_size, per_slab, mag);
      if (nc) st.caches[st.ncaches++] = nc;
      break;
    }
    case 1:
      if (c && st.nobjs < MAX_OBJS) {
        void *p = slab_alloc(c);
        if (p) st.objs[st.nobjs++] = (obj){p, c};
      }
      break;
    case 2:
      if (st.nobjs) {
        slab_free(st.objs[oi].p);
        st.objs[oi] = st.objs[--st.nobjs];
      }
      break;
    case 3:
      /* Touch the whole object: overlapping objects would show up here. */
      if (st.nobjs) memset(st.objs[oi].p, byte(&in), slab_obj_size(st.objs[oi].p));
      break;
    case 4:
      if (c) {
        slab_cache_reset(c);
        forget_cache_objects(&st, c);
      }
      break;
    case 5:
      if (c) slab_cache_shrink(c);
      break;
    case 6:
      slab_pool_trim(st.pool);
      break;
    case 7:
      if (c) slab_cache_inuse(c);
      break;
    case 8:
      if (c) slab_cache_nslabs(c);
      break;
    case 9:
      slab_pool_bytes(st.pool);
      break;
    case 10:
      slab_pool_inuse(st.pool, names[byte(&in) % NNAMES]);
      break;
    case 11:
      new_pool(&st, &in);
      break;
    }
  }
  slab_pool_destroy(st.pool);
  return 0;
}
