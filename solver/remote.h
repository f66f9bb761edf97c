/* remote.h: the solver in another process.
 *
 * Under AFL++ the mutator lives in afl-fuzz, which cannot run the target, and
 * an afl-clang-fast build traces no comparisons. So the mutator starts a
 * tracing build of the same target (its libFuzzer build, named in
 * SEQFUZZ_SOLVER_TARGET) as a solver server, tells it about each new queue
 * entry, and asks it for results now and then. A server that dies (a target
 * crash outside an isolated attempt) is started again; one that dies at once
 * is given up on.
 *
 * Protocol, over a pipe each way: a request is one byte ('O' observe an
 * input, 'S' one solver step), a u32 length and that many bytes; 'S' is
 * answered by SF_SOLVER_PROTOCOL (u32: a server of another build that
 * answers differently is given up on, with a message), a u32 length, the
 * result bytes (none: no result), the server's sf_solver_stats, its CPU
 * time so far in microseconds (u64, its attempts' child processes
 * included: the engine's budget counts it), the part of it spent learning
 * inputs (u64 microseconds: the budget pays learning first, within its own
 * share), and the hints gathered since
 * the last answer (u32 count, that many u64 constants, four u64 of
 * separators, u32 count, that many argument pairs of three u64 each).
 *
 * The engine never waits for the server: an input that does not fit in the
 * pipe while the server is busy is not sent, and a step unanswered for two
 * minutes (an attempt's child is killed after one) restarts the server.
 *
 * Under libFuzzer the fuzzer starts itself as its server the same way
 * (harness/fuzz_target.c): attempts fork, and the copy-on-write faults a
 * fork leaves behind would slow the engine's own process. */
#ifndef SF_SOLVER_REMOTE_H
#define SF_SOLVER_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/sf_buf.h"
#include "budget.h"
#include "solver.h"

#define SF_SOLVER_SERVE_ENV  "SEQFUZZ_SOLVER_SERVE"
#define SF_SOLVER_TARGET_ENV "SEQFUZZ_SOLVER_TARGET"
#define SF_SOLVER_MAX_FRAME  (1u << 24)
#define SF_SOLVER_PROTOCOL   0x53465635u /* "SFV5": hints carry argument pairs */

/* What the tracing build saw the target compare while it observed queue
 * entries: constants (beyond the small numbers a mutator tries anyway) and
 * the punctuation bytes compared with (a parser's separators), and per
 * entry, what its integer arguments were compared with (harness/cmp_trace.h:
 * sf_cmp_trace_arg_cmps). Under libFuzzer the run records carry them;
 * afl-fuzz's build traces nothing, so the server sends them with each
 * answer, as CmpLog does for AFL++. */
#define SF_SOLVER_MAX_HINTS 64
typedef struct sf_arg_hint {
  uint64_t input;   /* the entry's sf_feedback_input_hash */
  uint64_t pair[2]; /* {argument, value compared with} */
} sf_arg_hint;
typedef struct sf_solver_hints {
  uint32_t nconsts;
  uint64_t consts[SF_SOLVER_MAX_HINTS];
  uint64_t separators[4]; /* bit c of separators[c / 64] */
  uint32_t nargs;
  sf_arg_hint args[SF_SOLVER_MAX_HINTS];
} sf_solver_hints;

/* Add constants (not already there; those past the capacity are dropped) and
 * separators to h. */
void sf_solver_hints_add(sf_solver_hints *h, const uint64_t *consts, uint32_t n,
                         const uint64_t separators[4]);
/* Add n argument hints (those past the capacity are dropped) to h. */
void sf_solver_hints_add_args(sf_solver_hints *h, const sf_arg_hint *args, uint32_t n);

/* ---- client (both engines: harness/fuzz_target.c, harness/afl_mutator.c) ---- */
typedef struct sf_solver_client sf_solver_client;

/* Start `target` as a server now. NULL if it cannot be started. */
sf_solver_client *sf_solver_client_start(const char *target);
/* A client whose server the engines' stage starts once the budget can pay
 * `start_cost` seconds for its start-up (a server started at once would
 * take far more than its share of a run's first second, on the engine's
 * core). Inputs observed until then are kept (up to 512 KiB) and sent when
 * it starts. NULL: out of memory. */
sf_solver_client *sf_solver_client_deferred(const char *target, double start_cost);
/* A guess at a sanitized target's start-up, for engines that cannot measure
 * it (afl-fuzz is not the target). */
#define SF_SOLVER_START_COST_GUESS 0.05
/* And at the server's learning of one input (a traced run and its
 * comparisons), for the same engines. */
#define SF_SOLVER_LEARN_COST_GUESS 0.002
/* Whether a server was started (it may have died since). */
bool sf_solver_client_started(const sf_solver_client *c);
void sf_solver_client_free(sf_solver_client *c);
/* A new input for the solver to learn from (a queue entry). */
void sf_solver_client_observe(sf_solver_client *c, const uint8_t *data, size_t size);
/* The engines' way to it: a new queue entry is observed if it is one of
 * the server's last results (the solver counts it as kept), or else if the
 * budget can pay `cost` seconds for the server's learning of it
 * (sf_solver_budget_learn); else it waits (the newest 32) and is observed
 * before a later step, when the budget can pay for it. */
void sf_solver_client_learn(sf_solver_client *c, sf_solver_budget *b, double cost,
                            const uint8_t *data, size_t size);
/* The hints the answers brought since the last call (cleared); false: none. */
bool sf_solver_client_take_hints(sf_solver_client *c, sf_solver_hints *out);
/* One step: 1 and the result appended to out; 0 no result; -1 the server is
 * gone for good. st receives the server's statistics (may be NULL). */
int sf_solver_client_step(sf_solver_client *c, sf_buf *out, sf_solver_stats *st);
/* CPU seconds the servers used, as of the last step's answer (all the
 * servers started, restarts included); and of that, learning inputs. */
double sf_solver_client_cpu(const sf_solver_client *c);
double sf_solver_client_learn_cpu(const sf_solver_client *c);

/* The engines' solver stage, called before each mutation. It never waits
 * for the server: it starts a deferred one when the budget can pay for it,
 * and when the budget allows (solver/budget.h) it asks for a
 * step and returns; a later call takes the answer once it is there and
 * charges the server's CPU time since the last answer to the budget.
 * 1: out holds a result (appended), at most max_size bytes; 0: nothing now;
 * -1: the server is gone for good (*cp freed and set to NULL, a line on
 * stderr). st receives the server's statistics with each answer. */
int sf_solver_client_stage(sf_solver_client **cp, sf_solver_budget *b, sf_buf *out, size_t max_size,
                           sf_solver_stats *st);

/* ---- server (the tracing build) ---- */
/* Learn from an input: decode or interpret it, run it traced, call
 * sf_solver_observe / sf_solver_note_input, and add what the run compared
 * to hints. */
typedef void (*sf_solver_observe_fn)(void *ctx, const uint8_t *data, size_t size,
                                     sf_solver_hints *hints);

/* Serve requests from fd `in`, answering on fd `out`, until end of input. */
void sf_solver_serve(sf_solver *sv, int in, int out, sf_solver_observe_fn observe, void *ctx);

#endif
