/* Coverage states as engine features (contract in state_features.h). */
#include "state_features.h"

#include <stdbool.h>
#include <stddef.h>

#include "edges.h"

#define NO_COV __attribute__((no_sanitize("coverage")))

/* libFuzzer finds the section by its __start_/__stop_ symbols. */
__attribute__((used,
               section("__libfuzzer_extra_counters"))) static uint8_t counters[SF_STATE_FEATURES];

/* AFL++'s runtime (afl-compiler-rt): weak, so that other builds link. */
extern uint8_t *__afl_area_ptr __attribute__((weak));
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) __attribute__((weak));
static uint32_t guards[SF_STATE_FEATURES]; /* map indexes AFL++ gave; 0: none */
static bool afl;

NO_COV void sf_state_features_init(void) {
  static bool done;
  if (done) return;
  done = true;
  if (sf_edges_available()) sf_edges_watch(counters, sizeof counters); /* libFuzzer */
  if (&__afl_area_ptr && __sanitizer_cov_trace_pc_guard_init) {
    __sanitizer_cov_trace_pc_guard_init(guards, guards + SF_STATE_FEATURES);
    afl = guards[0] != 0;
  }
}

NO_COV void sf_state_features_hit(uint64_t joint) {
  uint32_t i = (uint32_t)(joint % SF_STATE_FEATURES);
  counters[i] = 1;
  if (afl && __afl_area_ptr) __afl_area_ptr[guards[i]] = 1;
}
