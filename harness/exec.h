/* exec.h: run a sequence against the real library, through libffi.
 *
 * sf_exec_new() resolves every function of the API (and every `release`
 * symbol) once and prepares its libffi call interface. sf_exec_run() then
 * executes a valid sequence call by call:
 *  - strings, buffers and arrays are copied into heap blocks of their exact
 *    size (so AddressSanitizer sees any overflow); after the call a block is
 *    kept for reuse by a later argument of the same size (saving a malloc and
 *    a free per argument), or, for `keep` parameters, freed after the run;
 *  - the C shapes of docs/grammar.md 3.2: an out buffer is a zeroed block of
 *    the chosen size (an empty one is the end of a 1-byte block, so any
 *    write is caught), kept until the next call (a result may point into
 *    it); an inout number is passed by pointer; a `struct` handle is a
 *    zeroed block of its C size, freed after its destructor; a memfile or
 *    memfd is a private memfd holding the bytes; a printf format is passed
 *    with its arguments through a variadic call made for it;
 *  - a call whose non-nullable handle argument is NULL at run time is not
 *    made: the run stops there (SF_RUN_NULL_HANDLE, a precondition failure);
 *    so is a call whose `requires` is false (SF_RUN_PRECONDITION);
 *  - a result matching the function's error convention produces nothing and
 *    stops the run (SF_RUN_ERROR_RESULT); a destructor that fails still
 *    consumes its handle, and so does a `steal` parameter; any other call
 *    that fails consumes nothing;
 *  - at the end every live handle the caller owns is destroyed with its
 *    type's destructor, newest first (dependents before what they depend
 *    on; each counted reference of a `refcounted` type once), so what
 *    LeakSanitizer reports after a run is a real leak of the library.
 * Runs are deterministic: the same sequence makes the same calls with the
 * same values. */
#ifndef SF_EXEC_H
#define SF_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/sf_buf.h"
#include "../grammar/api.h"
#include "../sequence/seq.h"

typedef struct sf_exec sf_exec;

/* Resolve a symbol; NULL when absent. */
typedef void *(*sf_resolve_fn)(void *ctx, const char *symbol);

/* NULL on failure with a message in err (e.g. "kv_open: symbol not found"). */
sf_exec *sf_exec_new(const sf_api *api, sf_resolve_fn resolve, void *ctx, char *err, size_t errlen);
void sf_exec_free(sf_exec *x);

typedef enum sf_run_status {
  SF_RUN_OK = 0,       /* every call ran */
  SF_RUN_ERROR_RESULT, /* a call failed by the API's error convention */
  SF_RUN_NULL_HANDLE,  /* a non-nullable handle argument was NULL: call not made */
  SF_RUN_PRECONDITION, /* a `requires` was false (or unknown): call not made */
  SF_RUN_INVALID,      /* the sequence is not valid (sf_seq_validate) */
  SF_RUN_OOM,
  SF_RUN_KNOWN, /* the call would complete a known bug (harness/known.h): not made */
} sf_run_status;

const char *sf_run_status_name(sf_run_status st);

/* What one call did, for hooks. */
typedef struct sf_call_outcome {
  uint32_t call;
  bool made;           /* false when the call was not made (NULL handle) */
  bool failed;         /* the error convention matched */
  uint64_t ret;        /* result bits: integers sign-extended, floats as bits, pointers */
  const char *str;     /* string result (NULL if none); valid during the hook only */
  uint32_t mock_calls; /* calls the library made of mocks during it (any call's) */
  uint64_t outs[64];   /* value written to each out parameter (pointer or number) */
} sf_call_outcome;

typedef struct sf_exec_hooks {
  void *ctx;
  /* After each call made (and for the call not made, with made == false). */
  void (*after_call)(void *ctx, sf_exec *x, const sf_seq *s, const sf_call_outcome *o);
  /* After the last call, before the cleanup destroys the handles. */
  void (*before_cleanup)(void *ctx, sf_exec *x, const sf_seq *s);
  /* Before each call that is about to be made (its arguments are legal). */
  void (*before_call)(void *ctx, sf_exec *x, const sf_seq *s, uint32_t call);
} sf_exec_hooks;

