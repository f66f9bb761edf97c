#include "pool.h"

#include <stdlib.h>
#include <string.h>

#include "../base/sf_hash.h"

struct sf_pool {
  sf_pool_entry *entries;
  size_t n, cap, next; /* next: slot replaced when full */
  uint32_t *index;     /* open addressing: entry index + 1, 0 empty */
  size_t index_mask;
  bool equivalence;
  sf_hashset *states;
};

sf_pool *sf_pool_new(size_t capacity, bool equivalence) {
  sf_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->cap = capacity ? capacity : 1;
  p->equivalence = equivalence;
  p->entries = calloc(p->cap, sizeof *p->entries);
  size_t slots = 16;
  while (slots < p->cap * 2)
    slots *= 2;
  p->index = calloc(slots, sizeof *p->index);
  p->index_mask = slots - 1;
  if (!p->index) {
    sf_pool_free(p);
    return NULL;
  }
  p->states = sf_hashset_new(1 << 18);
  if (!p->entries || !p->states) {
    sf_pool_free(p);
    return NULL;
  }
  return p;
}

static void clear_entry(sf_pool_entry *e) {
  free(e->data);
  free(e->reusable);
  free(e->bytes_cmp);
  memset(e, 0, sizeof *e);
}

void sf_pool_free(sf_pool *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n; i++)
    clear_entry(&p->entries[i]);
  free(p->entries);
  free(p->index);
  sf_hashset_free(p->states);
  free(p);
}

static sf_pool_entry *find(const sf_pool *p, uint64_t h) {
  for (size_t i = h & p->index_mask; p->index[i]; i = (i + 1) & p->index_mask)
    if (p->entries[p->index[i] - 1].hash == h) return &p->entries[p->index[i] - 1];
  return NULL;
}

static void index_insert(sf_pool *p, uint64_t h, size_t entry) {
  size_t i = h & p->index_mask;
  while (p->index[i])
    i = (i + 1) & p->index_mask;
  p->index[i] = (uint32_t)entry + 1;
}

/* Linear-probing deletion by backward shift: no tombstones to accumulate. */
static void index_remove(sf_pool *p, uint64_t h) {
  size_t i = h & p->index_mask;
  while (p->index[i] && p->entries[p->index[i] - 1].hash != h)
    i = (i + 1) & p->index_mask;
  if (!p->index[i]) return;
  for (size_t j = (i + 1) & p->index_mask; p->index[j]; j = (j + 1) & p->index_mask) {
    size_t home = p->entries[p->index[j] - 1].hash & p->index_mask;
    /* Move j back into the hole at i unless its home lies cyclically in (i, j]. */
    bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (!stays) {
      p->index[i] = p->index[j];
      i = j;
    }
  }
  p->index[i] = 0;
}

/* Make e hold size bytes and nvals flags, reusing its storage. */
static bool reserve_entry(sf_pool_entry *e, size_t size, uint32_t nvals) {
  if (e->data_cap < size || !e->data) {
    uint8_t *d = realloc(e->data, size ? size : 1);
    if (!d) return false;
    e->data = d;
    e->data_cap = size;
  }
  if (e->reus_cap < nvals || !e->reusable) {
    uint8_t *r = realloc(e->reusable, nvals ? nvals : 1);
    if (!r) return false;
    e->reusable = r;
    e->reus_cap = nvals;
  }
  return true;
}

