/* frontier.h: the solver's table of comparison sites (private to solver/). */
#ifndef SF_FRONTIER_H
#define SF_FRONTIER_H

#include "../harness/cmp_trace.h"
#include "../sequence/seq.h"
#include "internal.h"

typedef struct sf_site {
  uint64_t site;     /* 0: free slot */
  uint32_t seen;     /* outcome bits (1 << sf_goal) seen at it */
  uint32_t hits;     /* runs that reached it */
  uint32_t order;    /* discovery rank (novelty) */
  uint32_t witness;  /* index of the input that first reached it */
  uint64_t last_run; /* for counting hits once per run */
  uint8_t tries[SF_GOAL_COUNT];
  uint8_t width, kind;
  bool magic; /* compared with a constant random values rarely hit (not a small number) */
} sf_site;

typedef struct sf_frontier {
  sf_site *slots;
  uint32_t cap, n;
  uint64_t runs;
  sf_buf *witness; /* encoded inputs */
  uint32_t nwitness, witcap;
  uint32_t open; /* sites with a goal left, as of the last pick */
} sf_frontier;

void sf_frontier_init(sf_frontier *fr);
void sf_frontier_free(sf_frontier *fr);
sf_site *sf_frontier_find(sf_frontier *fr, uint64_t site, bool insert);
unsigned sf_site_goals(const sf_site *s);
/* Count the outcomes of a run's records; s becomes the witness of new sites. */
void sf_frontier_observe(sf_frontier *fr, const sf_seq *s, const sf_cmp_record *rec, uint32_t n);
/* Make an encoded input the site's witness (a better one: a longer buffer). */
void sf_frontier_set_witness(sf_frontier *fr, sf_site *site, const uint8_t *data, size_t len);
/* The most promising (site, missing outcome) with fewer than max_tries tries. */
bool sf_frontier_pick(sf_frontier *fr, uint32_t max_tries, sf_site **out, sf_goal *goal);

#endif