typedef struct sf_run_result {
  sf_run_status status;
  uint32_t stop_call; /* the call where the run stopped; s->ncalls when it did not */
  uint32_t calls_made;
  /* Bit ci (ci < 64): call ci was made and failed by the API's error
   * convention (refused: a state may let it through later). */
  uint64_t refused;
} sf_run_result;

/* Execute s (must be valid for x's API). hooks may be NULL. Returns
 * result->status. */
sf_run_status sf_exec_run(sf_exec *x, const sf_seq *s, const sf_exec_hooks *hooks,
                          sf_run_result *result);

/* Dynamic legality: was the run legal, and how many of the calls of s ran
 * legally? A run that reached the end is legal, all its calls. So is a run
 * that stopped at a call failing by the API's error convention, up to and
 * including that call: the library rejecting an argument (a malformed
 * pattern or document, corrupt compressed data) is a legal outcome whose
 * error handling is worth covering; the calls after it never ran (the
 * mutator drops them). A run that stopped at a call that could not be made
 * (a NULL handle) is illegal: the calls before it were legal. */
bool sf_run_legal(const sf_run_result *r);
uint32_t sf_run_legal_calls(const sf_run_result *r, const sf_seq *s);

/* One line describing a call and its outcome (for after_call hooks), e.g.
 * `[3] kv_put(h1, "a", x"00")  -> 0`, appended to out without a newline. */
void sf_call_outcome_print(const sf_seq *s, const sf_call_outcome *o, sf_buf *out);

/* Before each call made, print to stderr its integer arguments and the
 * integer state observers of its handle arguments, e.g.
 *   seqfuzz: state before [2] list_get: i=3 list_len(l)=2
 * so that triage can tell an index beyond a length from a bug (traced runs,
 * SEQFUZZ_TRACE, do it; off by default: it costs calls). */
void sf_exec_trace_state(sf_exec *x, bool on);

/* During a hook: each state observer's answer on live handle value vid, in
 * the order of sf_api_state_observers() for its type: vals[k] is observer
 * k's answer widened to 64 bits, known bit k (k < 64) set when it is a
 * number, bool or enum (a string or float answer is not kept). Returns the
 * number of observers (at most max are asked), or -1 when vid is dead or
 * NULL. */
int sf_exec_observe_values(sf_exec *x, uint32_t vid, int64_t *vals, uint64_t *known, uint32_t max);

/* During a hook: the run-time pointer of value vid (NULL if not produced). */
void *sf_exec_value(const sf_exec *x, uint32_t vid);

/* During a hook: the abstract state of live handle value vid, a hash of the
 * results of every observer of its type that takes just that handle. 0 and
 * *state set on success; -1 if the value is dead or NULL or its type has no
 * such observer. */
int sf_exec_observe(sf_exec *x, uint32_t vid, uint64_t *state);

/* ---- oracles beyond crashes (docs/grammar.md §4a) -------------------------
 * A run checks the API's contracts: each function's `ensures` after each
 * call made (failed calls too), each `invariant` after every call that takes
 * or makes a live handle of its type. A violation is reported as a sanitizer
 * reports a crash, on stderr:
 *   ==PID==ERROR: seqfuzz: KIND in FUNCTION [WHICH]: what, then details
 *   SUMMARY: seqfuzz: KIND in FUNCTION [WHICH]
 * and the process aborts, so the engines save the input. KIND is
 * contract-violation, invariant-violation, divergence, nondeterminism,
 * impure-observer or round-trip-failure. */
typedef void (*sf_violation_fn)(void *ctx, const char *report);

/* Report violations to fn instead of aborting (tests); the run goes on. */
void sf_exec_on_violation(sf_exec *x, sf_violation_fn fn, void *ctx);

/* Tell fn the joint value of the coverage state (api.h:
 * sf_api_coverage_state) of each handle a call took or made, after each
 * call made that did not fail: a fuzzer makes each value a feature. The
 * coverage observers are called whether or not fn is set, so that every run
 * of an input makes the same calls. NULL stops. */
