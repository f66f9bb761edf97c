/* crashlib: one function per way a target can fail, for checking that every
 * way of running an input (a process per run, the run server) reports it
 * with the same signature. */
#ifndef CRASHLIB_H
#define CRASHLIB_H

void fail_abort(int x);       /* abort() (a deadly signal libFuzzer reports) */
void fail_hang(int x);        /* never returns (a timeout) */
void fail_huge_malloc(int x); /* one allocation over libFuzzer's malloc limit */
void fail_null_write(int x);  /* SEGV */
void fail_overflow(int x);    /* heap-buffer-overflow */
void fail_leak(int x);        /* a block nobody frees */
void fail_shift(int x);       /* UBSan: shift exponent too large */

#endif
