/* Helpers shared by the files of sequence/ (not part of the public API). */
#ifndef SF_SEQ_INTERNAL_H
#define SF_SEQ_INTERNAL_H

#include "seq.h"

/* Scratch kept with a sequence (seq.h: sf_seq.work). */
typedef struct sf_seq_work {
  sf_life life;
  uint32_t *cands;
  uint32_t candcap;
  uint64_t *map;
  uint32_t mapcap;
  sf_seq spare; /* repair builds here, then swaps */
} sf_seq_work;

/* The scratch of s, created on first use; NULL on OOM. life is cleared and
 * bound to s->api. */
sf_seq_work *sf_seq_work_get(const sf_seq *s);
/* Room for n candidates / n map entries; -1 on OOM. */
int sf_seq_work_cands(sf_seq_work *w, uint32_t n);
int sf_seq_work_map(sf_seq_work *w, uint32_t n);

/* Append s's header (its `observed` mark in it) to out; -1 on OOM. */
int sf_seq_encode_start(const sf_seq *s, sf_buf *out);
/* Append argument a (of input parameter p) of a call of s, encoded, the
 * lifetimes l as they are before the call; -1 on OOM or a handle that is
 * not among l's candidates. */
int sf_seq_encode_arg(const sf_seq *s, const sf_life *l, const sf_param *p, const sf_arg *a,
                      sf_buf *out);

/* Canonicalize array elements in place (bool to 0/1, one NaN). */
void sf_seq_canon_elems(sf_kind elem, uint8_t *d, uint32_t len);

#endif
