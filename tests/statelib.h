/* statelib: byte queues that are written, sealed, read, copied and taken
 * from, for the stateful testing stage (contracts inferred from passing
 * runs, then a call made in a stored state that breaks one: mutator/
 * contracts.h; tests/statelib.api).
 *
 * A queue is written (sl_put) until it is sealed (sl_seal), then read
 * (sl_get, sl_unget, sl_rewind); sl_reopen makes a sealed queue read to its
 * end writable again. sl_take copies the unread bytes of a queue into a new
 * one and, when the queue is full, sealed and none of its bytes were read,
 * frees its buffer: the queue *drains*. A take is finished lazily, by the
 * library's next call that changes a queue (any queue: every call but the
 * observers finishes the pending take first). Until then the drained queue
 * still looks as the take left it: sealed, read to its end, sl_draining
 * true. Once finished it is empty, being written, with no buffer (its next
 * write gets one). Four observers describe a queue: sl_len (bytes unread),
 * sl_sealed, sl_draining, sl_sum (of the bytes unread).
 *
 * The planted bug (off with -DSTATELIB_NO_BUGS): sl_reopen does not finish
 * the pending take first. Called right after the sl_take that drained q
 * (sl_draining(q) true: the post-state of sl_take), it takes q for a sealed
 * queue read to its end, as its precondition asks, and wipes the buffer
 * sl_take freed: a heap-use-after-free in sl_reopen. The shortest crash
 * (tests/data/statelib_bug.seq):
 *   h1 = sl_new(4); sl_put(h1, "abcd"); sl_seal(h1);
 *   h2 = sl_take(h1); sl_reopen(h1);
 *
 * What a fuzzer sees. The state lasts until the next call that changes a
 * queue, and the library is written so that coverage brings runs that pass
 * through it into the corpus without ending there: a take that drains, and
 * the finish of a take by sl_free (the cleanup of every run), are written
 * without branches (they are no new coverage), while a call that finishes a
 * take and succeeds is (once a run). So corpus entries regularly contain a
 * draining sl_take followed by another call, and sl_reopen in them is always
 * called with sl_draining(q) false: the precondition a stateful stage
 * infers, and breaks by calling sl_reopen on a stored state right after such
 * a take. Random mutation has to put sl_reopen, on that queue, exactly
 * between the take and the call after it (or end a run there and extend
 * it), which it seldom does: tests/statelib.api gives the measurement. */
#ifndef STATELIB_H
#define STATELIB_H

#include <stdbool.h>
#include <stddef.h>

#define SL_MIN 4  /* the smallest capacity */
#define SL_MAX 64 /* the largest capacity */

typedef struct sl_queue sl_queue;

/* A new empty queue being written, holding at most cap bytes (SL_MIN to
 * SL_MAX), or NULL. It gets its buffer at its first write. */
sl_queue *sl_new(unsigned cap);
/* A new queue being written, of capacity SL_MAX, holding the unread bytes
 * of q; or NULL (out of memory). */
sl_queue *sl_clone(const sl_queue *q);
/* Frees q (draining or not). */
void sl_free(sl_queue *q);

/* Appends the n bytes of b to q: the bytes q holds, or -1 (q sealed, or
 * fewer than n bytes of room). */
int sl_put(sl_queue *q, const unsigned char *b, size_t n);
/* Ends the writing of q: 0, or -1 (q sealed already, or empty). */
int sl_seal(sl_queue *q);
/* Reads up to n unread bytes of a sealed queue: how many, or -1 (q not
 * sealed). */
int sl_get(sl_queue *q, unsigned n);
/* Makes the last byte read unread again: that byte, or -1 (q not sealed, or
 * nothing read). */
int sl_unget(sl_queue *q);
/* Makes every byte read unread again: how many q holds, or -1 (q not
 * sealed). */
int sl_rewind(sl_queue *q);
/* q must be sealed and read to its end (sl_sealed(q), sl_len(q) == 0). Wipes
 * its buffer and makes it an empty queue being written: 0, or -1 when
 * finishing the pending take first left q unsealed (a take had drained it). */
int sl_reopen(sl_queue *q);
/* A new queue being written, of capacity SL_MAX, holding the unread bytes of
 * q (as sl_clone), or NULL (out of memory). When q is full, sealed and none
 * of its bytes were read, q also gives its buffer up: it drains, as the top
 * of this file says. */
sl_queue *sl_take(sl_queue *q);
/* Empties q, being written again (with a buffer): 0, or -1 (out of
 * memory). */
int sl_reset(sl_queue *q);

/* Observers. The sum of the unread bytes. */
unsigned sl_sum(const sl_queue *q);
/* The bytes unread (0 for a draining queue: read to its end). */
int sl_len(const sl_queue *q);
/* Whether q is sealed (a draining queue is). */
bool sl_sealed(const sl_queue *q);
/* Whether a take drained q and has not been finished yet. */
bool sl_draining(const sl_queue *q);

#endif
