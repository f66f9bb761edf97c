/* loaded.h: the records of the corpus entries libFuzzer loads, kept until
 * the mutator takes them.
 *
 * While libFuzzer loads its corpus (seeds, a restart after a crash, a
 * fork-mode job's share) each of its runs is also the mutator's probe of
 * the entry (harness/fuzz_target.c). The entry cannot join the mutator's
 * pool inside that run: libFuzzer counts the run's mallocs and frees, and
 * runs an input again, to look for a leak, when it allocated more than it
 * freed; the pool's growth would do that to every entry. So the records
 * wait here, in memory mapped apart from malloc (whose hooks do not see
 * it), and the mutator takes them before its first mutation.
 *
 * One store per process, not thread-safe (libFuzzer runs one input at a
 * time). */
#ifndef SF_LOADED_H
#define SF_LOADED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "feedback.h"

/* Keeps a copy of the entry's bytes, its record (up to its fb->nobs call
 * observations) and what its run cost, in seconds. false when it does not
 * fit (the store's mapping is full or cannot be made): the entry is then
 * not kept. */
bool sf_loaded_put(const uint8_t *data, size_t size, const sf_feedback *fb, double run_cost);

/* How many records wait. */
uint32_t sf_loaded_count(void);

/* Calls take once for each record, in the order they were put (fb is
 * valid during the call only), then forgets them all and returns the
 * store's memory. */
typedef void (*sf_loaded_take_fn)(void *ctx, const uint8_t *data, size_t size,
                                  const sf_feedback *fb, double run_cost);
void sf_loaded_drain(sf_loaded_take_fn take, void *ctx);

#endif
