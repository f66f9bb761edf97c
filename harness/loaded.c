/* The loaded entries' records, apart from malloc (contract in loaded.h). */
#include "loaded.h"

#include <string.h>
#include <sys/mman.h>

/* Address space only: pages are used as records fill them (a corpus of
 * 2,290 sqlite3 entries takes about 40 MiB). */
#define STORE_BYTES ((size_t)1 << 32)

typedef struct record {
  uint64_t size;     /* the entry's bytes, which follow */
  uint32_t fb_bytes; /* the record's, after them (8-aligned) */
  uint32_t pad;
  double run_cost;
} record;

static uint8_t *store; /* NULL until the first put, and after a drain */
static size_t used;
static uint32_t count;

static size_t align8(size_t n) {
  return (n + 7) & ~(size_t)7;
}

bool sf_loaded_put(const uint8_t *data, size_t size, const sf_feedback *fb, double run_cost) {
  if (!store) {
    void *p = mmap(NULL, STORE_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    store = p;
    used = 0;
  }
  uint32_t nobs = fb->nobs <= SF_FB_MAX_OBS ? fb->nobs : SF_FB_MAX_OBS;
  size_t fb_bytes = offsetof(sf_feedback, obs) + nobs * sizeof(sf_fb_obs);
  size_t need = sizeof(record) + align8(size) + align8(fb_bytes);
  if (need > STORE_BYTES - used) return false;
  record *r = (record *)(store + used);
  *r = (record){size, (uint32_t)fb_bytes, 0, run_cost};
  if (size) memcpy(r + 1, data, size);
  memcpy((uint8_t *)(r + 1) + align8(size), fb, fb_bytes);
  used += need;
  count++;
  return true;
}

uint32_t sf_loaded_count(void) {
  return count;
}

void sf_loaded_drain(sf_loaded_take_fn take, void *ctx) {
  static sf_feedback fb; /* a whole record: the mutator reads any part */
  for (size_t at = 0; at < used;) {
    const record *r = (const record *)(store + at);
    const uint8_t *data = (const uint8_t *)(r + 1);
    memcpy(&fb, data + align8(r->size), r->fb_bytes);
    take(ctx, data, (size_t)r->size, &fb, r->run_cost);
    at += sizeof(record) + align8(r->size) + align8(r->fb_bytes);
  }
  if (store) munmap(store, STORE_BYTES);
  store = NULL;
  used = 0;
  count = 0;
}
