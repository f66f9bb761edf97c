/* minimize.h: shrink a crashing sequence while keeping its crash signature.
 *
 * Every candidate runs in a process of its own (crash.h's sf_runner), so the
 * target crashing never stops the simplifier. Passes, repeated while they make progress and
 * the budget lasts:
 *  1. cut after the crashing call (the shortest crashing prefix);
 *  2. remove calls from the end backwards, with the calls that only fed them;
 *  3. replacement (Pacheco's §6.1): replace a call and what only fed it by a
 *     sequence no longer, producing a value it can stand in for: from the
 *     corpus, or one constructor call from the grammar with minimal arguments
 *     (`h2 = kv_snapshot(h1)` fed by `h1 = kv_open(..)` becomes `h2 = kv_open(..)`);
 *  4. materialization: a value built by calls is replaced by one call of its
 *     type's parser (grammar `inverse_of`) on the text the printer prints for
 *     it (read from a traced run of the target), when that removes calls;
 *     feeding: a call that moved data from one handle into another is
 *     replaced by the destination's feeder (`inverse_of` on a function of a
 *     handle and bytes) on the bytes the source's printer prints;
 *  5. merge handle arguments where an earlier value can serve;
 *  6. shrink primitives toward 0 and small values (flags: each set one cleared
 *     alone), strings and buffers toward shorter and simpler bytes.
 * The result is never a non-crashing input: it is the input itself at worst.
 * Given known bugs (harness/known.h), no candidate that completes one is
 * taken, unless the input itself does: a crash is minimized by its
 * signature, and a new bug must not slide onto a known one that crashes
 * the same way (two pcre2 divergences "in pj_match [result]"). */
#ifndef SF_MINIMIZE_H
#define SF_MINIMIZE_H

#include <stdint.h>

#include "../grammar/api.h"
#include "../harness/known.h"
#include "../sequence/seq.h"
#include "crash.h"

typedef struct sf_min_options {
  const char *target;   /* the fuzzer binary that runs one input file */
  unsigned timeout;     /* seconds per run */
  sf_runner *runner;    /* runs on target (NULL: the minimizer starts its own) */
  double max_seconds;   /* total budget (0: 60) */
  uint32_t max_runs;    /* total budget (0: 5000) */
  const sf_seq *corpus; /* replacement set (may be NULL) */
  uint32_t ncorpus;
  const sf_known *known; /* bugs no candidate may complete (may be NULL) */
  /* Progress lines ("removal: 12 -> 9 calls"), may be NULL. */
  void (*progress)(void *ctx, const char *line);
  void *ctx;
} sf_min_options;

typedef struct sf_min_result {
  sf_signature sig; /* of the input, kept by the result */
  uint32_t runs;
  double seconds;
  uint32_t calls_before, calls_after;
  uint32_t known_refused; /* candidates refused as completing a known bug */
} sf_min_result;

/* 0: out holds the minimized sequence (initialized by the caller). -1: the
 * input does not crash (res->sig says so) or the target cannot run. */
int sf_minimize(const sf_api *api, const sf_seq *in, const sf_min_options *opt, sf_seq *out,
                sf_min_result *res);

#endif
