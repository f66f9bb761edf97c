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
 *  - rl_node_ref returns its argument, one more reference (refcounted);
 *  - rl_cursor_next and rl_cursor_free read the list the cursor was attached
 *    to, freed too early (c depends_on l);
 *  - rl_batch_end writes the items the list had at rl_batch_begin, moved by
 *    any call on the list in between (locks);
 *  - rl_list_bsearch reads out of bounds on a list not sorted since its last
 *    change (state rl_sorted, set by the calls, required by rl_list_bsearch).
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
typedef struct rl_cursor rl_cursor;
typedef struct rl_batch rl_batch;

/* An empty list, or NULL when out of memory. */
rl_list *rl_list_new(void);
/* Frees l and releases its nodes; no iterator, cursor or batch over l may still live. */
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
/* Sorts l's items in ascending order, in place. */
void rl_list_sort(rl_list *l);
/* The index of an item equal to key, else -1. Requires l sorted (rl_list_sort)
 * since it last changed (push, load, printf, append_new, move_all into it),
 * not checked. */
int rl_list_bsearch(rl_list *l, int key);

/* An iterator over l, which must outlive it; the caller frees it with rl_iter_free. */
rl_iter *rl_iter_new(rl_list *l);
/* The next item of the iterator's list, -1 at the end. */
int rl_iter_next(rl_iter *it);
/* Frees the iterator, not its list. */
void rl_iter_free(rl_iter *it);

/* A cursor attached to no list; the caller frees it with rl_cursor_free. */
rl_cursor *rl_cursor_new(void);
/* Attaches c to l (NULL: detaches it), at l's first item: 0, or -1 (c NULL or
 * detached). c keeps a pointer to l, which must outlive it (or a later
 * attachment). */
int rl_cursor_attach(rl_cursor *c, rl_list *l);
/* The next item of the cursor's list, -1 at the end or when detached. */
int rl_cursor_next(rl_cursor *c);
/* Frees the cursor, not its list: how many items it had not read (0 when detached). */
int rl_cursor_free(rl_cursor *c);

/* Opens a batch of changes to l's items, made in place by rl_batch_end: until
 * then no other call may take l (it would move the items the batch holds). */
rl_batch *rl_batch_begin(rl_list *l);
/* Adds d to what rl_batch_end adds to every item (saturating): 0, or -1. */
int rl_batch_add(rl_batch *b, int d);
/* Adds the batch's sum to every item of its list (saturating, so the order
 * stays) and frees the batch: how many items changed. */
int rl_batch_end(rl_batch *b);

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
