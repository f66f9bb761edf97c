/* oraclelib: silent bugs (no crash, no sanitizer report) that only seqfuzz's
 * oracles see (tests/oracles.sh):
 *  - oset, a bounded set of small integers whose count goes wrong after a
 *    particular removal: its invariant (oraclelib.api) or a postcondition of
 *    the removal (oraclelib_contract.api) catches it;
 *  - orec, a record whose printer writes what its parser rejects (a
 *    negative value): the round trip (oraclelib_roundtrip.api);
 *  - obox, a box whose peek changes what its digest reads: an impure
 *    observer (oraclelib_impure.api). */
#ifndef ORACLELIB_H
#define ORACLELIB_H

/* A set of integers in [-8, 8] holding at most cap of them. */
typedef struct oset oset;
oset *os_new(int cap); /* NULL unless 1 <= cap <= 16 */
void os_free(oset *s);
int os_add(oset *s, int v);      /* 0: added, 1: already there, -1: full (or v out of range) */
int os_remove(oset *s, int v);   /* 0: removed, 1: absent. Bug: see oraclelib.c */
int os_size(oset *s);            /* how many values it holds */
int os_contains(oset *s, int v); /* 1 or 0 */
int os_check(oset *s);           /* 0 when consistent, else the count's error */
int os_serial(oset *s);          /* which os_new made it, counted since the program started */
int os_reads(oset *s);           /* how often it was called on s, this call included */

/* A record holding one integer, printed as "v=<value>". */
typedef struct orec orec;
orec *or_new(void);
void or_free(orec *r);
void or_add(orec *r, int d);
int or_value(orec *r);
char *or_print(orec *r); /* malloc'd, free with or_str_free */
void or_str_free(char *s);
orec *or_parse(const char *text); /* NULL when malformed. Bug: rejects "v=-1" */

/* A box of at most 8 integers (a stack). */
typedef struct obox obox;
obox *ob_new(void);
void ob_free(obox *b);
int ob_put(obox *b, int v); /* 0, or -1 when full */
int ob_take(obox *b);       /* the last one put, or -1 when empty */
unsigned ob_digest(obox *b);
int ob_peek(obox *b); /* the last one put, or -1. Bug: changes the digest */

#endif
