/* stats: running statistics of int samples (triage benchmark, case
 * two-ubsan). Two planted bugs, both signed integer overflow, in two
 * functions: two root causes that UBSan reports the same way.
 *
 * Planted bugs: st_push_scaled multiplies in int although scaled samples
 * are documented to be exact (ub-mul); st_spread subtracts the minimum from
 * the maximum in int although it returns a long (ub-sub). */
#ifndef STATS_H
#define STATS_H

typedef struct stats stats;

/* New statistics whose scaled samples are multiplied by scale (1..1000). */
stats *st_new(int scale);
void st_free(stats *s);
/* Add one sample (any int). */
void st_push(stats *s, int x);
/* Add x * scale, computed exactly (any int x). 0, or -1 if the result does
 * not fit in an int. */
int st_push_scaled(stats *s, int x);
/* Samples added. */
int st_count(const stats *s);
/* The largest sample minus the smallest (0 without samples). */
long st_spread(const stats *s);

#endif
