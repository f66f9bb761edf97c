#include "crashlib.h"

#include <stdlib.h>
#include <string.h>

/* Kept out of reach of the optimizer so that each failure happens. */
static volatile int sink;

void fail_abort(int x) {
  if (x >= 0) abort();
}

void fail_hang(int x) {
  while (x >= 0)
    sink++;
}

void fail_huge_malloc(int x) {
  char *p = malloc((size_t)3 << 30 | (size_t)(x & 1));
  if (p) p[0] = 1;
  sink = p != NULL;
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
  sink = p[1];
}

void fail_shift(int x) {
  volatile int n = 40 + (x & 0);
  sink = 1 << n;
}
