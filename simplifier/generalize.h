/* generalize.h: a minimized crash made into a known bug's pattern
 * (harness/known.h), which the fuzzer then sets aside.
 *
 * A pattern that asks for every argument value exactly would let the
 * mutator find the same bug again and again with other keys; one that
 * asks for none would set aside every run of those calls. So each
 * non-handle argument is tried with two other values the grammar allows
 * (integers near it, floats 0 and 1.5, bytes with another first byte
 * and half as long); an argument whose crash survives both may take any value
 * (harness/known.h's `# any:` rules). Else:
 *  - arguments equal to it (a key put, then deleted) are tried with it, and
 *    those whose crash survives join it: any value, equal to each other;
 *  - a string or buffer whose crash survives other content of its length
 *    (and twice its length): any value that long (at least that long);
 *  - flags: each bit whose flip the crash survives may take any value.
 * The calls before the last are tried in every other order (up to five of
 * them): each order that crashes the same way joins the pattern. And every
 * other function is tried in place of the last call, on its handle, with
 * plain arguments: those that crash the same way may end the pattern too
 * (a buffer left without room for its NUL crashes the next append and the
 * next read alike). */
#ifndef SF_GENERALIZE_H
#define SF_GENERALIZE_H

#include "../base/sf_buf.h"
#include "../sequence/seq.h"
#include "crash.h"

/* Append to out the pattern of the crashing input s (its text form and a
 * `# any:` line when some arguments may vary), whose crash is sig, trying
 * variants with runner. Returns the number of runs made, -1 on OOM or when
 * the runner fails. */
int sf_generalize(const sf_seq *s, const sf_signature *sig, sf_runner *runner, sf_buf *out);

/* The wide pattern of s: its calls before the last one, every value any,
 * when the last call takes a handle they made (else -1: nothing to widen).
 * For a bug whose variants keep coming back past its exact pattern (the
 * last call, the lengths that meet a capacity): it is set aside at the call
 * that arms it. Appends to out; -1 on OOM, or when s has fewer than two
 * calls or nothing to widen. */
int sf_generalize_wide(const sf_seq *s, const sf_signature *sig, sf_buf *out);

#endif
