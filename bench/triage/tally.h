/* tally: a multiset of ints with a running total (triage benchmark, case
 * observer-abort). tl_count checks the tally's invariants and aborts when
 * they do not hold, as many libraries' getters assert theirs.
 *
 * Planted bug (tl_clear): the total is reset but the entries are not, so a
 * later tl_remove of a value added before the clear takes the total below
 * zero; the next tl_count aborts in tl_audit. Every call is legal. */
#ifndef TALLY_H
#define TALLY_H

typedef struct tally tally;

/* An empty tally; NULL if out of memory. */
tally *tl_new(void);
void tl_free(tally *t);
/* Add one occurrence of v. 0, or -1 if 16 distinct values are already held. */
int tl_add(tally *t, int v);
/* Remove one occurrence of v. 0, or 1 if v has none. */
int tl_remove(tally *t, int v);
/* Forget every occurrence. */
void tl_clear(tally *t);
/* Occurrences in total (pure; aborts if the tally is corrupt). */
int tl_count(const tally *t);
/* The lowest total the tally has had (pure). */
int tl_low_water(const tally *t);

#endif
