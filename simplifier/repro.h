/* repro.h: a sequence as a standalone C program that calls the library
 * directly (no seqfuzz needed to run it): its real headers, named constants,
 * string and buffer literals, one call per line. It behaves like the
 * executor: arguments in heap blocks of their exact size, a stop at the
 * first call failing by the API's error convention or getting a NULL handle,
 * and the caller-owned handles destroyed at the end, newest first; so built
 * with the same sanitizers it crashes the same way. */
#ifndef SF_REPRO_H
#define SF_REPRO_H

#include "../base/sf_buf.h"
#include "../sequence/seq.h"

/* Append the program for s to out; `origin` names the input in a comment.
 * -1 on OOM. */
int sf_repro_write(const sf_seq *s, const char *origin, sf_buf *out);

#endif
