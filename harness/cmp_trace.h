/* cmp_trace.h: the constants the target compares its values against.
 *
 * A library built with -fsanitize-coverage=trace-cmp (libFuzzer's
 * -fsanitize=fuzzer-no-link includes it) calls __sanitizer_cov_trace_const_cmpN
 * with the constant and the value of each comparison, and
 * __sanitizer_cov_trace_switch with the cases of each switch. The engines'
 * runtimes define those callbacks, so a fuzzer links with
 * -Wl,--wrap=__sanitizer_cov_trace_const_cmp1,... (seqfuzz_add_fuzzer does)
 * and cmp_trace.c's wrappers note the constants before passing each call on.
 * The run records carry them to the mutator, which uses them as integer
 * arguments: magic values random numbers never hit. (afl-clang-fast drops
 * trace-cmp for its own instrumentation: under AFL++ nothing is traced yet;
 * AFL++'s cmplog hooks would be the way.) */
#ifndef SF_CMP_TRACE_H
#define SF_CMP_TRACE_H

#include <stdint.h>

/* Start noting constants (a new run). */
void sf_cmp_trace_begin(void);
/* Stop, copy at most cap distinct constants to out; returns their number. */
uint32_t sf_cmp_trace_end(uint64_t *out, uint32_t cap);

#endif
