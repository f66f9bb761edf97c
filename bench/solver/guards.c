/* guards: one guarded branch per function, behind arithmetic on the
 * arguments (bench/solver/README.md lists the guards and their solutions).
 * A random argument passes a guard with probability 2^-16 or less.
 *
 * KEEP(v) hides v's computation from the optimiser. Without it clang -O2
 * rewrites e.g. `((x >> 8) & 0xfffff) == 0xabcde` into
 * `(x & 0xfffff00) == 0xabcde00`, and `x * 13 + 5 == K` may become a
 * comparison of x itself, so that the compared constant is the answer and no
 * solving is needed; with it, the traced comparison's operands are the
 * expressions the source shows. It costs nothing at run time. */
#include "guards.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define KEEP(v) __asm__ volatile("" : "+r"(v))

/* --- recording ------------------------------------------------------------ */

static uint32_t local_reached;
static uint32_t *reached = &local_reached; /* shared with forks when mapped */
static uint64_t start_ms;

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void guard_reached(int id) {
  if (id < 1 || id > 31) return;
  uint32_t bit = 1u << id;
  if (__atomic_fetch_or(reached, bit, __ATOMIC_RELAXED) & bit) return;
  const char *log = getenv("GUARDS_LOG");
  if (!log || !*log) return;
  uint64_t t0 = start_ms, now = now_ms();
  const char *s = getenv("GUARDS_T0_MS");
  if (s && *s) t0 = strtoull(s, NULL, 10);
  char line[48];
  int n = snprintf(line, sizeof line, "%d %llu\n", id,
                   (unsigned long long)(now > t0 ? now - t0 : 0));
  /* One write() on an O_APPEND file: lines from concurrent processes do not mix. */
  int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t w = write(fd, line, (size_t)n);
  (void)w;
  close(fd);
}

/* --- values computed at run time ------------------------------------------ */

/* Read through a volatile, so the compiler cannot fold what is computed from it. */
static volatile const char guards_name[] = "seqfuzz-guards";
static uint64_t g_magic64;     /* FNV-1a of guards_name */
static uint32_t default_seed;  /* gctx_new's seed */

__attribute__((constructor)) static void guards_init(void) {
  start_ms = now_ms();
  /* Mapped before AFL++'s fork server forks (or libFuzzer runs anything), so
   * every child sees the guards its siblings reached and logs each once. */
  void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED) reached = p;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < sizeof guards_name - 1; i++) {
    h ^= (uint8_t)guards_name[i];
    h *= 0x100000001b3ull;
  }
  g_magic64 = h;
  default_seed = (uint32_t)(h >> 17) | 1u;
}

/* --- affine transforms of one argument ------------------------------------ */

/* 13x + 5 (mod 2^32). Solution: x = 0x8253095c. */
int g_affine32(uint32_t x) {
  uint32_t v = x * 13u + 5u;
  KEEP(v);
  if (v == 0x9e3779b1u) {
    guard_reached(1);
    return 1;
  }
  return 0;
}

/* x * FNV64 prime + c (mod 2^64). Solution: x = 0xdb8a8b7ef3ca7df6. */
int g_affine64(uint64_t x) {
  uint64_t v = x * 0x100000001b3ull + 0x2545f491ull;
  KEEP(v);
  if (v == 0xd6e8feb86659fd93ull) {
    guard_reached(2);
    return 1;
  }
  return 0;
}

/* Signed, in 64 bits (no overflow): -7x + 100. Solution: x = -98765432. */
int g_affine_signed(int32_t x) {
  int64_t v = (int64_t)x * -7 + 100;
  KEEP(v);
  if (v == 691358124) {
    guard_reached(3);
    return 1;
  }
  return 0;
}

/* --- linear relations between arguments ----------------------------------- */

/* 3a - 7b + 13c (mod 2^32): one equation, three unknowns. No coefficient,
 * and no sum or difference of coefficients, is +-1, so the compared constant
 * put in some arguments (+-K, 0 in the others) is no solution. One solution:
 * a = b = 0, c = 0x1337c0de / 13 (mod 2^32) = 0x8b530ed6. */
int g_linear3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t v = 3u * a - 7u * b + 13u * c;
  KEEP(v);
  if (v == 0x1337c0deu) {
    guard_reached(4);
    return 1;
  }
  return 0;
}

/* Two equations, signed, in 64 bits. Solution: a = 500040, b = 499963. */
int g_linear_pair(int32_t a, int32_t b) {
  int64_t s = (int64_t)a + b, d = (int64_t)a - b;
  KEEP(s);
  KEEP(d);
  if (s == 1000003 && d == 77) {
    guard_reached(5);
    return 1;
  }
  return 0;
}

