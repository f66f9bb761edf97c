#include "cmp_trace.h"

#include <stdbool.h>

#define MAX_NOTED 64

static uint64_t noted[MAX_NOTED];
static uint32_t nnoted;
static bool tracing;

/* Constants worth a mutator's time: not the small numbers it tries anyway. */
__attribute__((no_sanitize("coverage"))) static void note(uint64_t c) {
  if (!tracing || c < 256 || c == UINT64_MAX || c == UINT32_MAX) return;
  for (uint32_t i = 0; i < nnoted; i++)
    if (noted[i] == c) return;
  if (nnoted < MAX_NOTED) noted[nnoted++] = c;
}

void sf_cmp_trace_begin(void) {
  nnoted = 0;
  tracing = true;
}

uint32_t sf_cmp_trace_end(uint64_t *out, uint32_t cap) {
  tracing = false;
  uint32_t n = nnoted < cap ? nnoted : cap;
  for (uint32_t i = 0; i < n; i++)
    out[i] = noted[i];
  return n;
}

/* The engines' own callbacks, reached through --wrap. */
void __real___sanitizer_cov_trace_const_cmp1(uint8_t a, uint8_t b);
void __real___sanitizer_cov_trace_const_cmp2(uint16_t a, uint16_t b);
void __real___sanitizer_cov_trace_const_cmp4(uint32_t a, uint32_t b);
void __real___sanitizer_cov_trace_const_cmp8(uint64_t a, uint64_t b);
void __real___sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases);

#define WRAP(n, T)                                                                                 \
  __attribute__((no_sanitize("coverage"))) void __wrap___sanitizer_cov_trace_const_cmp##n(T a,     \
                                                                                          T b) {   \
    note(a); /* the first argument is the compile-time constant */                                 \
    __real___sanitizer_cov_trace_const_cmp##n(a, b);                                               \
  }
WRAP(2, uint16_t)
WRAP(4, uint32_t)
WRAP(8, uint64_t)
#undef WRAP

__attribute__((no_sanitize("coverage"))) void __wrap___sanitizer_cov_trace_const_cmp1(uint8_t a,
                                                                                      uint8_t b) {
  __real___sanitizer_cov_trace_const_cmp1(a, b); /* bytes: nothing worth noting */
}

__attribute__((no_sanitize("coverage"))) void __wrap___sanitizer_cov_trace_switch(uint64_t val,
                                                                                  uint64_t *cases) {
  /* cases[0]: number of cases, cases[1]: bit width, then the case values. */
  for (uint64_t i = 0; i < cases[0] && i < 64; i++)
    note(cases[2 + i]);
  __real___sanitizer_cov_trace_switch(val, cases);
}
