/* state_features.h: coverage states as the engine's features.
 *
 * A grammar may mark the observers and states that make up a handle's
 * coverage state (`coverage`, api.h: sf_api_coverage_state); the executor
 * hashes their values after each call (sf_exec_on_coverage_state). Here
 * each joint value becomes one feature the engine counts like an edge, so
 * that an input reaching a state no earlier input reached is kept (IJON's
 * annotated states, Aschermann et al., S&P 2020):
 * - libFuzzer: a table of its extra counters (the __libfuzzer_extra_counters
 *   section, which it clears before each run and reads after), also counted
 *   by edges.h so the mutator's schedule credits a new state as new code;
 * - AFL++: map entries past the target's edges, registered as guards
 *   (__sanitizer_cov_trace_pc_guard_init) before the fork server starts.
 * Compiled into fuzz targets only; the CLI's runs have no engine. */
#ifndef SF_STATE_FEATURES_H
#define SF_STATE_FEATURES_H

#include <stdint.h>

#define SF_STATE_FEATURES 4096 /* joint values share these by their hash */

/* Make the features visible to the engine: call once, before the AFL++
 * fork server starts (LLVMFuzzerInitialize), and only when the API has a
 * coverage state: AFL++'s map grows by SF_STATE_FEATURES entries. */
void sf_state_features_init(void);

/* A run reached coverage state joint (an sf_exec_on_coverage_state sink). */
void sf_state_features_hit(uint64_t joint);

#endif
