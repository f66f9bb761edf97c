#include "statelib.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct sl_queue {
  unsigned char *data;  /* cap bytes, or none (no buffer yet, or drained) */
  size_t cap, len, pos; /* bytes held, bytes read: the unread ones are [pos, len) */
  int sealed;
  int draining; /* sl_take freed data; len, pos and sealed are as it left them */
};

/* The library's own state. A run ends with every queue freed (which
 * finishes any take): the next run starts as the first did, and runs repeat
 * exactly. */
static sl_queue idle;              /* a queue nothing takes from */
static sl_queue *pending = &idle;  /* the take not finished yet: its source */
static int finished;               /* the call in progress finished a take */
static unsigned live;              /* queues alive: 0 between runs */
static int rewarded;               /* since live was last 0: see succeeded() */
static unsigned char none[1];      /* the buffer of a queue that has none */

/* All ones when c holds, else 0, opaque to the optimizer: code that chooses
 * with it has no branch, so its choice is no new coverage. */
static uintptr_t mask(int c) {
  uintptr_t m = (uintptr_t)0 - (uintptr_t)(c != 0);
  __asm__("" : "+r"(m));
  return m;
}

/* Finishes the pending take (no branch): the first thing every call that
 * changes a queue does (sl_free too). */
static void settle(void) {
  sl_queue *q = pending;
  uintptr_t d = mask(q->draining);
  pending = &idle;
  finished = q->draining;
  q->data = (unsigned char *)(((uintptr_t)q->data & ~d) | ((uintptr_t)none & d));
  q->len &= ~d;
  q->pos &= ~d;
  q->sealed &= (int)~d;
  q->draining = 0;
}

/* The last thing a call that changed a queue does when it succeeds. Having
 * finished a take is new coverage here, and only here, once a run: a fuzzer
 * keeps a take that a call which succeeds follows (not a run that ends on a
 * take, or on a call that fails after it), and not many such runs. */
__attribute__((noinline)) static void succeeded(void) {
  int first = finished & !rewarded;
  finished = 0;
  rewarded |= first;
  if (first) __asm__ volatile(""); /* an edge of its own */
}

/* A queue gets its buffer (of exactly cap bytes: ASan sees a byte past it)
 * when it is first written, and again after a take drained it. */
static int own_buffer(sl_queue *q) {
  if (q->data == none) {
    unsigned char *d = malloc(q->cap);
    if (!d) return 0;
    q->data = d;
  }
  return 1;
}

sl_queue *sl_new(unsigned cap) {
  settle();
  if (cap < SL_MIN || cap > SL_MAX) return NULL;
  sl_queue *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->data = none;
  q->cap = cap;
  rewarded &= live != 0;
  live++;
  succeeded();
  return q;
}

/* A new queue being written, of the largest capacity, holding the unread
 * bytes of q. */
static sl_queue *copy_of(const sl_queue *q) {
  sl_queue *c = calloc(1, sizeof *c);
  size_t n = q->len - q->pos;
  if (!c) return NULL;
  c->data = none;
  c->cap = SL_MAX;
  if (!own_buffer(c)) {
    free(c);
    return NULL;
  }
  live++;
  if (n) memcpy(c->data, q->data + q->pos, n);
  c->len = n;
  return c;
}

sl_queue *sl_clone(const sl_queue *q) {
  settle();
  sl_queue *c = copy_of(q);
  if (!c) return NULL;
  succeeded();
  return c;
}

void sl_free(sl_queue *q) {
  settle();
  unsigned char *data = q->data;
  free((void *)((uintptr_t)data & ~mask(data == none)));
  free(q);
  live--;
}

int sl_put(sl_queue *q, const unsigned char *b, size_t n) {
  settle();
  if (q->sealed || n > q->cap - q->len || !own_buffer(q)) return -1;
  if (n) memcpy(q->data + q->len, b, n);
  q->len += n;
  succeeded();
  return (int)q->len;
}

int sl_seal(sl_queue *q) {
  settle();
  if (q->sealed || q->len == 0) return -1;
  q->sealed = 1;
  succeeded();
  return 0;
}

int sl_get(sl_queue *q, unsigned n) {
  settle();
  if (!q->sealed) return -1;
  size_t k = q->len - q->pos < n ? q->len - q->pos : n;
  q->pos += k;
  succeeded();
  return (int)k;
}

int sl_unget(sl_queue *q) {
  settle();
  if (!q->sealed || q->pos == 0) return -1;
  q->pos--;
  succeeded();
  return q->data[q->pos];
}

int sl_rewind(sl_queue *q) {
  settle();
  if (!q->sealed) return -1;
  q->pos = 0;
  succeeded();
  return (int)q->len;
}

int sl_reopen(sl_queue *q) {
#ifdef STATELIB_NO_BUGS
  settle();
#endif
  /* The bug: no settle() first. Right after sl_take drained it, q still
   * looks sealed and read to its end, and the buffer wiped is the one
   * sl_take freed. */
  if (!q->sealed || q->pos != q->len) return -1;
  memset(q->data, 0, q->cap);
  q->len = q->pos = 0;
  q->sealed = 0;
  succeeded();
  return 0;
}

sl_queue *sl_take(sl_queue *q) {
  settle();
  sl_queue *t = copy_of(q);
  if (!t) return NULL;
  /* A full sealed queue none of whose bytes were read gives its buffer up
   * too, without a branch: a take that drains is no new coverage (nor is
   * the take it finished: the run ends on a take all the same). */
  uintptr_t m = mask(q->sealed & (q->pos == 0) & (q->len == q->cap));
  free((void *)((uintptr_t)q->data & m));
  q->pos += q->len & m; /* read to its end until the next call finishes it */
  q->draining = (int)(m & 1);
  pending = (sl_queue *)(((uintptr_t)q & m) | ((uintptr_t)&idle & ~m));
  finished &= (int)~m;
  succeeded();
  return t;
}

int sl_reset(sl_queue *q) {
  settle();
  q->len = q->pos = 0;
  q->sealed = 0;
  if (!own_buffer(q)) return -1;
  succeeded();
  return 0;
}

unsigned sl_sum(const sl_queue *q) {
  unsigned s = 0;
  for (size_t i = q->pos; i < q->len; i++)
    s += q->data[i];
  return s;
}

int sl_len(const sl_queue *q) {
  return (int)(q->len - q->pos);
}

bool sl_sealed(const sl_queue *q) {
  return q->sealed;
}

bool sl_draining(const sl_queue *q) {
  return q->draining;
}
