/* magiclib: a lock that opens only for one magic key, pass phrase or badge,
 * with a planted bug behind it (for the comparison-tracing tests). */
#ifndef MAGICLIB_H
#define MAGICLIB_H

typedef struct lock lock;

lock *lock_new(void);
void lock_free(lock *l);
/* 1 if key opens the lock (it stays open), else 0. */
int lock_try(lock *l, unsigned key);
/* 1 if word is the pass phrase (the lock opens and stays open), else 0. */
int lock_say(lock *l, const char *word);
/* 1 if the len bytes of badge carry the badge mark from their third byte
 * on (the lock opens and stays open), else 0. */
int lock_badge(lock *l, const unsigned char *badge, unsigned long len);
/* A new combination for the dial, made from seed (a new lock has its own). */
void lock_set(lock *l, unsigned seed);
/* 1 if n is the dial's combination (the lock opens and stays open), else 0. */
int lock_dial(lock *l, unsigned n);
/* Slot idx (0..7) of an open lock, or -1 when closed. */
int lock_read(lock *l, unsigned idx);

#endif
