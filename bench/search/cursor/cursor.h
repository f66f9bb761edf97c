/* cursor: an ordered list of records (an int key and a string value), kept
 * sorted by key in linked pages of up to 8 records, with cursors that stay
 * valid while the list changes.
 *
 * A cursor is either on a record or at the end. The list keeps its cursors
 * up to date:
 *  - adding a record (ol_put of a new key) leaves every cursor on its record,
 *    and a cursor at the end stays at the end;
 *  - replacing a value leaves every cursor where it is;
 *  - removing a record (ol_del, ol_cursor_del) moves every cursor on it to
 *    the next record, or to the end if it was the last one; other cursors
 *    stay on their records.
 * A cursor must not outlive its list: free the cursors before the list. */
#ifndef CURSOR_H
#define CURSOR_H

#include <stddef.h>

typedef struct olist olist_t;
typedef struct ocur ocur_t;

/* A new, empty list; NULL if out of memory. */
olist_t *ol_new(void);

/* Free the list and its records. Every cursor of l must have been freed
 * with ol_cursor_free before. NULL is ignored. */
void ol_free(olist_t *l);

/* Set key's value (copied). Returns 0 if a record was added, 1 if its value
 * was replaced, -1 if out of memory (the list is then unchanged). */
int ol_put(olist_t *l, int key, const char *value);

/* Remove key's record. Returns 0 if removed, 1 if absent. */
int ol_del(olist_t *l, int key);

/* Number of records. */
size_t ol_count(const olist_t *l);

/* A new cursor on l, at the end; NULL if out of memory. Free it with
 * ol_cursor_free before l is freed. */
ocur_t *ol_cursor(olist_t *l);

/* Free a cursor, wherever it is. NULL is ignored. */
void ol_cursor_free(ocur_t *c);

/* Move to the first record. Returns 1, or 0 (at the end) if l is empty. */
int ol_first(ocur_t *c);

/* Move to the first record whose key is >= key. Returns 1, or 0 (at the
 * end) if there is none. */
int ol_seek(ocur_t *c, int key);

/* Move to the next record. Returns 1, or 0 if that moved c to the end (or
 * it was there already). */
int ol_next(ocur_t *c);

/* The record c is on: stores its key in *key (if key is not NULL), copies up
 * to cap bytes of its value (no NUL added) into buf (which may be NULL when
 * cap is 0) and returns the value's full length; -1 if c is at the end. */
long ol_get(const ocur_t *c, int *key, char *buf, size_t cap);

/* Remove the record c is on; c, and every other cursor on it, moves to the
 * next record. Returns 0, or -1 if c is at the end. */
int ol_cursor_del(ocur_t *c);

#endif
