/* edges.h: which edges of the target a run reached for the first time.
 *
 * A libFuzzer build (-fsanitize=fuzzer-no-link) gives each instrumented
 * module a table of 8-bit counters, one per edge, and registers it through
 * __sanitizer_cov_8bit_counters_init. A seqfuzz fuzzer links with
 * -Wl,--wrap=__sanitizer_cov_8bit_counters_init (harness/wrapped.txt), so
 * edges.c sees each table before passing it on. The engine clears the
 * counters before each of its runs and reads them right after; in between,
 * the harness may use them for a run of its own: clear, run, count.
 *
 * What it is for: libFuzzer keeps an input that only changes hit counts or
 * that is a smaller copy of another entry (-reduce_inputs) as readily as
 * one that reaches new code; the mutator's schedule should credit the
 * mutations that reach new code. Builds without the counters (AFL++,
 * coverage builds) have no tables: sf_edges_available() is false. */
#ifndef SF_EDGES_H
#define SF_EDGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Are there counters (a libFuzzer-instrumented target is linked in)? */
bool sf_edges_available(void);
/* How many edges the counters cover (0 without them). */
size_t sf_edges_count(void);
/* Count the counters in [start, start + len) too: features the harness
 * sets itself (state_features.h), which the engine clears and reads as it
 * does the target's. */
void sf_edges_watch(uint8_t *start, size_t len);
/* Zero every counter (before a run of the harness's own). */
void sf_edges_clear(void);
/* How many edges the counters show reached that no earlier call of this
 * function counted; they count as seen from now on. */
uint32_t sf_edges_new(void);
/* Do the counters show an edge that sf_edges_new() never counted? They are
 * only read (nothing counts as seen): the harness asks at the end of one of
 * the engine's runs, before the engine reads them. */
bool sf_edges_any_new(void);
/* How many edges sf_edges_new() has counted so far (for statistics). */
uint32_t sf_edges_seen(void);

#endif
