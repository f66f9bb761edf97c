/* sf_clock: seconds on the monotonic clock, for budgets and timings. */
#ifndef SF_CLOCK_H
#define SF_CLOCK_H

#include <time.h>

static inline double sf_seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
