/* triage.h: is a crash a bug of the library or a misuse by the grammar?
 *
 * seqfuzz only makes calls its grammar declares legal, so a crash is a bug
 * unless the grammar is wrong about the library's contract. The checks
 * follow JCrasher's rule (a fault inside the directly called function on an
 * argument it never promised to accept is a precondition violation), adapted
 * to C and to what a grammar can get wrong:
 *  - a crash inside the description's own C (a glue function in one of its
 *    headers): the glue is wrong, not the library;
 *  - one handle passed to two parameters of a call that the report's stacks
 *    pass through (node_attach(h, h)) when two different handles do not
 *    crash the same way: the grammar should `consume` one;
 *  - a double free or use after free of a handle that a call the grammar says
 *    only borrows it had freed: the parameter should be `consume` (or the
 *    result `owned_by`);
 *  - a leak of a string result with no `release`, or of a handle whose type
 *    has no destructor;
 *  - a NULL dereference inside the directly called function that was passed
 *    NULL where the grammar says `nullable`;
 *  - an allocation too large inside the called function that was given a
 *    size at the top of its declared range;
 *  - a timeout whose run time grows with the repetitions of one call (see
 *    sf_triage_grows_with_repeats): the work the sequence asked for.
 * Anything else is reported as a likely bug. */
#ifndef SF_TRIAGE_H
#define SF_TRIAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "../sequence/seq.h"
#include "crash.h"

typedef enum sf_verdict {
  SF_LIKELY_BUG,
  SF_LIKELY_MISUSE,
} sf_verdict;

typedef struct sf_triage_finding {
  sf_verdict verdict;
  char reason[512]; /* one sentence */
  /* For a misuse, the grammar's mistake one fix mends ("ownership pnode",
   * "glue recg_set_line"): crashes with one cause are one group whatever
   * their signatures. "" for a likely bug. */
  char cause[128];
} sf_triage_finding;

/* Classify the crash of sequence s (its minimized form, ideally) from the
 * sanitizer report of running it. A reason that can be checked is checked
 * by running variants of s with runner (the alias one: the same crash with
 * two different handles is no alias's fault); runner may be NULL (nothing
 * checked). Returns out->verdict. */
sf_verdict sf_triage_classify(const sf_seq *s, const char *report, sf_runner *runner,
                              sf_triage_finding *out);

/* Are two crashes, each a minimized sequence and the report of running
 * it, of one root cause although their signatures differ? A leak's
 * signature names where the lost object was allocated, and when that is
 * its constructor, one bug (a sort that drops a node) makes one signature
 * per constructor of nodes. Two leaks of handles of one type are one root
 * cause when the functions one sequence calls, less every function that
 * makes handles of that type (how the object was made is no part of how it
 * was lost), are among those the other calls (a minimizer may leave a call
 * more). False for anything else: signatures decide. */
bool sf_triage_same_root(const sf_seq *a, const char *report_a, const sf_seq *b,
                         const char *report_b);

/* Is the timeout of sequence s work the sequence asked for rather than a
 * hang? (a tree duplicated into itself 30 times takes 2^30 steps, each call
 * legal). True, with the reason, when s repeats one function at least four
 * times and dropping its last repetitions ends the timeout while the run
 * still takes at least a quarter of the time limit: the time grows with the
 * repetitions. A hang the repetitions only lead to (a counter that reaches
 * a bad state) ends abruptly instead and stays a bug. Runs s's variants
 * with runner, whose per-run limit is timeout seconds. */
bool sf_triage_grows_with_repeats(const sf_seq *s, sf_runner *runner, unsigned timeout,
                                  char *reason, size_t len);

#endif