static sf_pool_entry *add(sf_pool *p, const uint8_t *data, size_t size, const sf_feedback *fb) {
  uint64_t h = sf_feedback_input_hash(data, size);
  if (!sf_feedback_valid(fb, h)) fb = NULL;
  sf_pool_entry *e = find(p, h);
  if (e && (e->legal_calls != SF_LEGAL_UNKNOWN || !fb)) return e;
  bool indexed = e != NULL; /* known bytes, first record of their run: refill */
  if (!e && p->n < p->cap) {
    e = &p->entries[p->n++];
  } else if (!e) {
    e = &p->entries[p->next]; /* replace the oldest, keeping its storage */
    p->next = (p->next + 1) % p->cap;
    index_remove(p, e->hash);
  }
  uint32_t nvals = fb ? fb->nvalues : 0;
  if (!reserve_entry(e, size, nvals)) {
    /* Keep the slot consistent: an empty entry nobody will find. */
    e->size = 0;
    e->nvals = 0;
    e->hash = 0;
    e->legal_calls = SF_LEGAL_UNKNOWN;
    e->fails_last = false;
    e->refused = 0;
    e->unobserved = false;
    e->nanswer_cmp = e->nbytes_cmp = e->narg_cmp = 0;
    if (!indexed) index_insert(p, 0, (size_t)(e - p->entries));
    return NULL;
  }
  e->hash = h;
  e->size = size;
  if (size) memcpy(e->data, data, size);
  e->nvals = nvals;
  e->legal_calls = fb ? fb->stop_call : SF_LEGAL_UNKNOWN;
  e->unobserved = false;
  e->fails_last = fb && sf_feedback_fails_last(fb);
  e->refused = fb ? fb->refused : 0;
  e->nanswer_cmp = fb ? fb->nanswer_cmp : 0;
  if (e->nanswer_cmp) memcpy(e->answer_cmp, fb->answer_cmp, e->nanswer_cmp * sizeof *e->answer_cmp);
  e->narg_cmp = fb ? fb->narg_cmp : 0;
  if (e->narg_cmp) memcpy(e->arg_cmp, fb->arg_cmp, e->narg_cmp * sizeof *e->arg_cmp);
  /* Most runs compare no bytes: the storage is the entry's only when some
   * came out unequal, and kept with it, full size, when it is replaced. */
  e->nbytes_cmp = 0;
  if (fb && fb->nbytes_cmp && (e->bytes_cmp || (e->bytes_cmp = malloc(sizeof fb->bytes_cmp)))) {
    e->nbytes_cmp = fb->nbytes_cmp;
    memcpy(e->bytes_cmp, fb->bytes_cmp, e->nbytes_cmp * sizeof *e->bytes_cmp);
  }
  for (uint32_t v = 0; v < nvals; v++) {
    uint64_t st = fb->state[v];
    /* The first input to reach a state keeps the value reusable. */
    e->reusable[v] = !p->equivalence || st == 0 || sf_hashset_insert(p->states, st);
  }
  if (!indexed) index_insert(p, h, (size_t)(e - p->entries));
  return e;
}

const sf_pool_entry *sf_pool_add(sf_pool *p, const uint8_t *data, size_t size,
                                 const sf_feedback *fb) {
  return add(p, data, size, fb);
}

const sf_pool_entry *sf_pool_add_legal(sf_pool *p, const uint8_t *data, size_t size,
                                       uint32_t legal_calls, bool fails_last, uint64_t refused) {
  sf_pool_entry *e = add(p, data, size, NULL);
  if (e && e->legal_calls == SF_LEGAL_UNKNOWN) {
    e->legal_calls = legal_calls;
    e->fails_last = fails_last;
    e->refused = refused;
    e->unobserved = true;
  }
  return e;
}

const sf_pool_entry *sf_pool_find(const sf_pool *p, uint64_t hash) {
  return find(p, hash);
}

int sf_pool_add_arg_cmp(sf_pool *p, uint64_t hash, const uint64_t pair[2]) {
  sf_pool_entry *e = find(p, hash);
  if (!e || e->narg_cmp == SF_FB_MAX_ARG_CMP) return -1;
  for (uint32_t k = 0; k < e->narg_cmp; k++)
    if (e->arg_cmp[k][0] == pair[0] && e->arg_cmp[k][1] == pair[1]) return -1;
  memcpy(e->arg_cmp[e->narg_cmp], pair, sizeof *e->arg_cmp);
  return (int)e->narg_cmp++;
}

const sf_pool_entry *sf_pool_pick(const sf_pool *p, uint64_t r) {
  return p->n ? &p->entries[r % p->n] : NULL;
}

size_t sf_pool_size(const sf_pool *p) {
  return p->n;
}
size_t sf_pool_states_seen(const sf_pool *p) {
  return sf_hashset_size(p->states);
}