/* 5a - 3b (mod 2^64) against a negative constant. */
int g_linear64(int64_t a, int64_t b) {
  uint64_t v = 5u * (uint64_t)a - 3u * (uint64_t)b;
  KEEP(v);
  if ((int64_t)v == -123456789012345ll) {
    guard_reached(6);
    return 1;
  }
  return 0;
}

/* --- masks and shifts ------------------------------------------------------ */

/* A 20-bit field at bit 8. Solution: x = 0x?abcde??. */
int g_field(uint32_t x) {
  uint32_t f = (x >> 8) & 0xfffffu;
  KEEP(f);
  if (f == 0xabcdeu) {
    guard_reached(7);
    return 1;
  }
  return 0;
}

/* Two masks of the same value, checked one after the other: the constant of
 * either check, used as x, fails the other. Solution: x = 0x12563478. */
int g_masks(uint32_t x) {
  uint32_t hi = x & 0xff00ff00u, lo = x & 0x00ff00ffu;
  KEEP(hi);
  KEEP(lo);
  if (hi == 0x12003400u && lo == 0x00560078u) {
    guard_reached(8);
    return 1;
  }
  return 0;
}

/* The top 28 bits of a 64-bit value. Solution: x = 0xfeedfac?????????. */
int g_high(uint64_t x) {
  uint64_t h = x >> 36;
  KEEP(h);
  if (h == 0xfeedfacull) {
    guard_reached(9);
    return 1;
  }
  return 0;
}

/* Two arguments' low halves packed into one word. Solution: hi = 0x????dead,
 * lo = 0x????beef. */
int g_pack(uint32_t hi, uint32_t lo) {
  uint32_t v = ((hi & 0xffffu) << 16) | (lo & 0xffffu);
  KEEP(v);
  if (v == 0xdeadbeefu) {
    guard_reached(10);
    return 1;
  }
  return 0;
}

/* --- checksums over a buffer ----------------------------------------------- */

/* Sum of the bytes (mod 2^16) == 6000: needs 24 or more bytes, mostly high
 * ones (random 32-byte buffers sum to 4080 +- 418). */
int g_sum16(const uint8_t *buf, size_t len) {
  if (len < 4) return 0;
  uint16_t s = 0;
  for (size_t i = 0; i < len; i++)
    s = (uint16_t)(s + buf[i]);
  KEEP(s);
  if (s == 6000) {
    guard_reached(11);
    return 1;
  }
  return 0;
}

/* Weighted sum: h = h * 31 + byte (mod 2^32), the weights are powers of 31.
 * Reachable from 6 bytes on. */
int g_hash31(const uint8_t *buf, size_t len) {
  if (len < 4) return 0;
  uint32_t h = 0;
  for (size_t i = 0; i < len; i++)
    h = h * 31u + buf[i];
  KEEP(h);
  if (h == 0x7a3f5c21u) {
    guard_reached(12);
    return 1;
  }
  return 0;
}

/* --- magic values computed at run time ------------------------------------ */

/* The value x must have comes from the other argument. */
int g_derived(uint32_t seed, uint32_t x) {
  uint32_t m = (seed ^ 0xa5a5a5a5u) * 7919u;
  KEEP(m);
  if (x == m) {
    guard_reached(13);
    return 1;
  }
  return 0;
}

struct gctx {
  uint32_t seed;
};

gctx *gctx_new(void) {
  gctx *c = malloc(sizeof *c);
  if (c) c->seed = default_seed;
  return c;
}

void gctx_free(gctx *c) { free(c); }

void gctx_seed(gctx *c, uint32_t seed) {
  if (c) c->seed = seed;
}

/* The value x must have comes from the context's seed (a run-time default,
 * or what gctx_seed set earlier; the xor keeps seed 0 from asking for x 0). */
int g_seeded(const gctx *c, uint32_t x) {
  if (!c) return 0;
  uint32_t m = (c->seed ^ 0x5bd1e995u) * 2654435761u;
  KEEP(m);
  if (x == m) {
    guard_reached(14);
    return 1;
  }
  return 0;
}

/* x - 0x1000 == a 64-bit global computed at start-up (FNV-1a of a string). */
int g_global(uint64_t x) {
  uint64_t v = x - 0x1000u;
  KEEP(v);
  if (v == g_magic64) {
    guard_reached(15);
    return 1;
  }
  return 0;
}
