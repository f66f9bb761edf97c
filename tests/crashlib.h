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

/* Options of fail_on_option: only FAIL_OPT_F fails (a heap-buffer-overflow),
 * whatever else is set, so a minimized input keeps that one flag alone. */
enum {
  FAIL_OPT_A = 1,
  FAIL_OPT_B = 2,
  FAIL_OPT_C = 4,
  FAIL_OPT_D = 8,
  FAIL_OPT_E = 16,
  FAIL_OPT_F = 32,
  FAIL_OPT_G = 64,
  FAIL_OPT_H = 128
};
void fail_on_option(unsigned opts);

/* A box whose destructor forgets its contents: the leaked block is also a
 * handle the run produced (box_contents), so only an executor that forgets
 * its handles' pointers after a run lets the leak check see it. */
typedef struct box box;
box *box_new(int x);
char *box_contents(box *b);
void box_free(box *b); /* frees the box, not its contents */

/* Timeouts that are work the caller asked for, and a hang that is a bug. */
typedef struct counter counter;
counter *counter_new(void);
void counter_free(counter *c);
void counter_double_work(counter *c); /* twice the work of the previous call */
void counter_poke(counter *c);        /* hangs on the fifth poke */

#endif
