/* guards: a benchmark library for seqfuzz's comparison solver
 * (bench/solver/README.md). Each g_* function has one branch guarded by
 * arithmetic on its arguments; the first time a guard is passed in a process
 * it is recorded (guard_reached). Every function returns 1 when its guard
 * held and 0 otherwise; none of them crashes. */
#ifndef GUARDS_H
#define GUARDS_H

#include <stddef.h>
#include <stdint.h>

#define GUARDS_COUNT 15

/* Record guard `id` (1..GUARDS_COUNT) as reached: the first time in this
 * process (and in its forks) appends "ID MILLISECONDS\n" to the file named by
 * $GUARDS_LOG (milliseconds since $GUARDS_T0_MS, milliseconds since the epoch,
 * or since the process started when that is unset). No-op without GUARDS_LOG. */
void guard_reached(int id);

/* --- affine transforms of one argument --------------------------------- */
int g_affine32(uint32_t x);       /* 1 */
int g_affine64(uint64_t x);       /* 2 */
int g_affine_signed(int32_t x);   /* 3 */

/* --- linear relations between arguments ------------------------------- */
int g_linear3(uint32_t a, uint32_t b, uint32_t c); /* 4 */
int g_linear_pair(int32_t a, int32_t b);           /* 5 */
int g_linear64(int64_t a, int64_t b);              /* 6 */

/* --- masks and shifts ---------------------------------------------------- */
int g_field(uint32_t x);                /* 7 */
int g_masks(uint32_t x);                /* 8 */
int g_high(uint64_t x);                 /* 9 */
int g_pack(uint32_t hi, uint32_t lo);   /* 10 */

/* --- checksums over a buffer -------------------------------------------- */
int g_sum16(const uint8_t *buf, size_t len);  /* 11 */
int g_hash31(const uint8_t *buf, size_t len); /* 12 */

/* --- magic values computed at run time ---------------------------------- */
int g_derived(uint32_t seed, uint32_t x); /* 13 */

/* A context holding a seed (initially a value computed at run time). */
typedef struct gctx gctx;
gctx *gctx_new(void); /* NULL if out of memory */
void gctx_free(gctx *c);
void gctx_seed(gctx *c, uint32_t seed); /* set the seed */
int g_seeded(const gctx *c, uint32_t x); /* 14 */

int g_global(uint64_t x); /* 15 */

#endif
