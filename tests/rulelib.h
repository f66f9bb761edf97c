/* rulelib: a list of integers with iterators and refcounted nodes, for the
 * grammar rules tested by tests/rules.sh. Every function accepts NULL for
 * any pointer (it then does nothing and returns -1, 0 or NULL). Each rule of
 * tests/rulelib.api guards one trap, a memory error that only a call the
 * contracts below forbid meets:
 *  - rl_list_get reads out of bounds unless i < rl_list_len(l) (requires);
 *  - rl_list_sum_range runs off the end when lo > hi (requires lo <= hi);
 *  - rl_list_move_all reads freed memory when dst == src (requires dst != src);
 *  - rl_iter_next reads its list, freed too early (depends_on);
 *  - rl_list_append_new releases the node even when it fails (steal);
 *  - rl_node_ref returns its argument, one more reference (refcounted).
 * Two real bugs, planted only when built with -DRULELIB_BUG_NULL or
 * -DRULELIB_BUG_DUMP: rl_list_find dereferences a NULL key (the library
 * promises NULL-safety: `default nullable`), rl_list_dump writes one byte
 * past a short buffer (an out buffer). */
#ifndef RULELIB_H
#define RULELIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct rl_list rl_list;
typedef struct rl_iter rl_iter;
typedef struct rl_node rl_node;

/* An empty list, or NULL when out of memory. */
rl_list *rl_list_new(void);
/* Frees l and releases its nodes; no iterator over l may still live. */
void rl_list_free(rl_list *l);
/* How many items l holds (0 for NULL). */
int rl_list_len(rl_list *l);
/* Appends v: 0, or -1 when l is frozen or holds 16 items. */
int rl_list_push(rl_list *l, int v);
/* Removes and returns the last item; -1 when l is empty. */
int rl_list_pop(rl_list *l);
/* Item i. Requires 0 <= i < rl_list_len(l), not checked. */
int rl_list_get(rl_list *l, int i);
/* The sum of items lo to hi (wrapping). Requires 0 <= lo <= hi < rl_list_len(l), not checked. */
int rl_list_sum_range(rl_list *l, int lo, int hi);
/* Appends src's items to dst and empties src. Requires dst != src, not checked. */
void rl_list_move_all(rl_list *dst, rl_list *src);
/* Freezes l (on != 0: push, load, append_new fail) or thaws it; returns the old state. */
int rl_list_flag(rl_list *l, int on);
/* printf-like: pushes the length of each %s argument and each %d argument
 * (other conversions count nothing); how many items it pushed. */
int rl_list_printf(rl_list *l, const char *fmt, ...);
/* The index of the first item equal to the decimal number key, else -1. */
int rl_list_find(rl_list *l, const char *key);
/* Sets *name to l's name, which l owns, valid until l changes: 0, or -1 (nothing set). */
int rl_list_name(rl_list *l, const char **name);
/* Writes the items, 4 bytes each (little-endian), cut at cap bytes: how many bytes written. */
int rl_list_dump(rl_list *l, uint8_t *buf, size_t cap);
/* Pushes the decimal integers f holds (up to 16 items): how many; -1 when frozen. */
int rl_list_load(rl_list *l, FILE *f);

/* An iterator over l, which must outlive it; the caller frees it with rl_iter_free. */
rl_iter *rl_iter_new(rl_list *l);
/* The next item of the iterator's list, -1 at the end. */
int rl_iter_next(rl_iter *it);
/* Frees the iterator, not its list. */
void rl_iter_free(rl_iter *it);

/* A node holding v, with one reference (the caller's). */
rl_node *rl_node_new(int v);
/* Adds a reference to n and returns n: the caller owns one more reference. */
rl_node *rl_node_ref(rl_node *n);
/* Releases one reference to n; the last frees n. */
void rl_node_unref(rl_node *n);
/* The value n holds. */
int rl_node_value(rl_node *n);
/* Takes the caller's reference to n even on failure: 0 (n kept, value pushed), -1 (full). */
int rl_list_append_new(rl_list *l, rl_node *n);

#endif
