#include "crashlib.h"

#include <stdlib.h>
#include <string.h>

/* Kept out of reach of the optimizer so that each failure happens. */
static volatile int sink;
/* Where a block escapes, so that the compiler cannot drop its malloc/free. */
static void *volatile escape;

void fail_abort(int x) {
  if (x >= 0) abort();
}

void fail_hang(int x) {
  while (x >= 0)
    sink++;
}

void fail_huge_malloc(int x) {
  char *p = malloc((size_t)3 << 30 | (size_t)(x & 1));
  escape = p;
  free(p);
}

void fail_null_write(int x) {
  int *volatile p = NULL;
  if (x >= 0) *p = x;
}

void fail_overflow(int x) {
  char *p = malloc(8);
  sink = p[8 + (x & 0)];
  free(p);
}

void fail_leak(int x) {
  char *p = malloc(32);
  memset(p, x, 32);
  escape = p;
  escape = NULL; /* the last pointer to the block gone: leaked */
}

void fail_shift(int x) {
  volatile int n = 40 + (x & 0);
  sink = 1 << n;
}

void fail_on_option(unsigned opts) {
  char *p = malloc(8);
  sink = p[opts & FAIL_OPT_F ? 8 : 0];
  free(p);
}

struct box {
  char *contents;
};

box *box_new(int x) {
  box *b = malloc(sizeof *b);
  b->contents = malloc(24);
  memset(b->contents, x, 24);
  return b;
}

char *box_contents(box *b) {
  return b->contents;
}

void box_free(box *b) {
  free(b);
}

struct counter {
  unsigned long work, pokes;
};

counter *counter_new(void) {
  return calloc(1, sizeof(counter));
}

void counter_free(counter *c) {
  free(c);
}

void counter_double_work(counter *c) {
  c->work = c->work ? 2 * c->work : 1;
  for (unsigned long i = 0; i < c->work << 16; i++)
    sink++;
}

void counter_poke(counter *c) {
  if (++c->pokes == 5) fail_hang(1);
}
