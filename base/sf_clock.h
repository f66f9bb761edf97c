/* sf_clock: seconds on the monotonic clock, for budgets and timings; ticks
 * of a cheaper clock for timing single calls. */
#ifndef SF_CLOCK_H
#define SF_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline double sf_seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The CPU's cycle counter where the compiler offers one (a few cycles to
 * read, against tens of nanoseconds for the clock), else nanoseconds. */
#if defined(__x86_64__) && defined(__clang__)
static inline uint64_t sf_ticks_now(void) {
  return __builtin_readcyclecounter();
}
#else
static inline uint64_t sf_ticks_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

/* Ticks per second, measured against the clock since the first call of the
 * calling file (0 on that first call and while less than 10 ms passed). */
static inline double sf_ticks_per_second(void) {
  static double t0;
  static uint64_t k0;
  double now = sf_seconds_now();
  uint64_t k = sf_ticks_now();
  if (t0 == 0) {
    t0 = now;
    k0 = k;
    return 0;
  }
  return now - t0 < 0.01 ? 0 : (double)(k - k0) / (now - t0);
}

#endif
