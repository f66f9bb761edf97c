/* probelib: traps for the findings pipeline (tests/findings.sh).
 *  - a tally whose consistency check aborts on a state a library bug makes:
 *    the check is the grammar's observer, so the crash first happens while
 *    seqfuzz observes a value, outside the engine's run of an input;
 *  - a bag whose merge leaks, whether or not both arguments are one bag;
 *  - a glue function (probelib_glue.h) that copies a name with a wrong
 *    length: the description's bug, not the library's. */
#ifndef PROBELIB_H
#define PROBELIB_H

typedef struct tally tally;
tally *tally_new(void);
void tally_free(tally *t);
int tally_add(tally *t, int n);
int tally_take(tally *t);  /* bug: takes from an empty tally too */
int tally_check(tally *t); /* the count; aborts if the tally is corrupt */
void tally_set_name(tally *t, const char *name, unsigned len);

typedef struct bag bag;
bag *bag_new(void);
void bag_free(bag *b);
int bag_put(bag *b, int x);
int bag_merge(bag *dst, bag *src); /* bug: leaks a scratch block */

#endif
