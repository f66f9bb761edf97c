/* tagset: a set of string tags (triage benchmark, case alias-leak).
 *
 * Planted bug (ts_merge): the snapshot of src's tags that makes merging a
 * set into itself safe is freed only on the early returns, so every merge
 * of a non-empty src leaks it, whether or not dst and src are the same set. */
#ifndef TAGSET_H
#define TAGSET_H

typedef struct tagset tagset;

tagset *ts_new(void);
void ts_free(tagset *t);
/* Add a copy of tag. 1 if added, 0 if present, -1 if 64 tags are held. */
int ts_add(tagset *t, const char *tag);
/* Remove tag. 1 if removed, 0 if absent. */
int ts_del(tagset *t, const char *tag);
/* 1 if tag is in the set. */
int ts_has(const tagset *t, const char *tag);
/* Add every tag of src to dst (dst and src may be the same set). The number
 * added, or -1 if dst filled up (the tags added so far stay). */
int ts_merge(tagset *dst, const tagset *src);
int ts_size(const tagset *t);

#endif
