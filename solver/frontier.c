/* frontier.c: comparison sites, the outcomes seen at each, and the input
 * that first reached it (its witness, kept encoded). */
#include <stdlib.h>
#include <string.h>

#include "frontier.h"

#define MAX_SITES     (1u << 16)
#define MAX_WITNESSES 8192

void sf_frontier_init(sf_frontier *fr) {
  memset(fr, 0, sizeof *fr);
}

void sf_frontier_free(sf_frontier *fr) {
  free(fr->slots);
  for (uint32_t i = 0; i < fr->nwitness; i++)
    sf_buf_free(&fr->witness[i]);
  free(fr->witness);
  memset(fr, 0, sizeof *fr);
}

static uint32_t slot_of(uint64_t site, uint32_t cap) {
  return (uint32_t)((site * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
}

static int grow(sf_frontier *fr) {
  uint32_t cap = fr->cap ? fr->cap * 2 : 1024;
  sf_site *slots = calloc(cap, sizeof *slots);
  if (!slots) return -1;
  for (uint32_t i = 0; i < fr->cap; i++) {
    if (!fr->slots[i].site) continue;
    uint32_t h = slot_of(fr->slots[i].site, cap);
    while (slots[h].site)
      h = (h + 1) & (cap - 1);
    slots[h] = fr->slots[i];
  }
  free(fr->slots);
  fr->slots = slots;
  fr->cap = cap;
  return 0;
}

sf_site *sf_frontier_find(sf_frontier *fr, uint64_t site, bool insert) {
  if (!site) site = 1;
  if (insert && (fr->n + 1) * 2 > fr->cap) {
    if (fr->n >= MAX_SITES || grow(fr)) insert = false;
  }
  if (!fr->cap) return NULL;
  uint32_t h = slot_of(site, fr->cap);
  while (fr->slots[h].site) {
    if (fr->slots[h].site == site) return &fr->slots[h];
    h = (h + 1) & (fr->cap - 1);
  }
  if (!insert) return NULL;
  sf_site *s = &fr->slots[h];
  memset(s, 0, sizeof *s);
  s->site = site;
  s->order = fr->n++;
  s->witness = UINT32_MAX;
  return s;
}

/* The goals that make sense for a site: a switch case can only be hit. */
unsigned sf_site_goals(const sf_site *s) {
  if (s->kind == SF_TRACE_SWITCH) return 1u << SF_GOAL_EQ;
  return (1u << SF_GOAL_COUNT) - 1;
}

/* The next free witness slot, emptied (not yet counted); NULL if none. */
static sf_buf *new_witness(sf_frontier *fr) {
  if (fr->nwitness >= MAX_WITNESSES) return NULL;
  if (fr->nwitness == fr->witcap) {
    uint32_t cap = fr->witcap ? fr->witcap * 2 : 64;
    sf_buf *w = realloc(fr->witness, cap * sizeof *w);
    if (!w) return NULL;
    memset(w + fr->witcap, 0, (cap - fr->witcap) * sizeof *w);
    fr->witness = w;
    fr->witcap = cap;
  }
  sf_buf *b = &fr->witness[fr->nwitness];
  sf_buf_reset(b);
  return b;
}

void sf_frontier_observe(sf_frontier *fr, const sf_seq *s, const sf_cmp_record *rec, uint32_t n) {
  uint32_t witness = UINT32_MAX;
  sf_site *last = NULL; /* a loop's comparison comes several times in a row */
  for (uint32_t i = 0; i < n; i++) {
    const sf_cmp_record *r = &rec[i];
    sf_site *site =
        last && last->site == r->site ? last : (last = sf_frontier_find(fr, r->site, true));
    if (!site) continue;
    if (r->occurrence == 0 && site->last_run != fr->runs + 1) {
      site->hits++;
      site->last_run = fr->runs + 1;
    }
    site->kind = r->kind;
    site->width = r->width;
    if (r->kind != SF_TRACE_VAR) {
      uint64_t k = r->kind == SF_TRACE_CONST ? r->a : r->b;
      unsigned bits = 8u * r->width;
      if (bits < 64 && (k >> (bits - 1)) & 1) k |= ~0ull << bits; /* as signed */
      site->magic = k + 256 > 512;
    }
    site->seen |= sf_goal_outcomes(r->a, r->b, r->width);
    if (site->witness != UINT32_MAX) continue;
    if (witness == UINT32_MAX) {
      sf_buf *b = new_witness(fr);
      if (!b || sf_seq_encode(s, b)) continue;
      witness = fr->nwitness++;
    }
    site->witness = witness;
  }
  fr->runs++;
}

bool sf_frontier_pick(sf_frontier *fr, uint32_t max_tries, sf_site **out, sf_goal *goal) {
  sf_site *best = NULL;
  sf_goal best_goal = SF_GOAL_EQ;
  uint64_t best_score = 0;
  fr->open = 0;
  for (uint32_t i = 0; i < fr->cap; i++) {
    sf_site *s = &fr->slots[i];
    if (!s->site || s->witness == UINT32_MAX) continue;
    unsigned missing = sf_site_goals(s) & ~s->seen;
    bool open = false;
    for (int g = 0; g < SF_GOAL_COUNT; g++) {
      if (!(missing & (1u << g)) || s->tries[g] >= max_tries) continue;
      open = true;
      /* Fewest tries first; then equality with a constant random values
       * rarely hit, other equalities, order, inequality; then the newest
       * site (novelty); then the most reached. */
      uint64_t score = ((uint64_t)(max_tries - s->tries[g]) << 56) |
                       ((uint64_t)(g == SF_GOAL_EQ && s->magic ? 4
                                   : g == SF_GOAL_EQ           ? 3
                                   : g == SF_GOAL_NE           ? 1
                                                               : 2)
                        << 52) |
                       ((uint64_t)(s->order & 0xFFFFF) << 32) | (s->hits & 0xFFFFFFFFu);
      if (!best || score > best_score) {
        best = s;
        best_goal = (sf_goal)g;
        best_score = score;
      }
    }
    fr->open += open;
  }
  if (!best) return false;
  *out = best;
  *goal = best_goal;
  return true;
}

void sf_frontier_set_witness(sf_frontier *fr, sf_site *site, const uint8_t *data, size_t len) {
  sf_buf *b = new_witness(fr);
  if (!b || sf_buf_append(b, data, len)) return;
  site->witness = fr->nwitness++;
}
