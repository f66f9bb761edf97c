/* verlib: a set of dotted version strings ("1.2.10"), for bench/known.sh.
 * Two planted bugs (both on unless VERLIB_FIX_SHALLOW / VERLIB_FIX_DEEP):
 * - shallow: a component longer than nine characters overflows an int
 *   while a version is parsed (vl_add, vl_compare, vl_prune): a signed
 *   overflow, which UBSan reports at once, on most random strings;
 * - deep: vl_prune shrinks the set but leaves the cached index of the
 *   latest version (vl_latest) pointing past its end, and vl_latest_name
 *   reads it: a heap overflow after add, add, latest, prune, latest_name. */
#ifndef VERLIB_H
#define VERLIB_H

typedef struct vl_set vl_set;

vl_set *vl_new(void);
void vl_free(vl_set *s);
/* Adds a version (copied); its index, or -1 when the string is empty. */
int vl_add(vl_set *s, const char *version);
/* Numeric comparison of two versions, component by component: <0, 0, >0. */
int vl_compare(const char *a, const char *b);
/* The index of the latest version (cached until the set changes), or -1. */
int vl_latest(vl_set *s);
/* The latest version's string, or NULL when the set is empty. */
const char *vl_latest_name(vl_set *s);
/* Removes every version older than `below`; how many were removed. */
int vl_prune(vl_set *s, const char *below);
int vl_count(const vl_set *s);

#endif