void sf_exec_on_coverage_state(sf_exec *x, void (*fn)(uint64_t joint));

/* Tell fn each answer a mock takes from its script (its result, widened,
 * and its out numbers) as the mock gives it: comparison tracing watches it
 * (sf_cmp_trace_watch_answer). */
void sf_exec_on_mock_answer(sf_exec *x, void (*fn)(uint64_t answer));

/* Tell fn each integer argument (widened to 64 bits as the sequence holds
 * it; not enums, held as the index of their constant) of a call right
 * before the call is made:
 * comparison tracing watches them (sf_cmp_trace_watch_arg). */
void sf_exec_on_int_arg(sf_exec *x, void (*fn)(uint64_t value));

/* Known bugs to set aside (harness/known.h; NULL: none; x does not own
 * it): a run stops with SF_RUN_KNOWN before the call that would complete
 * one. */
struct sf_known;
void sf_exec_set_known(sf_exec *x, const struct sf_known *known);

/* Differential mode: every run of s on x is followed by a run on twin (the
 * second implementation, built by sf_exec_new with its symbols, api->diff),
 * each with its own handles; per call, what both returned (status, result,
 * out numbers; strings by content, handles null or not) and the state
 * observers of the handles it took or made, and at the end every live
 * value's observers, must agree (`ignore`d and `nondeterministic` functions
 * aside, floats within the function's `tolerance`). The first difference is
 * reported as a divergence. NULL turns it off. twin must outlive x. */
void sf_exec_set_twin(sf_exec *x, sf_exec *twin);

/* Generic contracts on live value vid, during a before_cleanup hook: each
 * state observer answers the same twice and changes no other one's answer
 * (impure-observer); a parser declared `inverse_of` a printer of vid's type
 * accepts what the printer prints of vid, and printing what it parsed gives
 * the same text (round-trip-failure). */
void sf_exec_check_value(sf_exec *x, uint32_t vid);

/* Turn the generic checks (sf_exec_check_value, sf_exec_check_repeat) on
 * (the default) or off. */
void sf_exec_generic_checks(sf_exec *x, bool on);

/* Seconds the generic checks have taken in x so far: a caller that keeps
 * them to a share of its time turns them off while they are over it. */
double sf_exec_generic_seconds(sf_exec *x);

/* What the calls of each function cost and found, since x was made: the
 * mutator weighs its choice of calls by them (an API's table builder can
 * cost more than the rest of a run and find nothing after its first call). */
typedef struct sf_call_stats {
  uint64_t calls;       /* calls made */
  uint64_t ticks;       /* their time, in base/sf_clock.h's ticks (sf_ticks_per_second):
                         * one run in 8 timed, counted 8 times */
  uint64_t first_edges; /* edges they reached first while edges were counted */
} sf_call_stats;

/* api->nfuncs entries, updated by every run. */
const sf_call_stats *sf_exec_call_stats(const sf_exec *x);

/* With a counter (non-NULL), around each call made of a function whose
 * funcs[] entry is true (every function's if funcs is NULL), new_edges()
 * is asked how many edges were reached that no earlier call did
 * (harness/edges.h: sf_edges_new): before the call for the calls before
 * it, after it for the call, credited to its function. The harness counts
 * them in its own runs of new corpus entries (the engine's runs clear the
 * counters), for the functions whose calls cost enough to be worth telling
 * (a count scans every counter). NULL stops. Setting one starts a new
 * total: sf_exec_counted_edges (the edges of the calls after the last one
 * asked about are not in it). funcs must stay valid while it counts. */
void sf_exec_count_edges(sf_exec *x, uint32_t (*new_edges)(void), const bool *funcs);
uint32_t sf_exec_counted_edges(const sf_exec *x);

/* Run s twice more and compare as the differential mode does
 * (nondeterminism: one sequence, two answers). */
void sf_exec_check_repeat(sf_exec *x, const sf_seq *s);

#endif
