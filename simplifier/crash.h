/* crash.h: running one input in isolation and naming how it crashed.
 *
 * A crash is reduced to a signature: the bug kind (the sanitizer's name for
 * it, "SEGV", "leak", "abort", "timeout", ...) and the top frames of the
 * crashing stack that are inside the target (frames in seqfuzz, libffi, the
 * fuzzing engine, the sanitizer runtime and libc are skipped). Two crashes
 * are "the same" when their signatures are equal: comparing by kind and
 * frames, not by the report's text, keeps addresses and line noise out.
 * A timeout names the two outermost frames inside the target instead (the
 * API call and what it was looping in): where an endless loop happens to be
 * when the alarm rings says nothing about which loop it is. A leak names its
 * allocation site only (one bug that loses objects made by several calls is
 * one group). A UBSan report names its file:line (and its function when
 * it has a stack). A finding of the oracles (a contract violated, two
 * implementations that disagree) names its kind, function and rule. */
#ifndef SF_CRASH_H
#define SF_CRASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SF_SIG_FRAMES    3
#define SF_SIG_FRAME_LEN 96

typedef struct sf_signature {
  bool crashed;
  char kind[64];                                /* "heap-use-after-free", "SEGV", "leak", ... */
  char frames[SF_SIG_FRAMES][SF_SIG_FRAME_LEN]; /* function names, innermost first */
  unsigned nframes;
  /* UBSan: "file.c:line" of the report, with at most the innermost frame:
   * one site is one bug whoever called it, and two sites are two even in
   * one function or with no stack printed. "" otherwise. */
  char site[SF_SIG_FRAME_LEN];
  /* A finding of seqfuzz's oracles (harness/exec.h): kind "divergence",
   * "contract-violation", ...; frames[0] the function; site which contract
   * or what differed ("ensures 1", "result"). */
  bool oracle;
} sf_signature;

/* Parse a sanitizer / libFuzzer report. crashed is false when the text has
 * no report. */
void sf_signature_parse(const char *report, size_t len, sf_signature *sig);
bool sf_signature_equal(const sf_signature *a, const sf_signature *b);
/* "heap-use-after-free in blob_unref < clear_slot < kv_close" */
void sf_signature_format(const sf_signature *sig, char *out, size_t outlen);

/* Run `target` (a seqfuzz fuzzer binary, which executes a file given as its
 * argument) on the input bytes in a child process with a time limit in
 * seconds; fill sig from what it printed. A crash of the target never
 * reaches the caller. The full output is kept in *report if report is not
 * NULL (caller frees). Returns 0, or -1 if the target could not be started. */
int sf_run_isolated(const char *target, const uint8_t *data, size_t size, unsigned timeout,
                    sf_signature *sig, char **report);

/* As sf_run_isolated, with the target tracing its calls (SEQFUZZ_TRACE): the
 * report also holds every call's outcome and, for string results, a line
 * SF_TRACE_RESULT "N: " with the whole string as a text-form literal
 * (harness/options.h). */
int sf_run_traced(const char *target, const uint8_t *data, size_t size, unsigned timeout,
                  sf_signature *sig, char **report);

/* Running many inputs on one target, as the simplifier and triage do. With
 * a seqfuzz fuzzer the target starts once as a fork server
 * (harness/run_server.h) and each run costs a fork instead of a process
 * start; any other target, or a server that keeps dying, gets a fresh
 * process per run. Results are the same either way: each run is
 * `target -timeout=T -runs=1 FILE` in a process of its own. */
typedef struct sf_runner sf_runner;

sf_runner *sf_runner_new(const char *target, unsigned timeout);
/* As sf_run_isolated. */
int sf_runner_run(sf_runner *r, const uint8_t *data, size_t size, sf_signature *sig, char **report);
/* "fork server" or "a process per run": how the runs so far were made. */
const char *sf_runner_mode(const sf_runner *r);
void sf_runner_free(sf_runner *r);

#endif
