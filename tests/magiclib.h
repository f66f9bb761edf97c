/* magiclib: a lock that opens only for one magic key, with a planted bug
 * behind it (for the comparison-tracing test). */
#ifndef MAGICLIB_H
#define MAGICLIB_H

typedef struct lock lock;

lock *lock_new(void);
void lock_free(lock *l);
/* 1 if key opens the lock (it stays open), else 0. */
int lock_try(lock *l, unsigned key);
/* Slot idx (0..7) of an open lock, or -1 when closed. */
int lock_read(lock *l, unsigned idx);

#endif
