/* difflib: two implementations of each of two small APIs, for seqfuzz's
 * differential mode (tests/oracles.sh).
 *
 * A map of at most 8 keys (0..15) to values: da_* (difflib_a.c, a sorted
 * array) and db_* (difflib_b.c, an unsorted array with a cached minimum).
 * db_del has a wrong-answer bug (no crash): after some deletions db_min
 * names a key that is not the smallest. Legitimate differences:
 * da_capacity (the storage each allocated) and da_mean (rounded
 * differently).
 *
 * An accumulator of decimal integers parsed from text: acc_* (difflib_a.c,
 * strtol) and v2_acc_* (difflib_b.c, by hand). Both reject the same texts
 * (optional '-', then 1 to 9 digits, nothing else) and agree on the rest. */
#ifndef DIFFLIB_H
#define DIFFLIB_H

typedef struct dmap dmap;

dmap *da_new(void);
void da_free(dmap *m);
int da_put(dmap *m, int key, int val);   /* 1: new key, 0: replaced, -1: full or bad key */
int da_get(dmap *m, int key, long *val); /* 0: found (*val set), 1: absent (*val = 0) */
int da_del(dmap *m, int key);            /* 0: deleted, 1: absent */
int da_count(dmap *m);
int da_min(dmap *m);     /* the smallest key, or -1 when empty */
double da_mean(dmap *m); /* of the values; 0 when empty */
int da_capacity(dmap *m);

dmap *db_new(void);
void db_destroy(dmap *m);
int db_put(dmap *m, int key, int val);
int db_get(dmap *m, int key, long *val);
int db_del(dmap *m, int key);
int db_count(dmap *m);
int db_min(dmap *m);
double db_mean(dmap *m);
int db_capacity(dmap *m);

typedef struct acc acc;

acc *acc_new(void);
void acc_free(acc *a);
int acc_feed(acc *a, const char *text); /* 0: added, -1: malformed (nothing changes) */
long acc_total(acc *a);
int acc_count(acc *a);
char *acc_format(acc *a); /* the total in decimal, malloc'd: free with acc_str_free */
void acc_str_free(char *s);
int acc_parse(const char *text, long *val); /* 0 (*val set), -1: malformed */

acc *v2_acc_new(void);
void v2_acc_free(acc *a);
int v2_acc_feed(acc *a, const char *text);
long v2_acc_total(acc *a);
int v2_acc_count(acc *a);
char *v2_acc_format(acc *a);
void v2_acc_str_free(char *s);
int v2_acc_parse(const char *text, long *val);

#endif
