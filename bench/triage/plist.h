/* plist: a list of tagged values (triage benchmark, cases leak-several-ways
 * and wrong-consume). A node is made by any of four constructors and is
 * either the caller's or, once pushed, the list's.
 *
 * Planted bug (pl_uniq): a node removed as a duplicate is unlinked but never
 * freed. Which constructor made it changes LeakSanitizer's allocation stack,
 * not the bug: one root cause. */
#ifndef PLIST_H
#define PLIST_H

typedef struct pnode pnode;
typedef struct plist plist;

/* Nodes; NULL (pn_parse: -1) if out of memory or, for pn_parse, if text is
 * not "i:<integer>" or "s:<text>". Free with pn_free unless pushed. */
pnode *pn_int(long v);
pnode *pn_str(const char *s);
pnode *pn_dup(const pnode *n);
int pn_parse(const char *text, pnode **out);
void pn_free(pnode *n);
/* 1 if a and b hold the same value. */
int pn_equal(const pnode *a, const pnode *b);

plist *pl_new(void);
/* Frees the list and every node in it. */
void pl_free(plist *l);
/* Appends n; the list takes it (frees it in pl_free). 0, or -1 (n stays the
 * caller's) when the list holds 32 nodes or n is in a list already. */
int pl_push(plist *l, pnode *n);
/* Frees the last node. 0, or 1 if the list is empty. */
int pl_pop(plist *l);
/* Removes each node equal to the one before it; the number removed. */
int pl_uniq(plist *l);
/* Sorts by kind, then value. */
void pl_sort(plist *l);
int pl_len(const plist *l);

#endif
