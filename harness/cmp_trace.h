/* cmp_trace.h: the comparisons the target makes.
 *
 * A library built with -fsanitize-coverage=trace-cmp (libFuzzer's
 * -fsanitize=fuzzer-no-link includes it) calls __sanitizer_cov_trace_cmpN and
 * __sanitizer_cov_trace_const_cmpN with the operands of each integer
 * comparison, and __sanitizer_cov_trace_switch with the cases of each switch.
 * The engines' runtimes define those callbacks, so a fuzzer links with
 * -Wl,--wrap=__sanitizer_cov_trace_cmp1,... (seqfuzz_add_fuzzer does) and
 * cmp_trace.c's wrappers look at each call before passing it on; the same
 * for libc's memcmp and strcmp family.
 *
 * Two modes, chosen per run:
 *  - constants (sf_cmp_trace_begin/end): the distinct constants compared
 *    against, which the run records carry to the mutator as integer
 *    arguments: magic values random numbers never hit;
 *  - records (sf_cmp_trace_begin_records/end_records): every comparison with
 *    its site, width, operands and the call of the sequence that was running,
 *    for the solver (solver/solver.h). Bounded: at most SF_CMP_MAX_RECORDS per
 *    run and SF_CMP_MAX_OCCURRENCES per site and call, so loops do not flood.
 * (afl-clang-fast drops trace-cmp for its own instrumentation: an AFL++ build
 * traces nothing; the solver then works through a libFuzzer build.) */
#ifndef SF_CMP_TRACE_H
#define SF_CMP_TRACE_H

#include <stdbool.h>
#include <stdint.h>

/* Start noting constants (a new run). */
void sf_cmp_trace_begin(void);
/* Stop, copy at most cap distinct constants to out; returns their number. */
uint32_t sf_cmp_trace_end(uint64_t *out, uint32_t cap);

/* The punctuation and space bytes the target compared a byte with while
 * noting (a parser's separators: `*p == ','`), as a set: bit c of
 * set[c / 64]. Valid from sf_cmp_trace_end to the next begin. */
void sf_cmp_trace_separators(uint64_t set[4]);

/* While noting: a mock just answered `answer` (not 0, which too much equals).
 * A comparison among the next few (the code checking the answer) of a value
 * equal to it (in the comparison's width) with another operand notes that
 * operand as an answer the target expects (`if (hook() == 42)`), small
 * numbers included: input to state, as Redqueen does for input bytes, here
 * for the answers of mocks. Compared with itself (`r > 100` with r = 100),
 * it notes the operand plus and minus one. */
void sf_cmp_trace_watch_answer(uint64_t answer);
/* The pairs noted so, {answer, operand} (the operand zero-extended from the
 * comparison's width; distinct pairs), at most cap copied to out; valid from
 * sf_cmp_trace_end to the next begin. Pairs this process has not handed out
 * before come first. */
uint32_t sf_cmp_trace_answer_cmps(uint64_t (*out)[2], uint32_t cap);

/* While noting: the integer arguments of the call about to be made (the
 * executor's hook, exec.h: sf_exec_on_int_arg), watched for the rest of the
 * run (the first 16 distinct ones, not 0). A comparison of a value equal to
 * one of them (in the comparison's width) with another value notes the
 * pairs {argument, other value} and {argument, other value plus and minus
 * one} (only the neighbours when the two are equal): an argument that flows
 * into a comparison as it is (a limit, a count, a size), set to what it was
 * compared with, takes the comparison's other side (input to state, as
 * Redqueen and AFL++'s CmpLog do for input bytes, here for arguments; the
 * neighbours stand for `<`, `<=` and the like). A comparison site notes
 * one unequal comparison per argument and run (a loop's counter walks up
 * to a limit) and every equal one. */
void sf_cmp_trace_watch_arg(uint64_t value);
/* The pairs noted so, {argument, value} (the value in the argument's
 * 64-bit representation; distinct pairs), at most cap copied to out; valid
 * from sf_cmp_trace_end to the next begin. Those from comparisons of two
 * variables come first (a value nothing else finds, where a range check's
 * bound is a constant, which the mutator tries anyway), and among each,
 * the pairs this process has not handed out before. */
uint32_t sf_cmp_trace_arg_cmps(uint64_t (*out)[2], uint32_t cap);

/* Byte comparisons: memcmp, strcmp, strncmp, strcasecmp and strncasecmp
 * (wrapped too, harness/wrapped.txt). While noting, each one that came out
 * unequal is noted with both sides (their first SF_CMP_BYTES bytes; a
 * string without its NUL): one side is often an argument's bytes and the
 * other what the library expected there (a magic word, a key it holds), so
 * putting the second in the first's place passes the comparison (input to
 * state, as Redqueen does, here for bytes). */
#define SF_CMP_BYTES 32
typedef struct sf_bytes_cmp {
  uint8_t len[2];
  uint8_t side[2][SF_CMP_BYTES];
} sf_bytes_cmp;
/* The distinct pairs noted so, at most cap copied to out; valid from
 * sf_cmp_trace_end to the next begin. Pairs this process has not handed
 * out before come first. */
uint32_t sf_cmp_trace_bytes_cmps(sf_bytes_cmp *out, uint32_t cap);

#define SF_CMP_MAX_RECORDS     4096
#define SF_CMP_MAX_OCCURRENCES 4

enum { SF_TRACE_VAR = 0, SF_TRACE_CONST = 1, SF_TRACE_SWITCH = 2 };

typedef struct sf_cmp_record {
  uint64_t site;       /* the comparison's address (switch case i: ^ (i + 1) << 56) */
  uint64_t a, b;       /* operands, zero-extended (const: a is the constant; switch: b) */
  uint32_t call;       /* the sequence's call that was running */
  uint16_t occurrence; /* how many times this site was reached before in this call */
  uint8_t width;       /* operand size in bytes: 1, 2, 4 or 8 */
  uint8_t kind;        /* SF_TRACE_VAR, SF_TRACE_CONST, SF_TRACE_SWITCH */
} sf_cmp_record;

/* Start recording every comparison (a new run). */
void sf_cmp_trace_begin_records(void);
/* The sequence's call about to run (set by the executor's hooks). */
void sf_cmp_trace_set_call(uint32_t call);
/* Stop recording; *out points to the records (valid until the next begin). */
uint32_t sf_cmp_trace_end_records(const sf_cmp_record **out);

/* Pass comparisons on to the engine (default on). Off where no engine
 * fuzzes, as in the run server's children: libFuzzer keeps recent operands
 * in a table, where a pointer would make a leaked block look reachable. */
void sf_cmp_trace_forward(bool on);

#endif
